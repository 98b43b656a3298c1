/**
 * Issue 14 item 4, through the built binary: after zerodb forget, zerodb
 * export and the data dir hold neither the forgotten fact key, the session
 * name, their idem keys nor the PIN's hash, and zerodb import of that export
 * restores a store that keeps the forgotten keys reserved.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { filesContaining, runJson, runZ, tempDir } from "../helpers.ts";
import { crackPin, dataFiles } from "./_forget-traces.ts";

describe("the binary: forget, export and import (issue 14 item 4)", () => {
  test("zerodb export after zerodb forget holds neither the fact key, the session name nor the PIN's hash; zerodb import restores it", async () => {
    using home = tempDir();
    const o = { home: home.path };
    await runJson(["append", "--session", "acme-layoffs-2027/notes", "--idem-key", "acme-note-1", "draft list"], o);
    await runJson(["fact", "set", "pin", '"4821"', "--idem-key", "set-pin-9c1d"], o);
    await runJson(["fact", "set", "owner", "alice"], o);
    expect((await runJson(["forget", "--session", "acme-layoffs-2027/notes"], o)).hidden).toBe(1);
    expect((await runJson(["forget", "--fact", "pin"], o)).hidden).toBe(1);
    const out = join(home.path, "export.jsonl");
    expect((await runZ(["export", "--out", out], o)).code).toBe(0);
    const text = readFileSync(out, "utf8");
    expect(text.trim().split("\n").length).toBe(5);
    for (const s of ["acme-layoffs", "acme-note-1", "set-pin-9c1d", '"4821"', "selector", "op_hash"]) expect(text, s).not.toContain(s);
    expect(crackPin("pin", [text])).toEqual([]);
    const data = join(home.path, "zerodb", "data");
    expect(crackPin("pin", dataFiles(data))).toEqual([]);
    for (const s of ["acme-layoffs", "acme-note-1", "set-pin-9c1d"]) expect(filesContaining(data, s), s).toEqual([]);

    using home2 = tempDir();
    const o2 = { home: home2.path };
    const r = await runZ(["import", out, "--json"], o2);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(r.stdout)).toEqual({ records: 5, last_lsn: 5 });
    expect(await runJson(["fact", "set", "pin", '"0000"', "--idem-key", "set-pin-9c1d"], o2)).toEqual({ lsn: 2, duplicate: true });
    expect((await runZ(["export"], o2)).stdout).toBe(text);
  }, 60_000);
});
