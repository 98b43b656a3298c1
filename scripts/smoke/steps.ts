/**
 * The smoke steps in the order a new user meets them. A step throws
 * StepFailure (or any error) to fail; it returns to pass.
 */
import type { Sandbox } from "./sandbox.ts";
import { mcp } from "./steps/mcp.ts";
import { store } from "./steps/store.ts";
import { version } from "./steps/version.ts";

/** One named smoke step. */
export interface Step {
  name: string;
  run(sb: Sandbox): Promise<void>;
}

/** Every step, in order. */
export const STEPS: readonly Step[] = [
  { name: "version", run: version },
  { name: "store", run: store },
  { name: "mcp", run: mcp },
];
