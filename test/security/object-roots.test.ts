/**
 * Issue 14, item 1: the MCP object tools never treat the whole disk, the home
 * directory or a system directory as their root (Claude Desktop starts MCP
 * servers in `/`), never write into hidden files or directories, and a FIFO
 * cannot stall the server. Through the built binary, as a harness starts it.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { implicitRootRefusal } from "../../src/mcp/roots.ts";
import { startMcp, writeConfig } from "../mcp/_client.ts";
import { tempDir } from "../helpers.ts";

function errorOf(r: CallToolResult): string {
  expect(r.isError).toBe(true);
  return (r.content[0] as { text: string }).text;
}

describe("object tool roots (issue 14)", () => {
  test("the whole disk, the home directory, what holds it and system directories are never implicit roots", () => {
    using home = tempDir();
    expect(implicitRootRefusal("/", home.path)).toBe("the whole disk");
    expect(implicitRootRefusal(home.path, home.path)).toBe("the home directory itself");
    expect(implicitRootRefusal(join(home.path, ".."), home.path)).toBe("a directory that holds the home directory");
    for (const d of ["/etc", "/usr/lib", "/var/log", "/proc/self", "/tmp", "/home"]) expect(implicitRootRefusal(d, home.path), d).toBeDefined();
    mkdirSync(join(home.path, "src", "app"), { recursive: true });
    expect(implicitRootRefusal(join(home.path, "src", "app"), home.path)).toBeUndefined();
  });

  test("a server started in / reads nothing (no ~/.ssh key as an 'image') and writes nothing, and says how to allow a directory", async () => {
    using home = tempDir();
    mkdirSync(join(home.path, ".ssh"));
    writeFileSync(join(home.path, ".ssh", "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n");
    await using mcp = await startMcp({ home: home.path, cwd: "/" });
    for (const path of [join(home.path, ".ssh", "id_ed25519"), "etc/hostname", "/etc/hostname"]) {
      const text = errorOf(await mcp.call("object_put", { path, type: "image/png" }));
      expect(text, path).toContain("no allowed root");
      expect(text).toContain("object_roots");
    }
    const put = await mcp.call("remember", { content: "x" });
    expect(put.isError).toBeUndefined();
    const target = join(home.path, "evil.desktop");
    const stored = await mcp.call("object_put", { path: "/etc/hostname" });
    expect(stored.isError).toBe(true);
    // object_get with a path anywhere: refused, nothing created.
    const obj = `sha256:${"0".repeat(64)}`;
    const got = await mcp.call("object_get", { object: obj, path: target });
    expect(got.isError).toBe(true);
    expect(existsSync(target)).toBe(false);
  });

  test("a server started in the home directory uses only the configured object_roots", async () => {
    using home = tempDir();
    const allowed = join(home.path, "shared");
    mkdirSync(allowed);
    writeFileSync(join(allowed, "note.txt"), "allowed bytes");
    writeFileSync(join(home.path, ".bashrc"), "export SECRET=1");
    writeConfig(home.path, { object_roots: [allowed] });
    await using mcp = await startMcp({ home: home.path, cwd: home.path });
    expect(errorOf(await mcp.call("object_put", { path: join(home.path, ".bashrc") }))).toContain("outside the allowed roots");
    const ok = await mcp.call("object_put", { path: join(allowed, "note.txt") });
    expect(ok.isError).toBeUndefined();
    const object = (ok.structuredContent as { object: string }).object;
    const out = join(allowed, "copy.txt");
    expect((await mcp.call("object_get", { object, path: out })).isError).toBeUndefined();
    expect(existsSync(out)).toBe(true);
  });

  test("object_get never writes a hidden file or into a hidden directory, even inside a root", async () => {
    using home = tempDir();
    const work = join(home.path, "work");
    for (const d of [".git/hooks", ".config/autostart", "sub/.hidden"]) mkdirSync(join(work, d), { recursive: true });
    writeFileSync(join(work, "file.txt"), "bytes");
    await using mcp = await startMcp({ home: home.path, cwd: work });
    const object = ((await mcp.call("object_put", { path: "file.txt" })).structuredContent as { object: string }).object;
    for (const path of [".git/hooks/pre-commit", ".config/autostart/evil.desktop", ".env", "sub/.hidden/x", "sub/.profile"]) {
      expect(errorOf(await mcp.call("object_get", { object, path })), path).toContain("hidden");
      expect(existsSync(join(work, path)), path).toBe(false);
    }
    expect((await mcp.call("object_get", { object, path: "sub/plain.txt" })).isError).toBeUndefined();
  });

  test("object_put of a FIFO is refused at once and the server keeps answering", async () => {
    using home = tempDir();
    const work = join(home.path, "work");
    mkdirSync(work);
    const mk = Bun.spawnSync(["mkfifo", join(work, "pipe")]);
    if (mk.exitCode !== 0) return console.warn("skipping: mkfifo is not available");
    await using mcp = await startMcp({ home: home.path, cwd: work });
    expect(errorOf(await mcp.call("object_put", { path: "pipe" }))).toContain("not a regular file");
    expect((await mcp.call("stats")).isError).toBeUndefined();
  });
});
