/** Step `store`: a write, a search and a read through the CLI, in the empty home. */
import { type Sandbox, expect, runJson } from "../sandbox.ts";

/** Appends a note, finds it by a rare word, reads it back. */
export async function store(sb: Sandbox): Promise<void> {
  const word = `smokeword${Math.random().toString(36).slice(2, 8)}`;
  const appended = await runJson<{ entries?: { lsn: number }[] }>(sb, ["append", "--session", "smoke/cli", `the cli ${word} note`]);
  const lsn = appended.entries?.[0]?.lsn;
  expect(typeof lsn === "number" && lsn > 0, `append returned no LSN: ${JSON.stringify(appended)}`);
  const found = await runJson<{ hits?: { lsn: number; session: string }[] }>(sb, ["search", word]);
  expect(
    found.hits?.some((h) => h.lsn === lsn && h.session === "smoke/cli"),
    `search ${word} did not find LSN ${lsn}: ${JSON.stringify(found)}`,
  );
  const read = await runJson<{ turns?: { lsn: number; content: string }[] }>(sb, ["read", "--session", "smoke/cli"]);
  expect(
    read.turns?.some((t) => t.lsn === lsn && t.content.includes(word)),
    `read did not return LSN ${lsn}: ${JSON.stringify(read).slice(0, 200)}`,
  );
}
