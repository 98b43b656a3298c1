/** `zerodb object put|get|list` and `zerodb link add` over the built binary (DESIGN.md 6.3). */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../src/util/hash.ts";
import { runJson, runZ, tempDir } from "../helpers.ts";

describe("object and link commands", () => {
  test("put stores a file with its base name and guessed type; get writes a new file with the same bytes", async () => {
    using home = tempDir();
    const file = join(home.path, "shot.png");
    writeFileSync(file, "not really a png");
    const put = await runJson(["object", "put", file], { home: home.path });
    expect(put).toEqual({ object: `sha256:${sha256Hex("not really a png")}`, size: 16, type: "image/png", lsn: 1, duplicate: false });
    expect(await runJson(["object", "list"], { home: home.path })).toEqual({
      objects: [{ object: put.object, size: 16, type: "image/png", name: "shot.png", lsn: 1 }],
      next: null,
    });
    const out = join(home.path, "copy.png");
    const got = await runJson(["object", "get", put.object, "--out", out], { home: home.path });
    expect(got).toEqual({ object: put.object, size: 16, type: "image/png", name: "shot.png", lsn: 1, out });
    expect(readFileSync(out, "utf8")).toBe("not really a png");
  });

  test("get never overwrites: an existing --out is refused and left untouched", async () => {
    using home = tempDir();
    const file = join(home.path, "a.txt");
    writeFileSync(file, "payload");
    const put = await runJson(["object", "put", file, "--name", "custom", "--type", "text/plain"], { home: home.path });
    const out = join(home.path, "exists.txt");
    writeFileSync(out, "precious");
    const r = await runZ(["object", "get", put.object, "--out", out], { home: home.path });
    expect(r).toEqual({ code: 1, stdout: "", stderr: `zerodb: ${out} exists; zerodb never overwrites a file\n` });
    expect(readFileSync(out, "utf8")).toBe("precious");
  });

  test("get --out - writes the bytes to stdout; without --out it is a usage error", async () => {
    using home = tempDir();
    const put = await runJson(["object", "put", "-", "--type", "text/plain"], { home: home.path, stdin: "from stdin" });
    expect(put.size).toBe(10);
    const r = await runZ(["object", "get", put.object, "--out", "-"], { home: home.path });
    expect(r).toEqual({ code: 0, stdout: "from stdin", stderr: "" });
    const bad = await runZ(["object", "get", put.object], { home: home.path });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--out");
  });

  test("errors name the field: missing file, bad digest, unknown digest, bad type", async () => {
    using home = tempDir();
    const missing = await runZ(["object", "put", join(home.path, "nope"), "--json"], { home: home.path });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: "invalid_input", field: "file" });
    const digest = await runZ(["object", "get", "sha256:abc", "--out", join(home.path, "x"), "--json"], { home: home.path });
    expect(JSON.parse(digest.stdout).error).toMatchObject({ code: "invalid_input", field: "object" });
    const unknown = await runZ(["object", "get", `sha256:${"a".repeat(64)}`, "--out", join(home.path, "x")], { home: home.path });
    expect(unknown).toEqual({ code: 1, stdout: "", stderr: `zerodb: no object sha256:${"a".repeat(64)}\n` });
    writeFileSync(join(home.path, "f"), "x");
    const type = await runZ(["object", "put", join(home.path, "f"), "--type", "nonsense", "--json"], { home: home.path });
    expect(JSON.parse(type.stdout).error).toMatchObject({ code: "invalid_input", field: "type" });
    expect((await runJson(["object", "list"], { home: home.path })).objects).toEqual([]);
  });

  test("idempotency keys: a retried put is a duplicate with the original LSN", async () => {
    using home = tempDir();
    const file = join(home.path, "f.bin");
    writeFileSync(file, "same");
    const first = await runJson(["object", "put", file, "--idem-key", "k"], { home: home.path });
    const again = await runJson(["object", "put", file, "--idem-key", "k"], { home: home.path });
    expect(again).toEqual({ ...first, duplicate: true });
    const human = await runZ(["object", "put", file, "--idem-key", "k"], { home: home.path });
    expect(human).toEqual({ code: 0, stdout: `already stored: ${first.object} at lsn ${first.lsn} (duplicate)\n`, stderr: "" });
  });

  test("link add: searchable, http/https only, forgettable", async () => {
    using home = tempDir();
    const r = await runJson(["link", "add", "https://example.com/runbook", "--title", "Runbook", "--note", "wombat procedure"], { home: home.path });
    expect(r).toEqual({ lsn: 1, duplicate: false });
    const hits = (await runJson(["search", "wombat"], { home: home.path })).hits;
    expect(hits).toEqual([expect.objectContaining({ lsn: 1, kind: "link", url: "https://example.com/runbook" })]);
    const bad = await runZ(["link", "add", "ftp://example.com/x", "--json"], { home: home.path });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error).toMatchObject({ code: "invalid_input", field: "url" });
    expect(await runJson(["forget", "--link", "1"], { home: home.path })).toMatchObject({ hidden: 1 });
    expect((await runJson(["search", "wombat"], { home: home.path })).hits).toEqual([]);
  });

  test("forget --object removes the blob file once no ref is left", async () => {
    using home = tempDir();
    const file = join(home.path, "f.bin");
    writeFileSync(file, "to be forgotten");
    const put = await runJson(["object", "put", file], { home: home.path });
    const hex = put.object.slice(7);
    const blob = join(home.path, "zerodb", "data", "objects", "sha256", hex.slice(0, 2), hex.slice(2, 4), hex);
    expect(readFileSync(blob, "utf8")).toBe("to be forgotten");
    expect(await runJson(["forget", "--object", put.object], { home: home.path })).toMatchObject({ hidden: 1 });
    expect(() => readFileSync(blob)).toThrow();
  });
});
