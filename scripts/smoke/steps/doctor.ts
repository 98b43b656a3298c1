/**
 * Step `doctor`: `zerodb doctor --json` in the empty home passes (DESIGN.md
 * 7.1 and section 10: CI's smoke). It opens the store, runs a round trip in
 * a scratch store and starts its own `zerodb mcp`, so it also proves the
 * binary can run itself with no node or bun on PATH.
 */
import { type Sandbox, StepFailure, expect } from "../sandbox.ts";

interface Check {
  name: string;
  status: string;
  detail?: string;
  fix?: string;
}

/** Runs doctor and requires no failed check. */
export async function doctor(sb: Sandbox): Promise<void> {
  const r = await sb.run(["doctor", "--json"]);
  let report: { ok?: boolean; checks?: Check[] };
  try {
    report = JSON.parse(r.stdout);
  } catch {
    throw new StepFailure(`doctor --json printed no JSON document (exit ${r.code}): ${r.stderr.trim().split("\n")[0] ?? ""}`);
  }
  const failed = (report.checks ?? []).filter((c) => c.status === "fail");
  expect(failed.length === 0, failed.map((c) => `${c.name}: ${c.detail ?? ""}${c.fix ? ` (fix: ${c.fix})` : ""}`).join("; "));
  expect(r.code === 0 && report.ok === true, `doctor exited ${r.code} with ok=${report.ok}`);
  const mcp = report.checks?.find((c) => c.name === "mcp");
  expect(mcp?.status === "pass", `doctor's own zerodb mcp check did not pass: ${JSON.stringify(mcp)}`);
}
