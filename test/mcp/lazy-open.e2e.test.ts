/**
 * `zerodb mcp` opens its store on the first tool call, not before it answers
 * `initialize` (DESIGN.md section 10: start-up is a feature). A store that
 * cannot be opened is then each call's typed tool error and one line on
 * stderr, never a silent exit; a path another user could plant is still
 * refused at start (test/security/shared-dirs-doors.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { startMcp, textOf } from "./_client.ts";

describe("zerodb mcp opens its store on the first tool call", () => {
  test("initialize and tools/list are answered; each tool call is a typed error naming the store; nothing is written", async () => {
    using home = tempDir();
    const data = join(home.path, "data");
    mkdirSync(data, { mode: 0o700 });
    chmodSync(data, 0o700);
    const file = join(data, "zerodb.sqlite");
    writeFileSync(file, "not a database, just text\n", { mode: 0o600 });
    await using mcp = await startMcp({ home: home.path, args: ["--data-dir", data] });
    expect(mcp.client.getServerVersion()?.name).toBe("zerodb");
    expect((await mcp.client.listTools()).tools.length).toBe(12);
    for (const [name, args] of [
      ["stats", {}],
      ["remember", { content: "kept nowhere" }],
    ] as const) {
      const r = await mcp.call(name, args);
      expect(r.isError).toBe(true);
      expect(textOf(r)).toBe(`corrupt: the store file ${file} is damaged or not a zerodb store: run \`zerodb doctor\``);
      expect(r.structuredContent).toMatchObject({ error: { code: "corrupt" } });
    }
    expect(mcp.stderr()).toContain(`zerodb mcp: cannot open the memory: the store file ${file} is damaged`);
    expect(readFileSync(file, "utf8")).toBe("not a database, just text\n");
  });

  test("a store that opens serves the first call as usual", async () => {
    using home = tempDir();
    await using mcp = await startMcp({ home: home.path });
    const r = await mcp.call("remember", { content: "the first call opens the store" });
    expect(r.isError).toBeFalsy();
    expect(textOf(await mcp.call("recall"))).toContain("the first call opens the store");
  });
});
