/**
 * opencode's capture plugin, `~/.config/opencode/plugin/zerodb.js`: written by
 * connect --capture beside the user's own plugins, deleted by disconnect so
 * the config folder is as it was; a zerodb.js that is not zerodb's is left
 * alone; doctor's harness hooks check reads it back.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runJson, runZ, tempDir, ZERODB } from "../helpers.ts";
import { listFiles } from "./_fixtures.ts";

const CONFIG = `{
  // the user's settings, comments kept
  "theme": "opencode",
  "mcp": { "fs": { "type": "local", "command": ["fs-server"], "enabled": true } }
}
`;
const OWN_PLUGIN = `export const Mine = async () => ({});\n`;

function opencodeHome(root: string, withPluginDir: boolean): string {
  const dir = join(root, ".config", "opencode");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "opencode.jsonc"), CONFIG);
  if (withPluginDir) {
    mkdirSync(join(dir, "plugin"));
    writeFileSync(join(dir, "plugin", "mine.js"), OWN_PLUGIN);
  }
  return dir;
}

describe("opencode capture plugin", () => {
  test("connect --capture writes the plugin beside the user's; again changes nothing; disconnect leaves the folder as it was", async () => {
    using home = tempDir();
    const dir = opencodeHome(home.path, true);
    const before = listFiles(dir);
    const r = await runJson(["connect", "--capture", "--harness", "opencode"], { home: home.path });
    expect(r.results.map((o: any) => [o.target, o.what, o.status])).toEqual([
      ["opencode", "mcp", "added"],
      ["opencode", "hooks", "added"],
      ["zerodb", "config", "added"],
    ]);
    const plugin = readFileSync(join(dir, "plugin", "zerodb.js"), "utf8");
    expect(plugin).toStartWith("// zerodb capture plugin");
    expect(plugin).toContain(`const COMMAND = ${JSON.stringify([ZERODB, "--home", join(home.path, "zerodb"), "hook", "opencode"])};`);
    expect(plugin).toContain('event?.type !== "session.idle"');
    expect(readFileSync(join(dir, "plugin", "mine.js"), "utf8")).toBe(OWN_PLUGIN);
    const again = await runJson(["connect", "--capture", "--harness", "opencode"], { home: home.path });
    expect(again.results.map((o: any) => o.status)).toEqual(["unchanged", "unchanged", "unchanged"]);
    const doctor = JSON.parse((await runZ(["doctor", "--json"], { home: home.path })).stdout);
    const hooks = doctor.checks.find((c: any) => c.name === "harness hooks");
    expect([hooks.status, hooks.detail]).toEqual(["pass", `opencode's plugin ${join(dir, "plugin", "zerodb.js")} runs ${ZERODB}`]);
    // Claude Code is not installed: its hooks check passes, capture running through opencode's plugin.
    expect(doctor.checks.find((c: any) => c.name === "hooks")).toEqual({
      name: "hooks",
      status: "pass",
      detail: "Claude Code is not installed; capture runs through the opencode hook(s)",
    });
    const d = await runJson(["disconnect", "--harness", "opencode"], { home: home.path });
    expect(d.results.map((o: any) => [o.what, o.status])).toEqual([
      ["mcp", "removed"],
      ["hooks", "removed"],
    ]);
    expect(readFileSync(join(dir, "opencode.jsonc"), "utf8")).toBe(CONFIG);
    expect(listFiles(dir).filter((f) => !f.endsWith(".zerodb-backup"))).toEqual(before);
    expect(listFiles(dir)).not.toContain(join("plugin", "zerodb.js.zerodb-backup"));
  });

  test("a plugin folder connect made is gone after disconnect; a moved binary updates the plugin", async () => {
    using home = tempDir();
    const dir = opencodeHome(home.path, false);
    await runJson(["connect", "--capture", "--harness", "opencode"], { home: home.path });
    const path = join(dir, "plugin", "zerodb.js");
    writeFileSync(path, readFileSync(path, "utf8").replace(JSON.stringify(ZERODB), JSON.stringify("/old/place/zerodb")));
    const doctor = JSON.parse((await runZ(["doctor", "--json"], { home: home.path })).stdout);
    expect(doctor.checks.find((c: any) => c.name === "harness hooks")).toMatchObject({
      status: "warn",
      fix: "zerodb connect --capture --harness opencode",
    });
    const r = await runJson(["connect", "--harness", "opencode"], { home: home.path });
    expect(r.results.map((o: any) => [o.what, o.status])).toEqual([
      ["mcp", "unchanged"],
      ["hooks", "updated"],
    ]);
    expect(readFileSync(path, "utf8")).toContain(JSON.stringify(ZERODB));
    await runJson(["disconnect", "--harness", "opencode"], { home: home.path });
    expect(listFiles(dir).filter((f) => !f.endsWith(".zerodb-backup"))).toEqual(["opencode.jsonc"]);
  });

  test("a zerodb.js that is not zerodb's is left alone by connect and disconnect, and doctor says capture sync", async () => {
    using home = tempDir();
    const dir = opencodeHome(home.path, true);
    const foreign = "export const Other = async () => ({});\n";
    writeFileSync(join(dir, "plugin", "zerodb.js"), foreign);
    const r = await runJson(["connect", "--capture", "--harness", "opencode"], { home: home.path });
    expect(r.results.find((o: any) => o.what === "hooks")).toMatchObject({ status: "skipped", detail: expect.stringContaining("zerodb capture sync") });
    const doctor = JSON.parse((await runZ(["doctor", "--json"], { home: home.path })).stdout);
    expect(doctor.checks.find((c: any) => c.name === "harness hooks")).toMatchObject({ status: "warn", fix: "zerodb capture sync" });
    const d = await runJson(["disconnect", "--harness", "opencode"], { home: home.path });
    expect(d.results.find((o: any) => o.what === "hooks")).toMatchObject({ status: "skipped" });
    expect(readFileSync(join(dir, "plugin", "zerodb.js"), "utf8")).toBe(foreign);
  });
});
