/** zod's `z`, for zod.ts to require: a local module, so the bundle keeps one zod (its ES build), not its CommonJS build beside it. */
export { z } from "zod";
