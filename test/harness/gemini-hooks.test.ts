/** Gemini CLI's capture hooks in ~/.gemini/settings.json: added beside the user's hooks and MCP servers, removed byte for byte. */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runJson, tempDir, ZERODB } from "../helpers.ts";

const SETTINGS = `{
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "hooks": {
    "AfterAgent": [
      { "matcher": "*", "hooks": [{ "type": "command", "command": "notify-send done", "timeout": 5000 }] }
    ]
  },
  "mcpServers": { "fs": { "command": "fs-server", "args": [] } }
}
`;

describe("Gemini CLI hooks", () => {
  test("connect --capture --harness gemini adds zerodb's handlers (timeouts in ms) beside the user's; disconnect restores the bytes", async () => {
    using home = tempDir();
    mkdirSync(join(home.path, ".gemini"));
    const path = join(home.path, ".gemini", "settings.json");
    writeFileSync(path, SETTINGS);
    const r = await runJson(["connect", "--capture", "--harness", "gemini"], { home: home.path });
    expect(r.results.map((o: any) => [o.target, o.what, o.status])).toEqual([
      ["gemini", "mcp", "added"],
      ["gemini", "hooks", "added"],
      ["zerodb", "config", "added"],
    ]);
    const hooks = JSON.parse(readFileSync(path, "utf8")).hooks;
    const command = `ZERODB_HOME=${join(home.path, "zerodb")} ${ZERODB} hook gemini`;
    expect(hooks).toEqual({
      AfterAgent: [
        { matcher: "*", hooks: [{ type: "command", command: "notify-send done", timeout: 5000 }] },
        { hooks: [{ type: "command", command, timeout: 30000 }] },
      ],
      PreCompress: [{ hooks: [{ type: "command", command, timeout: 30000 }] }],
      SessionEnd: [{ hooks: [{ type: "command", command, timeout: 10000 }] }],
    });
    expect((await runJson(["connect", "--capture", "--harness", "gemini"], { home: home.path })).results.map((o: any) => o.status)).toEqual([
      "unchanged",
      "unchanged",
      "unchanged",
    ]);
    const d = await runJson(["disconnect", "--harness", "gemini"], { home: home.path });
    expect(d.results.map((o: any) => [o.what, o.status])).toEqual([
      ["hooks", "removed"],
      ["mcp", "removed"],
    ]);
    expect(readFileSync(path, "utf8")).toBe(SETTINGS);
  });

  test("a settings.json connect --capture created is gone after disconnect", async () => {
    using home = tempDir();
    mkdirSync(join(home.path, ".gemini"));
    await runJson(["connect", "--capture", "--harness", "gemini"], { home: home.path });
    expect(existsSync(join(home.path, ".gemini", "settings.json"))).toBe(true);
    await runJson(["disconnect", "--harness", "gemini"], { home: home.path });
    expect(existsSync(join(home.path, ".gemini", "settings.json"))).toBe(false);
  });
});
