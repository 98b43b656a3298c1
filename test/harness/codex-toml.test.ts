/** Codex's config.toml: zerodb's tables are added, updated and removed textually; the rest keeps its bytes. */
import { describe, expect, test } from "bun:test";
import { codex } from "../../src/harness/codex.ts";
import { TomlSyntaxError, scanToml } from "../../src/harness/toml.ts";
import type { Plan, ServerSpec } from "../../src/harness/types.ts";

const SPEC: ServerSpec = { command: "/opt/zerodb", args: ["mcp"], env: { ZERODB_MANAGED: "1", ZERODB_HOME: "/h/zerodb" } };

const textOf = (p: Plan): string => {
  if (!("text" in p)) throw new Error(`expected a change, got ${p.change}`);
  return p.text;
};

const USER_CONFIG = `# my codex config
model = "o3"  # the model
approval_policy = 'on-request'

[mcp_servers.other]
command = "other"
args = [
  "--flag", # why
  'x',
]
notes = """
[mcp_servers.zerodb]
not a header: inside a string
"""

[profiles.fast]
model = "o4-mini"
`;

describe("add", () => {
  test("appends the tables after everything else and keeps every byte before", () => {
    const out = textOf(codex.planAdd(USER_CONFIG, SPEC));
    expect(out.startsWith(USER_CONFIG)).toBe(true);
    expect(out.slice(USER_CONFIG.length)).toBe(`
[mcp_servers.zerodb]
command = "/opt/zerodb"
args = ["mcp"]

[mcp_servers.zerodb.env]
ZERODB_MANAGED = "1"
ZERODB_HOME = "/h/zerodb"
`);
    expect(codex.registration(out)).toEqual({ command: "/opt/zerodb", args: ["mcp"], env: SPEC.env, managed: true });
    expect(codex.planAdd(out, SPEC)).toEqual({ change: "unchanged" });
  });

  test("a string inside a multi-line string is not a header", () => {
    expect(codex.registration(USER_CONFIG)).toBeUndefined();
    expect(codex.planAdd(USER_CONFIG, SPEC).change).toBe("added");
  });

  test("a missing or empty file gets just the tables", () => {
    expect(textOf(codex.planAdd(undefined, SPEC)).startsWith("[mcp_servers.zerodb]\n")).toBe(true);
    expect(textOf(codex.planAdd("", SPEC)).startsWith("[mcp_servers.zerodb]\n")).toBe(true);
  });

  test("a file without a final newline gets one before the tables; CRLF files stay CRLF", () => {
    expect(textOf(codex.planAdd(`model = "o3"`, SPEC)).startsWith(`model = "o3"\n\n[mcp_servers.zerodb]\n`)).toBe(true);
    const crlf = textOf(codex.planAdd(`model = "o3"\r\n`, SPEC));
    expect(crlf).toContain(`\r\n[mcp_servers.zerodb]\r\ncommand = "/opt/zerodb"\r\n`);
    expect(crlf.replaceAll("\r\n", "")).not.toContain("\n");
  });

  test("strings that need escapes are written as valid TOML", () => {
    const spec = { ...SPEC, command: 'C:\\Program Files\\zero"db\u007f.exe', env: { ...SPEC.env, ZERODB_HOME: "/h/z é" } };
    const out = textOf(codex.planAdd("", spec));
    expect(codex.registration(out)).toEqual({ command: spec.command, args: ["mcp"], env: spec.env, managed: true });
  });
});

describe("update", () => {
  test("a moved binary is updated in place; the user's keys, comments and env stay", () => {
    const before = `[mcp_servers.zerodb]
# zerodb, the memory
command = "/old/zerodb"  # old path
args = ["mcp"]
startup_timeout_sec = 20

[mcp_servers.zerodb.env]
ZERODB_MANAGED = "1"
ZERODB_HOME = "/old/home"
ZERODB_DATA_DIR = "/stale"
MY_VAR = "kept"

[mcp_servers.next]
command = "n"
`;
    const plan = codex.planAdd(before, SPEC);
    expect(plan.change).toBe("updated");
    expect(textOf(plan)).toBe(`[mcp_servers.zerodb]
# zerodb, the memory
command = "/opt/zerodb"
args = ["mcp"]
startup_timeout_sec = 20

[mcp_servers.zerodb.env]
ZERODB_MANAGED = "1"
ZERODB_HOME = "/h/zerodb"
MY_VAR = "kept"

[mcp_servers.next]
command = "n"
`);
    expect(codex.planAdd(textOf(plan), SPEC)).toEqual({ change: "unchanged" });
  });

  test("an entry without env gets an env table; one with an inline env table keeps that form", () => {
    const out = textOf(codex.planAdd(`[mcp_servers.zerodb]\ncommand = "/opt/zerodb"\nargs = ["mcp"]\n`, SPEC));
    expect(out).toBe(
      `[mcp_servers.zerodb]\ncommand = "/opt/zerodb"\nargs = ["mcp"]\n\n[mcp_servers.zerodb.env]\nZERODB_MANAGED = "1"\nZERODB_HOME = "/h/zerodb"\n`,
    );
    const inline = textOf(codex.planAdd(`[mcp_servers.zerodb]\ncommand = "/x"\nenv = { A = "b" }\n`, SPEC));
    expect(inline).toBe(`[mcp_servers.zerodb]\ncommand = "/opt/zerodb"\nenv = { A = "b", ZERODB_MANAGED = "1", ZERODB_HOME = "/h/zerodb" }\nargs = ["mcp"]\n`);
    expect(codex.registration(inline)?.env).toEqual({ A: "b", ...SPEC.env });
  });

  test("an entry written inline elsewhere is refused, not duplicated", () => {
    expect(() => codex.planAdd(`[mcp_servers]\nzerodb = { command = "/x", args = ["mcp"] }\n`, SPEC)).toThrow("inline");
    expect(() => codex.planAdd(`mcp_servers.zerodb.command = "/x"\n`, SPEC)).toThrow("inline");
    expect(codex.registration(`[mcp_servers]\nzerodb = { command = "/x", args = ["mcp"] }\n`)?.command).toBe("/x");
  });
});

describe("remove", () => {
  test("connect then disconnect gives the original bytes back", () => {
    for (const original of [USER_CONFIG, "", `model = "o3"\n`, `model = "o3"\n\n`, `# only a comment`, `a = 1\r\n`]) {
      const added = textOf(codex.planAdd(original, SPEC));
      const removed = textOf(codex.planRemove(added));
      expect(removed === original || (original === "# only a comment" && removed === "# only a comment\n")).toBe(true);
    }
  });

  test("tables in the middle go with their blank lines; the next table's comment stays", () => {
    const text = `a = 1\n\n[mcp_servers.zerodb]\ncommand = "/z"\n\n[mcp_servers.zerodb.env]\nZERODB_MANAGED = "1"\n\n# the next one\n[mcp_servers.next]\ncommand = "n"\n`;
    expect(textOf(codex.planRemove(text))).toBe(`a = 1\n\n# the next one\n[mcp_servers.next]\ncommand = "n"\n`);
  });

  test("an entry zerodb did not write is left alone", () => {
    const text = `[mcp_servers.zerodb]\ncommand = "/mine"\n`;
    expect(codex.planRemove(text).change).toBe("foreign");
    expect(codex.planRemove(`model = "x"\n`)).toEqual({ change: "absent" });
    expect(codex.planRemove(undefined)).toEqual({ change: "absent" });
  });
});

test("malformed TOML is refused with its line", () => {
  for (const bad of [`[mcp_servers.zerodb\n`, `a = "unterminated\n`, `a = [1, 2\n`, `= 1\n`, `a = 1 b\n`, `a = """never closed`]) {
    expect(() => codex.planAdd(bad, SPEC)).toThrow(TomlSyntaxError);
  }
  expect(() => scanToml(`x = 1\ny = 2\n[bad\n`)).toThrow("line 3");
});

describe("sameSettings", () => {
  test("compares values, not text: layout, comments and quoting do not count; an empty [mcp_servers] is no servers", () => {
    expect(codex.sameSettings(`model = "o3"\n[tools]\nweb = true\n`, `# mine\nmodel = 'o3'\n\n[tools]\nweb   = true # on\n`)).toBe(true);
    expect(codex.sameSettings(`tools = { web = true }\n`, `[tools]\nweb = true\n`)).toBe(true);
    expect(codex.sameSettings(`model = "o3"\n`, `model = "o4"\n`)).toBe(false);
    expect(codex.sameSettings("", `[mcp_servers]\n`)).toBe(true);
    expect(codex.sameSettings("  \n", "")).toBe(true);
    expect(codex.sameSettings(`model = "o3"\n`, `model = \n`)).toBe(false);
  });
});
