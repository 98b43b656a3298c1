/** Codex's capture hook: `notify` in config.toml, added and removed as one line; connect --capture then disconnect gives back the bytes. */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planNotify, planRemoveNotify } from "../../src/harness/codex-notify.ts";
import { readToml } from "../../src/harness/toml.ts";
import { runJson, tempDir, ZERODB } from "../helpers.ts";

const ARGV = ["/opt/zerodb", "--home", "/h/zerodb", "hook", "codex"];
const USER_CONFIG = `# my codex config
model = "o3"  # the model

# servers
[mcp_servers.other]
command = "other"
`;

const textOf = (p: ReturnType<typeof planNotify>): string => {
  if (!("text" in p)) throw new Error(`expected a change, got ${p.change}`);
  return p.text;
};

describe("Codex notify", () => {
  test("added as a top-level line before the first table and its comments, removed byte for byte", () => {
    const out = textOf(planNotify(USER_CONFIG, ARGV));
    expect(out).toBe(USER_CONFIG.replace("# servers\n", `notify = ${JSON.stringify(ARGV).replaceAll(",", ", ")}\n# servers\n`));
    expect(readToml(out).notify).toEqual(ARGV);
    expect(planNotify(out, ARGV)).toEqual({ change: "unchanged" });
    expect(textOf(planRemoveNotify(out))).toBe(USER_CONFIG);
    // A moved binary: the line is updated in place.
    const moved = textOf(planNotify(out, ["/new/zerodb", "--home", "/h/zerodb", "hook", "codex"]));
    expect(readToml(moved).notify).toEqual(["/new/zerodb", "--home", "/h/zerodb", "hook", "codex"]);
    expect(textOf(planRemoveNotify(moved))).toBe(USER_CONFIG);
  });

  test("files without tables, without a final newline, empty", () => {
    for (const text of ['model = "o3"\n', 'model = "o3"', ""]) {
      const out = textOf(planNotify(text, ARGV));
      expect(readToml(out).notify).toEqual(ARGV);
      expect(textOf(planRemoveNotify(out))).toBe(text);
    }
  });

  test("a notify that is not zerodb's is left alone, on connect and on disconnect", () => {
    const theirs = `notify = ["notify-send", "codex"]\n${USER_CONFIG}`;
    expect(planNotify(theirs, ARGV).change).toBe("foreign");
    expect(planRemoveNotify(theirs).change).toBe("foreign");
    expect(planRemoveNotify(USER_CONFIG)).toEqual({ change: "absent" });
  });

  test("zerodb connect --capture --harness codex writes the MCP table and notify; disconnect restores the file's bytes", async () => {
    using home = tempDir();
    const codexHome = join(home.path, ".codex");
    mkdirSync(codexHome);
    const config = join(codexHome, "config.toml");
    writeFileSync(config, USER_CONFIG);
    const r = await runJson(["connect", "--capture", "--harness", "codex"], { home: home.path });
    expect(r.results.map((o: any) => [o.target, o.what, o.status])).toEqual([
      ["codex", "mcp", "added"],
      ["codex", "hooks", "added"],
      ["zerodb", "config", "added"],
    ]);
    const written = readToml(readFileSync(config, "utf8"));
    expect(written.notify).toEqual([ZERODB, "--home", join(home.path, "zerodb"), "hook", "codex"]);
    expect((await runJson(["connect", "--capture", "--harness", "codex"], { home: home.path })).results.map((o: any) => o.status)).toEqual([
      "unchanged",
      "unchanged",
      "unchanged",
    ]);
    const d = await runJson(["disconnect", "--harness", "codex"], { home: home.path });
    expect(d.results.map((o: any) => [o.what, o.status])).toEqual([
      ["hooks", "removed"],
      ["mcp", "removed"],
    ]);
    expect(readFileSync(config, "utf8")).toBe(USER_CONFIG);
  });

  test("a config.toml connect --capture created is gone after disconnect", async () => {
    using home = tempDir();
    mkdirSync(join(home.path, ".codex"));
    await runJson(["connect", "--capture", "--harness", "codex"], { home: home.path });
    expect(readToml(readFileSync(join(home.path, ".codex", "config.toml"), "utf8")).notify).toBeDefined();
    await runJson(["disconnect", "--harness", "codex"], { home: home.path });
    expect(existsSync(join(home.path, ".codex", "config.toml"))).toBe(false);
  });
});
