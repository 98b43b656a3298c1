/** Step `version`: the binary starts and names its version and build commit (DESIGN.md section 10). */
import { type Sandbox, describe, expect, runJson } from "../sandbox.ts";

/** Checks `zerodb version` (human) and `zerodb version --json`. */
export async function version(sb: Sandbox): Promise<void> {
  const human = await sb.run(["version"]);
  expect(human.code === 0, describe(["version"], human));
  expect(/^zerodb \d+\.\d+\.\d+\S* \(\S+\)\n$/.test(human.stdout), `unexpected output ${JSON.stringify(human.stdout)}`);
  const v = await runJson<{ version?: unknown; commit?: unknown }>(sb, ["version"]);
  expect(typeof v.version === "string" && /^\d+\.\d+\.\d+/.test(v.version), `version --json has no version: ${JSON.stringify(v)}`);
  // "source" would mean the binary was not built by scripts/build.ts (no commit embedded).
  expect(typeof v.commit === "string" && v.commit !== "" && v.commit !== "source", `version --json has no build commit: ${JSON.stringify(v)}`);
}
