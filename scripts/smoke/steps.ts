/**
 * The smoke steps in the order a new user meets them. A step throws
 * StepFailure (or any error) to fail; it returns to pass.
 */
import type { Sandbox } from "./sandbox.ts";
import { connect } from "./steps/connect.ts";
import { doctor } from "./steps/doctor.ts";
import { hook } from "./steps/hook.ts";
import { mcp } from "./steps/mcp.ts";
import { serve } from "./steps/serve.ts";
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
  // First after version: doctor must pass in a home nothing has touched yet (DESIGN.md section 10).
  { name: "doctor", run: doctor },
  { name: "store", run: store },
  { name: "serve", run: serve },
  { name: "mcp", run: mcp },
  { name: "hook", run: hook },
  { name: "connect", run: connect },
];
