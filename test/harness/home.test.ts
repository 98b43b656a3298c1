/** Home resolution (DESIGN.md section 2) and config.json validation, in-process and through the binary. */
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { readConfigFile, resolveConfig, resolveHome } from "../../src/config.ts";
import { ZeroDbError } from "../../src/errors.ts";
import { runZ, tempDir } from "../helpers.ts";

describe("resolveHome", () => {
  test("ZERODB_HOME wins when set and not empty", () => {
    expect(resolveHome({ ZERODB_HOME: "/z", XDG_DATA_HOME: "/x", HOME: "/h" }, "linux")).toBe("/z");
    expect(resolveHome({ ZERODB_HOME: "/z", HOME: "/h" }, "darwin")).toBe("/z");
    expect(resolveHome({ ZERODB_HOME: "", XDG_DATA_HOME: "/x", HOME: "/h" }, "linux")).toBe("/x/zerodb");
  });

  test("Linux: XDG_DATA_HOME set, set but empty, unset", () => {
    expect(resolveHome({ XDG_DATA_HOME: "/x", HOME: "/h" }, "linux")).toBe("/x/zerodb");
    expect(resolveHome({ XDG_DATA_HOME: "", HOME: "/h" }, "linux")).toBe("/h/.local/share/zerodb");
    expect(resolveHome({ HOME: "/h" }, "linux")).toBe("/h/.local/share/zerodb");
  });

  test("macOS and Windows ignore XDG_DATA_HOME", () => {
    expect(resolveHome({ XDG_DATA_HOME: "/x", HOME: "/Users/u" }, "darwin")).toBe("/Users/u/Library/Application Support/zerodb");
    expect(resolveHome({ LOCALAPPDATA: "/w/Local", USERPROFILE: "/w" }, "win32")).toBe(join("/w/Local", "zerodb"));
  });

  test("a relative ZERODB_HOME resolves against the working directory", () => {
    expect(resolveHome({ ZERODB_HOME: "rel/home" }, "linux")).toBe(join(process.cwd(), "rel/home"));
  });
});

describe("config.json", () => {
  test("every key of DESIGN.md is read", () => {
    using dir = tempDir();
    const file = join(dir.path, "config.json");
    writeFileSync(
      file,
      JSON.stringify({
        data_dir: "/d",
        url: "http://127.0.0.1:7077",
        tenant: "team",
        token_file: "/t",
        object_roots: ["/r"],
        max_inline_bytes: 2048,
        capture: { enabled: true, redact: false },
      }),
    );
    const c = resolveConfig({ config: file }, { env: {}, cwd: "/cwd" });
    expect([c.dataDir, c.url, c.tenant, c.tokenFile, c.objectRoots, c.maxInlineBytes, c.captureEnabled, c.redact]).toEqual([
      "/d",
      "http://127.0.0.1:7077",
      "team",
      "/t",
      ["/r"],
      2048,
      true,
      false,
    ]);
  });

  test("a bad value or unknown key is refused, naming the key as written", () => {
    using dir = tempDir();
    const file = join(dir.path, "config.json");
    const cases: [unknown, string][] = [
      [{ max_inline_bytes: 5 }, "config.max_inline_bytes"],
      [{ capture: { enabled: "yes" } }, "config.capture.enabled"],
      [{ capture: { typo: 1 } }, "config.capture.typo"],
      [{ url: "ftp://x" }, "config.url"],
      [{ object_roots: [""] }, "config.object_roots.0"],
      [{ datadir: "/d" }, "config.datadir"],
    ];
    for (const [value, field] of cases) {
      writeFileSync(file, JSON.stringify(value));
      let err: unknown;
      try {
        readConfigFile(file);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ZeroDbError);
      expect((err as ZeroDbError).field).toBe(field);
      expect((err as ZeroDbError).message.startsWith(`${field}: `)).toBe(true);
    }
    writeFileSync(file, "{ nope");
    expect(() => readConfigFile(file)).toThrow("is not valid JSON");
  });
});

describe("through the binary", () => {
  test("XDG_DATA_HOME is the home's parent when ZERODB_HOME is empty; connect pins what it found", async () => {
    using home = tempDir();
    const xdg = join(home.path, "xdg");
    mkdirSync(join(home.path, ".claude"));
    const r = await runZ(["connect", "--harness", "claude-code", "--json"], { home: home.path, env: { ZERODB_HOME: "", XDG_DATA_HOME: xdg } });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const entry = JSON.parse(readFileSync(join(home.path, ".claude.json"), "utf8")).mcpServers.zerodb;
    expect(entry.env.ZERODB_HOME).toBe(join(xdg, "zerodb"));
    expect(statSync(join(xdg, "zerodb")).mode & 0o777).toBe(0o700);
    // Unset and empty XDG_DATA_HOME both fall back to ~/.local/share.
    const envs: Record<string, string>[] = [{ ZERODB_HOME: "", XDG_DATA_HOME: "" }, { ZERODB_HOME: "" }];
    for (const env of envs) {
      const d = await runZ(["doctor", "--json"], { home: home.path, env });
      expect(JSON.parse(d.stdout).checks.find((c: { name: string }) => c.name === "home").detail).toBe(
        `${join(home.path, ".local", "share", "zerodb")} is 0700`,
      );
    }
  });

  test("a bad config.json makes commands fail with the key named, exit 2", async () => {
    using home = tempDir();
    mkdirSync(join(home.path, "zerodb"), { mode: 0o700 });
    writeFileSync(join(home.path, "zerodb", "config.json"), JSON.stringify({ max_inline_bytes: "big" }), { mode: 0o600 });
    const r = await runZ(["connect", "--dry-run"], { home: home.path });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toStartWith("zerodb: config.max_inline_bytes: ");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
