/**
 * zod, evaluated on first use. Evaluating the package is about 3 ms of a
 * process's start (issue 32: a compiled binary that only imports it starts
 * in 7.5 ms against a bare one's 4.4 ms), which a hook whose input, config
 * and batches are plainly good never needs. The modules a hook loads call
 * this; modules that build their schemas as they load import zod as usual.
 */
import { once } from "../util/once.ts";

/** zod's constructors (zod-package.ts), required (and so evaluated) the first time they are asked for. */
export const zod = once(() => require("./zod-package.ts") as typeof import("./zod-package.ts"));
