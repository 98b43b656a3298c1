/** The one atomic writer (src/util/atomic.ts): all or nothing at the destination, no temp left behind. */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTemp, writeAtomic, writeFileAtomic } from "../../src/util/atomic.ts";
import { tempDir } from "../helpers.ts";

async function* failingAfter(chunks: string[]): AsyncGenerator<string> {
  yield* chunks;
  throw new Error("source failed");
}

describe("writeAtomic", () => {
  test("streams chunks into place and returns the bytes written", async () => {
    using dir = tempDir();
    expect(await writeAtomic(join(dir.path, "b"), ["é", new Uint8Array([0x61])], { publish: "new" })).toBe(3);
    expect(readFileSync(join(dir.path, "b"), "utf8")).toBe("éa");
  });

  test("a source that fails midway leaves the old file (replace) and no temp file", async () => {
    using dir = tempDir();
    const path = join(dir.path, "f");
    writeFileSync(path, "old");
    await expect(writeAtomic(path, failingAfter(["new ", "bytes"]), { publish: "replace" })).rejects.toThrow("source failed");
    expect(readdirSync(dir.path)).toEqual(["f"]);
    expect(readFileSync(path, "utf8")).toBe("old");
  });

  test("new never overwrites: an existing file or a planted symlink is EEXIST, and nothing is left", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "f"), "old");
    symlinkSync(join(dir.path, "elsewhere"), join(dir.path, "link"));
    for (const name of ["f", "link"]) {
      await expect(writeAtomic(join(dir.path, name), ["x"], { publish: "new" })).rejects.toMatchObject({ code: "EEXIST" });
    }
    expect(readdirSync(dir.path).sort()).toEqual(["f", "link"]);
    expect(readFileSync(join(dir.path, "f"), "utf8")).toBe("old");
  });

  test("mode is exact, whatever the umask; without it the file is private", async () => {
    using dir = tempDir();
    const old = process.umask(0o077);
    try {
      await writeAtomic(join(dir.path, "open"), ["x"], { publish: "new", mode: 0o644 });
      writeFileAtomic(join(dir.path, "private"), "x");
    } finally {
      process.umask(old);
    }
    expect(statSync(join(dir.path, "open")).mode & 0o777).toBe(0o644);
    expect(statSync(join(dir.path, "private")).mode & 0o777).toBe(0o600);
  });

  test("copyFrom fills the file with a kernel copy", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "src"), "copied bytes");
    expect(await writeAtomic(join(dir.path, "dst"), [], { publish: "new", copyFrom: join(dir.path, "src") })).toBe(12);
    expect(readFileSync(join(dir.path, "dst"), "utf8")).toBe("copied bytes");
  });
});

describe("createTemp", () => {
  test("after a link the temp name stays until discard; after a rename discard removes nothing", () => {
    using dir = tempDir();
    const a = createTemp(join(dir.path, "a.part"));
    a.write("blob");
    a.rename(join(dir.path, "a.hashed"));
    a.publish(join(dir.path, "final"), "new");
    expect(readdirSync(dir.path).sort()).toEqual(["a.hashed", "final"]);
    a.discard();
    expect(readdirSync(dir.path)).toEqual(["final"]);

    const b = createTemp(join(dir.path, "b.part"));
    b.write("other");
    b.publish(join(dir.path, "b.part.target"), "replace");
    writeFileSync(join(dir.path, "b.part"), "someone else's");
    b.discard();
    expect(readdirSync(dir.path).sort()).toEqual(["b.part", "b.part.target", "final"]);
  });

  test("an existing temp name is refused and left alone", () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "t"), "not ours");
    expect(() => createTemp(join(dir.path, "t"))).toThrow();
    expect(readFileSync(join(dir.path, "t"), "utf8")).toBe("not ours");
  });
});
