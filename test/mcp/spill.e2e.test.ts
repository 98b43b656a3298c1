/** Spilling through the built binary, configured by config.json (DESIGN.md section 9). */
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { SPILL_META_KEY } from "../../src/mcp/result.ts";
import type { SpillRecord } from "../../src/spill/spill.ts";
import { tempDir } from "../helpers.ts";
import { startMcp, textOf, writeConfig } from "./_client.ts";

describe("zerodb mcp spill", () => {
  test("max_inline_bytes and spill_root from the config; Claude Code is told to use Read", async () => {
    using tmp = tempDir();
    const root = join(tmp.path, "spills");
    writeConfig(tmp.path, { max_inline_bytes: 2048, spill_root: root });
    await using mcp = await startMcp({ home: tmp.path, clientName: "claude-code" });
    const content = "é".repeat(3000);
    await mcp.call("remember", { content, session: "big" });
    const r = await mcp.call("recall", { session: "big" });
    const spill = r._meta?.[SPILL_META_KEY] as SpillRecord;
    expect(Buffer.byteLength(textOf(r))).toBeLessThanOrEqual(2048);
    expect(textOf(r)).toContain("Open that file with the Read tool");
    expect(spill.path.startsWith(`${root}/session-`)).toBe(true);
    expect(readFileSync(spill.path, "utf8")).toContain(content);
    expect(statSync(spill.path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(spill.path)).mode & 0o777).toBe(0o700);
    expect(spill.path).not.toContain("local");
    // Below the budget nothing is spilled.
    const small = await mcp.call("stats");
    expect(small._meta?.[SPILL_META_KEY]).toBeUndefined();
    expect(small.structuredContent).toBeDefined();
  });
});
