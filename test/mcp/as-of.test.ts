/** Issue 33: as_of as an MCP argument of recall, sessions, search, fact_get and fact_list (in process, a real client). */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../src/mcp/server.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

describe("issue 33: as_of over MCP", () => {
  test("each read tool takes as_of; a bad one is a tool error naming it", async () => {
    using tmp = tempDir();
    const store = openSqliteStore(join(tmp.path, "data"));
    const memory = store.memory("local");
    const server = createMcpServer({ memory, cwd: tmp.path, spill: { root: join(tmp.path, "spill"), maxInlineBytes: 65536 }, log: () => {} });
    const client = new Client({ name: "test", version: "1" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    try {
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
      const [first] = (await memory.append({ session: "s", entries: [{ role: "note", content: "osprey nest" }] })).entries;
      const fact = await memory.factSet({ key: "k", value: "old" });
      await memory.append({ session: "s", entries: [{ role: "note", content: "osprey flew" }] });
      await memory.factSet({ key: "k", value: "new" });
      const at = fact.lsn;
      const recall = await call("recall", { session: "s", as_of: at });
      expect((recall.structuredContent as { turns: { lsn: number }[] }).turns.map((t) => t.lsn)).toEqual([first!.lsn]);
      expect((await call("sessions", { as_of: at })).structuredContent).toEqual({
        sessions: [{ name: "s", turns: 1, first_lsn: first!.lsn, last_lsn: first!.lsn, bytes: 11 }],
        next: null,
      });
      expect(((await call("search", { query: "osprey", as_of: String(at) })).structuredContent as { hits: { lsn: number }[] }).hits.map((h) => h.lsn)).toEqual([
        first!.lsn,
      ]);
      expect((await call("fact_get", { key: "k", as_of: at })).structuredContent).toEqual({ key: "k", value: "old", lsn: at });
      expect((await call("fact_list", { as_of: at })).structuredContent).toEqual({ facts: [{ key: "k", value: "old", lsn: at }], next: null });
      const bad = await call("fact_get", { key: "k", as_of: "soon" });
      expect(bad.isError).toBe(true);
      expect((bad.content[0] as { text: string }).text).toContain("as_of");
    } finally {
      await client.close();
      store.close();
    }
  });
});
