/** Search through the built binary's MCP server (DESIGN.md 6.2, 11): asked in the model's own words, within the spill budget. */
import { describe, expect, test } from "bun:test";
import { SPILL_META_KEY } from "../../src/mcp/result.ts";
import { tempDir } from "../helpers.ts";
import { startMcp, textOf, writeConfig } from "./_client.ts";

describe("zerodb mcp search", () => {
  test("the tool tells the model it may ask in its own words, and a question finds the turn with the words it matched", async () => {
    using tmp = tempDir();
    await using mcp = await startMcp({ home: tmp.path });
    const tools = await mcp.client.listTools();
    const search = tools.tools.find((t) => t.name === "search")!;
    expect(search.description).toContain("Ask in your own words");
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["all_words", "include_noise"]));
    await mcp.call("remember", { content: "We turned off the retry in the upload client because it duplicated uploads", session: "p" });
    await mcp.call("remember", { content: "lunch at noon", session: "p" });
    const r = await mcp.call("search", { query: "why did we turn off the upload retry?" });
    expect(r.structuredContent).toMatchObject({ hits: [{ session: "p", role: "note", matched: ["turn", "off", "upload", "retry"] }] });
    expect(textOf(r)).toContain("matched turn, off, upload, retry");
  });

  test("hits that share only common words with the question say so; hits matching a word do not", async () => {
    using tmp = tempDir();
    await using mcp = await startMcp({ home: tmp.path });
    await mcp.call("remember", { content: "The DST shift made the nightly cron fire twice", session: "p" });
    const r = await mcp.call("search", { query: "what broke when the clock changed" });
    expect((r.structuredContent as { hits: { matched: string[] }[] }).hits.map((h) => h.matched)).toEqual([["the"]]);
    expect(textOf(r)).toContain("No hit holds broke, clock or changed: these share only common words with the query.");
    expect(textOf(await mcp.call("search", { query: "what fired twice" }))).not.toContain("No hit holds");
  });

  test("a search whose hits pass max_inline_bytes is spilled, its preview within the budget", async () => {
    using tmp = tempDir();
    writeConfig(tmp.path, { max_inline_bytes: 2048 });
    await using mcp = await startMcp({ home: tmp.path, clientName: "claude-code" });
    for (let i = 0; i < 30; i++) await mcp.call("remember", { content: `note ${i}: the quokka deploy ${"detail ".repeat(40)}`, session: "p" });
    const r = await mcp.call("search", { query: "quokka deploy", limit: 30 });
    expect(Buffer.byteLength(textOf(r))).toBeLessThanOrEqual(2048);
    expect(r._meta?.[SPILL_META_KEY]).toBeDefined();
  });
});
