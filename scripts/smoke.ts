/**
 * `bun scripts/smoke.ts BINARY [--keep]`: runs a release binary through the
 * steps a new user takes, in an empty temporary home with neither Node.js nor
 * Bun on PATH (DESIGN.md section 10). Each step prints `ok <step>` or
 * `FAIL <step>: <why>`; the first failure stops the run with exit code 1.
 * `--keep` leaves the sandbox directory for a post-mortem.
 */
import { parseArgs } from "node:util";
import { StepFailure, createSandbox } from "./smoke/sandbox.ts";
import { STEPS } from "./smoke/steps.ts";

/** Runs every step against `binary`; resolves to the exit code. */
export async function smoke(binary: string, opts: { keep?: boolean; log?: (line: string) => void } = {}): Promise<number> {
  const log = opts.log ?? ((l: string) => console.log(l));
  let sandbox;
  try {
    sandbox = createSandbox(binary, opts);
  } catch (err) {
    log(`FAIL sandbox: ${why(err)}`);
    return 1;
  }
  await using sb = sandbox;
  log(`ok sandbox`);
  for (const step of STEPS) {
    try {
      await step.run(sb);
    } catch (err) {
      log(`FAIL ${step.name}: ${why(err)}`);
      if (opts.keep) log(`kept ${sb.root}`);
      return 1;
    }
    log(`ok ${step.name}`);
  }
  if (opts.keep) log(`kept ${sb.root}`);
  return 0;
}

/** A failure's one-line reason: a step's own words, or the unexpected error's message. */
function why(err: unknown): string {
  if (err instanceof StepFailure) return err.message;
  return `unexpected error: ${(err as Error)?.message ?? String(err)}`.split("\n")[0]!;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({ options: { keep: { type: "boolean" } }, allowPositionals: true });
  if (positionals.length !== 1) {
    console.error("usage: bun scripts/smoke.ts BINARY [--keep]");
    process.exit(2);
  }
  process.exit(await smoke(positionals[0]!, { keep: values.keep }));
}
