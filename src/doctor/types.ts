/** The shape of `zerodb doctor`'s checks (DESIGN.md 7.1): one line each, pass, warn or fail, with a fix. */
import type { Config } from "../config.ts";
import type { HarnessContext, SelfCommand } from "../harness/index.ts";

/** How a check came out. */
export type CheckStatus = "pass" | "warn" | "fail";

/** One line of the report; `fix` is the command (or edit) that repairs a warn or fail. */
export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}

/** What every check may look at. */
export interface DoctorContext {
  config: Config;
  harness: HarnessContext;
  /** How to start this zerodb (for the MCP check). */
  self: SelfCommand;
  /** The shared flags that select the store, to pass on to `zerodb mcp`. */
  storeArgs: string[];
  /** The folder doctor runs in: where a harness's folder trust is judged. */
  cwd: string;
}

/** A check's result with its name filled in. */
export function check(name: string, status: CheckStatus, detail: string, fix?: string): Check {
  return fix === undefined ? { name, status, detail } : { name, status, detail, fix };
}

/** The message of anything thrown, for a detail line. */
export function why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
