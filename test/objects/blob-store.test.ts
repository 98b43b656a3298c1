/** The blob store behind its interface (DESIGN.md section 8): layout, no overwrite, limits, cleanup. */
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createFsBlobStore } from "../../src/objects/fs-store.ts";
import { sha256Hex } from "../../src/util/hash.ts";
import { tempDir } from "../helpers.ts";
import { byteStream, deadPid, filesUnder, hashStream } from "./_lib.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("fs blob store", () => {
  test("a put lands at objects/sha256/<hex[0:2]>/<hex[2:4]>/<hex> and reads back, whole and by range", async () => {
    using dir = tempDir();
    const blobs = createFsBlobStore(join(dir.path, "objects"));
    const info = await blobs.put(bytes("hello objects"), { maxBytes: 100 });
    const hex = sha256Hex("hello objects");
    expect(info).toEqual({ digest: `sha256:${hex}`, size: 13 });
    const path = join(dir.path, "objects", "sha256", hex.slice(0, 2), hex.slice(2, 4), hex);
    expect(blobs.path(info.digest)).toBe(path);
    expect(readFileSync(path, "utf8")).toBe("hello objects");
    expect(blobs.stat(info.digest)).toEqual({ size: 13 });
    expect(await new Response(blobs.read(info.digest)).text()).toBe("hello objects");
    expect(await new Response(blobs.read(info.digest, { start: 6, end: 13 })).text()).toBe("objects");
    expect(filesUnder(join(dir.path, "objects", "tmp"))).toEqual([]);
  });

  test("streams of many chunks hash like the whole", async () => {
    using dir = tempDir();
    const blobs = createFsBlobStore(join(dir.path, "objects"));
    const expected = await hashStream(byteStream(5 * 1048576 + 7, 42));
    const info = await blobs.put(byteStream(5 * 1048576 + 7, 42), { maxBytes: 1 << 30 });
    expect(info).toEqual({ digest: `sha256:${expected.hex}`, size: expected.size });
    expect((await hashStream(blobs.read(info.digest))).hex).toBe(expected.hex);
  });

  test("an existing blob is never overwritten: the second put drops its temp", async () => {
    using dir = tempDir();
    const blobs = createFsBlobStore(join(dir.path, "objects"));
    const info = await blobs.put(bytes("same"), { maxBytes: 100 });
    const before = statSync(blobs.path(info.digest));
    const staged = await blobs.stage(bytes("same"), { maxBytes: 100 });
    expect(staged.place()).toBe(false);
    staged.discard();
    const after = statSync(blobs.path(info.digest));
    expect(after.ino).toBe(before.ino);
    expect(filesUnder(join(dir.path, "objects", "tmp"))).toEqual([]);
  });

  test("max bytes is enforced while streaming: too_large, nothing left behind", async () => {
    using dir = tempDir();
    const blobs = createFsBlobStore(join(dir.path, "objects"));
    await expect(blobs.put(byteStream(3 * 1048576), { maxBytes: 2 * 1048576 })).rejects.toMatchObject({ code: "too_large", field: "object" });
    expect(filesUnder(join(dir.path, "objects"))).toEqual([]);
    // The limit itself passes.
    expect((await blobs.put(byteStream(2 * 1048576), { maxBytes: 2 * 1048576 })).size).toBe(2 * 1048576);
  });

  test("a failing source leaves no temp file", async () => {
    using dir = tempDir();
    const blobs = createFsBlobStore(join(dir.path, "objects"));
    async function* broken() {
      yield bytes("partial");
      throw new Error("connection reset");
    }
    await expect(blobs.put(broken(), { maxBytes: 100 })).rejects.toThrow("connection reset");
    expect(filesUnder(join(dir.path, "objects"))).toEqual([]);
  });

  test("cleanup removes temps of dead processes, keeps live ones, and names the digests a dead put hashed", async () => {
    using dir = tempDir();
    const blobs = createFsBlobStore(join(dir.path, "objects"));
    await blobs.put(bytes("x"), { maxBytes: 10 });
    const tmp = join(dir.path, "objects", "tmp");
    const dead = await deadPid();
    const hex = sha256Hex("orphan");
    writeFileSync(join(tmp, `${dead}.aaaaaaaaaaaa.part`), "half");
    writeFileSync(join(tmp, `${dead}.bbbbbbbbbbbb.${hex}`), "orphan");
    writeFileSync(join(tmp, `${process.pid}.cccccccccccc.part`), "in progress");
    writeFileSync(join(tmp, "not-ours.txt"), "left alone");
    expect(blobs.cleanup()).toEqual({ removed: 2, orphans: [`sha256:${hex}`] });
    expect(filesUnder(tmp)).toEqual([`${process.pid}.cccccccccccc.part`, "not-ours.txt"]);
  });

  test("delete removes the file and says whether it was there; bad digests are invalid_input", async () => {
    using dir = tempDir();
    const blobs = createFsBlobStore(join(dir.path, "objects"));
    const info = await blobs.put(bytes("gone soon"), { maxBytes: 100 });
    expect(blobs.delete(info.digest)).toBe(true);
    expect(blobs.delete(info.digest)).toBe(false);
    expect(blobs.stat(info.digest)).toBeUndefined();
    expect(() => blobs.path("sha256:../../etc/passwd")).toThrow(expect.objectContaining({ code: "invalid_input", field: "object" }));
  });
});
