/** SessionStart's context and fact key, in-process (DESIGN.md 7.2). */
import { describe, expect, test } from "bun:test";
import { projectFactKey, startContext } from "../../src/capture/start-context.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

describe("startContext", () => {
  test("shows how a long previous session ended: its last prompts and replies, not its tool output", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    const prev = "proj-12345678/aaaaaaaaaaaaaaaa";
    await startContext(m, { project: "proj-12345678", session: prev, harnessSession: "a" });
    for (let b = 0; b < 6; b++) {
      await m.append({
        session: prev,
        entries: Array.from({ length: 250 }, (_, i) => {
          const k = b * 250 + i;
          return k % 3 === 2 ? { role: "tool" as const, content: `tool output ${k}` } : { role: k % 3 === 0 ? ("user" as const) : ("assistant" as const), content: `message ${k}` };
        }),
      });
    }
    const text = await startContext(m, { project: "proj-12345678", session: "proj-12345678/bbbbbbbbbbbbbbbb", harnessSession: "b" });
    const ending = text.slice(text.indexOf("## How the previous session ended"));
    const last: number[] = [];
    for (let k = 1499; last.length < 10; k--) if (k % 3 !== 2) last.unshift(k);
    expect(ending.split("\n").slice(1)).toEqual(last.map((k) => `${k % 3 === 0 ? "user" : "assistant"}: message ${k}`));
    expect(text).not.toContain("tool output");
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(8192);
    // The fact now names the new session; a second SessionStart of it writes no new fact.
    const before = (await m.factGet({ key: "project/proj-12345678/latest-capture" })).lsn;
    await startContext(m, { project: "proj-12345678", session: "proj-12345678/bbbbbbbbbbbbbbbb", harnessSession: "b", source: "resume" });
    expect((await m.factGet({ key: "project/proj-12345678/latest-capture" })).lsn).toBe(before);
    store.close();
  });

  test("stays within 8 KiB however much the project holds, and is empty when it holds nothing", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    expect(await startContext(m, { project: "p-00000000", session: "p-00000000/0000000000000000", harnessSession: "x" })).toBe("");
    for (let i = 0; i < 60; i++) await m.factSet({ key: `project/p-00000000/fact${i}`, value: "v".repeat(500) });
    await m.append({ session: "p-00000000", entries: Array.from({ length: 20 }, (_, i) => ({ role: "note" as const, content: `note ${i} ${"n".repeat(1000)}` })) });
    const text = await startContext(m, { project: "p-00000000", session: "p-00000000/1111111111111111", harnessSession: "y" });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(8192);
    expect(text).toStartWith("# zerodb memory of this project");
    expect(text).toContain("- project/p-00000000/fact0 = vvv");
    store.close();
  });
});

describe("projectFactKey", () => {
  test("keeps the key within 255 bytes, cutting the base name on a character boundary and keeping the path hash", () => {
    expect(projectFactKey("app-1a2b3c4d", "latest-capture")).toBe("project/app-1a2b3c4d/latest-capture");
    const long = `${"日".repeat(76)}-1a2b3c4d`;
    const key = projectFactKey(long, "latest-capture");
    expect(Buffer.byteLength(key)).toBeLessThanOrEqual(255);
    expect(key).toBe(`project/${"日".repeat(74)}-1a2b3c4d/latest-capture`);
    expect(key.isWellFormed()).toBe(true);
  });
});
