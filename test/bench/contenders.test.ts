/**
 * The peers bench drives two real MCP servers through the SDK's stdio client;
 * these check that each contender's remember, search and (reference) seed do
 * what the figures assume, so a ratio is never computed from failed calls.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { connect, referenceContender, zerodbContender } from "../../scripts/bench/_contenders.ts";
import { diskBytes, peakRssMiB } from "../../scripts/bench/_lib.ts";
import { WORDS, entryText, plantedWord } from "../../scripts/bench/_workload.ts";
import { ZERODB, tempDir } from "../helpers.ts";

describe("bench contenders", () => {
  test("reference server: seeded memories live in its own file format and survive its next write", async () => {
    using dir = tempDir();
    const ref = referenceContender(dir.path);
    const conn = await connect(ref);
    try {
      const seeded = await ref.seed!(0, 50, (i) => entryText(i, 50));
      expect(seeded).toEqual(Array.from({ length: 50 }, (_, i) => `memory-${i}`));
      expect(await ref.remember(conn.client, 50, entryText(50, 50))).toBe("memory-50");
      expect(await ref.search(conn.client, plantedWord(0))).toEqual(["memory-0"]);
      expect(await ref.search(conn.client, plantedWord(50))).toEqual(["memory-50"]);
      // Its search has no limit: a word in most memories returns most of them, seeded ones included.
      const common = await ref.search(conn.client, WORDS[0]!);
      expect(common.length).toBeGreaterThan(25);
      expect(common).toContain("memory-1");
      expect(peakRssMiB(conn.pid)).toBeGreaterThan(0);
    } finally {
      await conn.close();
    }
    expect(diskBytes(ref.dataDir)).toBeGreaterThan(0);
  });

  test("zerodb mcp: remember answers the lsn that search then ranks first for a planted word", async () => {
    using dir = tempDir();
    const z = zerodbContender(ZERODB, dir.path);
    expect(z.seed).toBeUndefined();
    const conn = await connect(z);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 60; i++) ids.push(await z.remember(conn.client, i, entryText(i, 50)));
      expect(new Set(ids).size).toBe(60);
      expect(await z.search(conn.client, plantedWord(50))).toEqual([ids[50]!]);
      expect(await z.search(conn.client, WORDS[0]!)).toHaveLength(10);
    } finally {
      await conn.close();
    }
    expect(diskBytes(join(z.dataDir, "data"))).toBeGreaterThan(0);
  });

  test("a failed tool call stops the bench instead of counting as a fast call", async () => {
    using dir = tempDir();
    const z = zerodbContender(ZERODB, dir.path);
    const conn = await connect(z);
    try {
      await expect(z.search(conn.client, "   ")).rejects.toThrow(/search failed/);
    } finally {
      await conn.close();
    }
  });
});
