/** saveNew: an object's bytes to a new file, from a local blob or a stream; never over an existing file. */
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { saveNew } from "../../src/objects/save.ts";
import { tempDir } from "../helpers.ts";

const streamOf = (text: string) => () => new Response(text).body!;

describe("saveNew", () => {
  test("from a stream and from a local file: the same bytes, mode 0600, no temp left", async () => {
    using dir = tempDir();
    const src = join(dir.path, "blob");
    writeFileSync(src, "local bytes", { mode: 0o600 });
    expect(await saveNew(join(dir.path, "a"), { read: streamOf("streamed bytes") }, { field: "out" })).toBe(14);
    expect(await saveNew(join(dir.path, "b"), { path: src, read: streamOf("unused") }, { field: "out" })).toBe(11);
    expect(readFileSync(join(dir.path, "a"), "utf8")).toBe("streamed bytes");
    expect(readFileSync(join(dir.path, "b"), "utf8")).toBe("local bytes");
    expect(statSync(join(dir.path, "a")).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir.path).sort()).toEqual(["a", "b", "blob"]);
  });

  test("an existing file or a planted symlink is refused with conflict and left as it was", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "exists"), "precious");
    writeFileSync(join(dir.path, "target"), "untouched");
    symlinkSync(join(dir.path, "target"), join(dir.path, "link"));
    for (const name of ["exists", "link"]) {
      await expect(saveNew(join(dir.path, name), { read: streamOf("new") }, { field: "out" })).rejects.toMatchObject({ code: "conflict", field: "out" });
    }
    expect(readFileSync(join(dir.path, "exists"), "utf8")).toBe("precious");
    expect(readFileSync(join(dir.path, "target"), "utf8")).toBe("untouched");
    expect(readdirSync(dir.path).sort()).toEqual(["exists", "link", "target"]);
  });

  test("a blob that vanished (forgotten meanwhile) is not_found and leaves nothing", async () => {
    using dir = tempDir();
    await expect(saveNew(join(dir.path, "out"), { path: join(dir.path, "gone"), read: streamOf("") }, { field: "out" })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(readdirSync(dir.path)).toEqual([]);
  });
});
