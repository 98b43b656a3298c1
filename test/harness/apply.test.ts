/** Writing harness configs: atomic replace, exact mode, one backup, no lost concurrent write. */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BACKUP_SUFFIX, ChangedUnderfootError, readBackup, readState, writeState } from "../../src/harness/apply.ts";
import { runJob } from "../../src/harness/run-jobs.ts";
import { unifiedDiff } from "../../src/harness/diff.ts";
import { tempDir } from "../helpers.ts";

describe("writeState", () => {
  test("replaces the file by rename, keeps its exact mode, and backs up the bytes before", () => {
    using dir = tempDir();
    const file = join(dir.path, "settings.json");
    writeFileSync(file, "old");
    // A mode the umask would mangle if it were trusted.
    chmodSync(file, 0o664);
    const ino = statSync(file).ino;
    writeState(readState(file), "new");
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(statSync(file).mode & 0o777).toBe(0o664);
    expect(statSync(file).ino).not.toBe(ino);
    expect(readFileSync(file + BACKUP_SUFFIX, "utf8")).toBe("old");
    expect(statSync(file + BACKUP_SUFFIX).mode & 0o777).toBe(0o664);
    writeState(readState(file), "newer");
    // One backup: the state before the last change.
    expect(readFileSync(file + BACKUP_SUFFIX, "utf8")).toBe("new");
    expect(readdirSync(dir.path).sort()).toEqual(["settings.json", `settings.json${BACKUP_SUFFIX}`]);
  });

  test("a new file is 0600 (in a new 0700 folder) and its backup is empty: there was nothing", () => {
    using dir = tempDir();
    const file = join(dir.path, "new", "mcp.json");
    writeState(readState(file), "{}");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir.path, "new")).mode & 0o777).toBe(0o700);
    expect(readBackup(readState(file))).toBe("");
    writeState(readState(file), undefined);
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(file + BACKUP_SUFFIX, "utf8")).toBe("{}");
  });

  test("a file changed after it was read is not overwritten", () => {
    using dir = tempDir();
    const file = join(dir.path, "claude.json");
    writeFileSync(file, "{}");
    const state = readState(file);
    writeFileSync(file, `{"written": "by the harness meanwhile"}`);
    expect(() => writeState(state, `{"zerodb": 1}`)).toThrow(ChangedUnderfootError);
    expect(readFileSync(file, "utf8")).toBe(`{"written": "by the harness meanwhile"}`);
    expect(existsSync(file + BACKUP_SUFFIX)).toBe(false);
  });

  test("a file that is not UTF-8 is refused, not rewritten", () => {
    using dir = tempDir();
    const file = join(dir.path, "bad.json");
    writeFileSync(file, Buffer.from([0x7b, 0xff, 0x7d]));
    const out = runJob({ target: "t", what: "mcp", label: "T", path: file, plan: () => ({ change: "added", text: "{}" }) }, false);
    expect(out.status).toBe("failed");
    expect(readFileSync(file)).toEqual(Buffer.from([0x7b, 0xff, 0x7d]));
  });
});

describe("runJob", () => {
  test("a job whose plan throws reports the file as malformed and writes nothing", () => {
    using dir = tempDir();
    const file = join(dir.path, "x.json");
    writeFileSync(file, "{oops");
    const out = runJob(
      {
        target: "t",
        what: "mcp",
        label: "T",
        path: file,
        plan: () => {
          throw new SyntaxError("expected a property name at line 1, column 2");
        },
      },
      false,
    );
    expect(out).toEqual({
      target: "t",
      what: "mcp",
      label: "T",
      path: file,
      status: "failed",
      detail: `${file} is malformed (expected a property name at line 1, column 2); left untouched`,
    });
    expect(readdirSync(dir.path)).toEqual(["x.json"]);
  });
});

describe("runJob retries", () => {
  test("a file rewritten between read and write is read and planned again, so the other write is kept", () => {
    using dir = tempDir();
    const file = join(dir.path, "claude.json");
    writeFileSync(file, "a");
    let calls = 0;
    const out = runJob(
      {
        target: "t",
        what: "mcp",
        label: "T",
        path: file,
        plan: (text) => {
          // The harness writes the file while zerodb plans its change, once.
          if (calls++ === 0) writeFileSync(file, "b");
          return { change: "updated", text: `${text}+zerodb` };
        },
      },
      false,
    );
    expect(out.status).toBe("updated");
    expect(calls).toBe(2);
    expect(readFileSync(file, "utf8")).toBe("b+zerodb");
  });

  test("a file that keeps changing fails after three tries, untouched", () => {
    using dir = tempDir();
    const file = join(dir.path, "claude.json");
    writeFileSync(file, "0");
    let calls = 0;
    const out = runJob(
      {
        target: "t",
        what: "mcp",
        label: "T",
        path: file,
        plan: (text) => {
          writeFileSync(file, String(++calls));
          return { change: "updated", text: `${text}+zerodb` };
        },
      },
      false,
    );
    expect(out).toMatchObject({ status: "failed", detail: expect.stringContaining("changed while zerodb was editing it") });
    expect(readFileSync(file, "utf8")).toBe("3");
  });
});

describe("unifiedDiff", () => {
  test("hunks with three lines of context and correct ranges", () => {
    const a = `${Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n")}\n`;
    const b = a.replace("line 3\n", "line 3\nadded\n").replace("line 17\n", "");
    expect(unifiedDiff(a, b, { from: "f", to: "f" })).toBe(
      [
        "--- f",
        "+++ f",
        "@@ -2,6 +2,7 @@",
        " line 1",
        " line 2",
        " line 3",
        "+added",
        " line 4",
        " line 5",
        " line 6",
        "@@ -15,6 +16,5 @@",
        " line 14",
        " line 15",
        " line 16",
        "-line 17",
        " line 18",
        " line 19",
        "",
      ].join("\n"),
    );
    expect(unifiedDiff(a, a, { from: "f", to: "f" })).toBe("");
    expect(unifiedDiff("", "x\n", { from: "/dev/null", to: "f" })).toBe("--- /dev/null\n+++ f\n@@ -0,0 +1,1 @@\n+x\n");
  });

  test("a 20,000-line JSON file with a small change: only the changed lines, with their context", () => {
    // A project list as large as a long-used ~/.claude.json; the old LCS table needed lines x lines of memory for it.
    const projects = Object.fromEntries(Array.from({ length: 19_995 }, (_, i) => [`/home/u/p${i}`, i]));
    const before = `${JSON.stringify({ projects, mcpServers: {} }, null, 2)}\n`;
    const after = before.replace('"/home/u/p10000": 10000,', '"/home/u/p10000": 10001,').replace('"mcpServers": {}', '"mcpServers": {\n    "zerodb": {}\n  }');
    expect(before.split("\n").length).toBe(20_001);
    expect(unifiedDiff(before, after, { from: "f", to: "f" })).toBe(
      [
        "--- f",
        "+++ f",
        "@@ -10000,7 +10000,7 @@",
        ...[9997, 9998, 9999].map((i) => `     "/home/u/p${i}": ${i},`),
        '-    "/home/u/p10000": 10000,',
        '+    "/home/u/p10000": 10001,',
        ...[10001, 10002, 10003].map((i) => `     "/home/u/p${i}": ${i},`),
        "@@ -19996,5 +19996,7 @@",
        '     "/home/u/p19993": 19993,',
        '     "/home/u/p19994": 19994',
        "   },",
        '-  "mcpServers": {}',
        '+  "mcpServers": {',
        '+    "zerodb": {}',
        "+  }",
        " }",
        "",
      ].join("\n"),
    );
  });
});
