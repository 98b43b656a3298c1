/** Several phrasings through the built binary's MCP server (DESIGN.md 11, "Several phrasings"; issue 28), with the SDK's own client. */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../helpers.ts";
import { startMcp, textOf } from "./_client.ts";

interface Hits {
  hits: { lsn: number; matched: string[]; found_by?: number[] }[];
}

describe("zerodb mcp search with several phrasings (issue 28)", () => {
  test("the tool asks the model for 2 to 4 phrasings in the answer's words, and its schema takes queries", async () => {
    using tmp = tempDir();
    await using mcp = await startMcp({ home: tmp.path });
    const search = (await mcp.client.listTools()).tools.find((t) => t.name === "search")!;
    expect(search.description).toContain("2 to 4 other phrasings");
    expect(search.description).toContain("in the words the answer itself would likely use");
    expect(search.description).toContain("found_by");
    const queries = (search.inputSchema.properties as Record<string, { type?: string; items?: { type?: string }; maxItems?: number }>).queries;
    expect(queries).toMatchObject({ type: "array", items: { type: "string" }, maxItems: 8 });
    expect(search.inputSchema.required).toEqual(["query"]);
  });

  test("queries finds what the question's own words miss, and the text says which phrasing found each hit", async () => {
    using tmp = tempDir();
    await using mcp = await startMcp({ home: tmp.path });
    await mcp.call("remember", { content: "Error: ECONNRESET uploading part 3", session: "p" });
    await mcp.call("remember", { content: "upload client retries every part twice", session: "p" });
    await mcp.call("remember", { content: "lunch at noon", session: "p" });
    const question = "why did sending the archive break?";
    const r = await mcp.call("search", { query: question, queries: ["ECONNRESET", "upload part retry"] });
    expect(r.isError).toBeFalsy();
    const { hits } = r.structuredContent as unknown as Hits;
    expect(hits.map((h) => h.found_by)).toEqual([[1, 2], [2]]);
    expect(hits[0]!.matched).toEqual(["ECONNRESET"]);
    const text = textOf(r);
    expect(text).toContain(`2 hits for any of 3 phrasings, best first:`);
    expect(text).toContain(`Phrasings: [0] ${JSON.stringify(question)} (found none of these hits), [1] "ECONNRESET", [2] "upload part retry"`);
    expect(text).toContain(`#${hits[0]!.lsn} p note (found by [1], [2]; matched ECONNRESET;`);
    expect(text).toContain(`#${hits[1]!.lsn} p note (found by [2]; matched upload, part, retry;`);
  });

  test("a bad phrasing is a tool error naming queries.N", async () => {
    using tmp = tempDir();
    await using mcp = await startMcp({ home: tmp.path });
    const r = await mcp.call("search", { query: "upload", queries: ["retry", "?!"] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("queries.1");
  });
});
