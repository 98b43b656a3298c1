/**
 * The environment harness detection looks at: this process's. Apart from
 * connect-common.ts so a capture hook gets it without loading the harness
 * face (every editor and its libraries), which a hook never needs.
 */
import { homedir } from "node:os";
import type { HarnessContext } from "../harness/types.ts";

/** This process's home, environment, platform and working directory. */
export function harnessContext(): HarnessContext {
  const set = (v: string | undefined) => (v !== undefined && v !== "" ? v : undefined);
  return { userHome: set(process.env.HOME) ?? set(process.env.USERPROFILE) ?? homedir(), env: process.env, platform: process.platform, cwd: process.cwd() };
}
