/**
 * Spilling oversized tool results (DESIGN.md section 9): permissions whatever
 * the umask, exclusive creation, no partial file, the inline budget, UTF-8,
 * and an owner that never reaches the file system raw.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type SpillFs, realFs } from "../../src/spill/file.ts";
import { DEFAULT_HINT, createSpiller } from "../../src/spill/spill.ts";
import { sha256Hex } from "../../src/util/hash.ts";
import { tempDir } from "../helpers.ts";

const KiB = 1024;
const mode = (p: string) => statSync(p).mode & 0o777;

/** Every path below `dir`, relative, depth first. */
function walk(dir: string, base = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = join(base, e.name);
    out.push(rel);
    if (e.isDirectory()) out.push(...walk(join(dir, e.name), rel));
  }
  return out;
}

const savedUmask = process.umask();
afterEach(() => void process.umask(savedUmask));

describe("spill", () => {
  test("a result within the budget stays inline, one byte over is spilled", () => {
    using tmp = tempDir();
    const spiller = createSpiller({ root: join(tmp.path, "spill"), owner: "local\u0000conn", maxInlineBytes: 4 * KiB });
    expect(spiller.apply("x".repeat(4 * KiB), { name: "recall" })).toEqual({ text: "x".repeat(4 * KiB) });
    expect(existsSync(spiller.dir)).toBe(false);
    const text = "y".repeat(4 * KiB + 1);
    const out = spiller.apply(text, { name: "recall" });
    expect(out.spill).toBeDefined();
    expect(readFileSync(out.spill!.path, "utf8")).toBe(text);
    expect(out.spill!.bytes).toBe(4 * KiB + 1);
  });

  for (const umask of [0o000, 0o077]) {
    test(`directories are 0700 and files 0600 under umask ${umask.toString(8).padStart(3, "0")}`, () => {
      using tmp = tempDir();
      process.umask(umask);
      const root = join(tmp.path, "fresh", "spill");
      const spiller = createSpiller({ root, owner: "local/1", maxInlineBytes: 2 * KiB });
      const out = spiller.apply("z".repeat(10 * KiB), { name: "search" });
      expect(out.spill).toBeDefined();
      expect(mode(root)).toBe(0o700);
      expect(mode(spiller.dir)).toBe(0o700);
      expect(mode(out.spill!.path)).toBe(0o600);
    });
  }

  test("an existing owner directory with loose permissions is tightened", () => {
    using tmp = tempDir();
    const spiller = createSpiller({ root: tmp.path, owner: "o", maxInlineBytes: 2 * KiB });
    mkdirSync(spiller.dir, { mode: 0o777 });
    process.umask(0);
    const out = spiller.apply("w".repeat(5 * KiB), { name: "x" });
    expect(out.spill).toBeDefined();
    expect(mode(spiller.dir)).toBe(0o700);
  });

  test("a symlink planted at the target name fails the save and its target is untouched", () => {
    using tmp = tempDir();
    const warnings: string[] = [];
    const spiller = createSpiller({ root: tmp.path, owner: "victim", maxInlineBytes: 2 * KiB, random: () => "AAAAAAAAAAAA", warn: (w) => warnings.push(w) });
    mkdirSync(spiller.dir, { recursive: true, mode: 0o700 });
    const target = join(tmp.path, "precious.txt");
    writeFileSync(target, "precious", { mode: 0o644 });
    const planted = join(spiller.dir, "AAAAAAAAAAAA-recall.txt");
    symlinkSync(target, planted);
    const text = "q".repeat(8 * KiB);
    expect(spiller.apply(text, { name: "recall.txt" })).toEqual({ text });
    expect(readFileSync(target, "utf8")).toBe("precious");
    expect(mode(target)).toBe(0o644);
    expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    expect(readlinkSync(planted)).toBe(target);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("kept inline");
  });

  test("a dangling symlink at the target name is refused too (nothing is created through it)", () => {
    using tmp = tempDir();
    const spiller = createSpiller({ root: tmp.path, owner: "victim", maxInlineBytes: 2 * KiB, random: () => "BBBBBBBBBBBB" });
    mkdirSync(spiller.dir, { recursive: true, mode: 0o700 });
    const target = join(tmp.path, "would-be-created.txt");
    symlinkSync(target, join(spiller.dir, "BBBBBBBBBBBB-result.txt"));
    const text = "q".repeat(8 * KiB);
    expect(spiller.apply(text, { name: "" })).toEqual({ text });
    expect(existsSync(target)).toBe(false);
  });

  test("a symlink planted in place of the owner directory is refused", () => {
    using tmp = tempDir();
    const warnings: string[] = [];
    const elsewhere = join(tmp.path, "elsewhere");
    mkdirSync(elsewhere);
    const root = join(tmp.path, "root");
    mkdirSync(root);
    const spiller = createSpiller({ root, owner: "victim", maxInlineBytes: 2 * KiB, warn: (w) => warnings.push(w) });
    symlinkSync(elsewhere, spiller.dir);
    const text = "r".repeat(8 * KiB);
    expect(spiller.apply(text, { name: "x" })).toEqual({ text });
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(warnings).toHaveLength(1);
  });

  for (const [what, failing] of [
    [
      "a write that fails halfway",
      {
        writeSync: (fd: number, b: Uint8Array, off: number, len: number) => {
          realFs.writeSync(fd, b, off, Math.min(len, 1000));
          throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
        },
      },
    ],
    [
      "a failed chmod",
      {
        fchmodSync: () => {
          throw Object.assign(new Error("operation not permitted"), { code: "EPERM" });
        },
      },
    ],
    [
      "a failed fsync",
      {
        fsyncSync: () => {
          throw Object.assign(new Error("I/O error"), { code: "EIO" });
        },
      },
    ],
  ] as const) {
    test(`${what} leaves no file, keeps the result inline and warns once`, () => {
      using tmp = tempDir();
      const warnings: string[] = [];
      const fs: SpillFs = { ...realFs, ...(failing as Partial<SpillFs>) };
      const spiller = createSpiller({ root: tmp.path, owner: "o", maxInlineBytes: 2 * KiB, fs, warn: (w) => warnings.push(w) });
      const text = "s".repeat(64 * KiB);
      expect(spiller.apply(text, { name: "stats" })).toEqual({ text });
      expect(readdirSync(spiller.dir)).toEqual([]);
      expect(warnings).toHaveLength(1);
    });
  }

  test("the replacement never exceeds max_inline_bytes, around the boundary and with multi-byte text", () => {
    using tmp = tempDir();
    const units = ["x", "\u00e9", "\u20ac", "\u{1F600}", "ab\u00e9\u20ac\u{1F600}\n"];
    for (const max of [1024, 1500, 4096]) {
      const spiller = createSpiller({ root: tmp.path, owner: `o${max}`, maxInlineBytes: max });
      for (const unit of units) {
        const ub = Buffer.byteLength(unit);
        for (let size = max - 8; size <= max + 3 * ub + 40; size++) {
          const text = unit.repeat(Math.ceil(size / ub)).slice(0, Math.ceil(size / ub) * unit.length);
          const bytes = Buffer.byteLength(text);
          const out = spiller.apply(text, { name: "t" });
          expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(max);
          expect(out.text.isWellFormed()).toBe(true);
          if (bytes <= max) expect(out).toEqual({ text });
          else {
            expect(out.spill!.bytes).toBe(bytes);
            expect(out.text).toContain(`${out.spill!.omitted_bytes} of ${bytes} bytes are omitted here`);
          }
        }
      }
      for (const size of [10 * KiB, 100 * KiB, 1024 * KiB]) {
        const text = "\u20ac".repeat(size);
        const out = spiller.apply(text, { name: "big" });
        expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(max);
        expect(readFileSync(out.spill!.path, "utf8")).toBe(text);
      }
    }
  });

  test("the notice gives the omitted byte count, the path and the hint; head and tail are 4:1", () => {
    using tmp = tempDir();
    const spiller = createSpiller({ root: tmp.path, owner: "o", maxInlineBytes: 8 * KiB });
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n");
    const hint = "Open that file with the Read tool (use offset and limit) to see the rest.";
    const out = spiller.apply(text, { name: "recall", hint });
    const notice = `\n\n[zerodb: ${out.spill!.omitted_bytes} of ${Buffer.byteLength(text)} bytes are omitted here; the full result is in\n${out.spill!.path}\n${hint}]\n\n`;
    const [head, tail] = out.text.split(notice);
    expect(text.startsWith(head!)).toBe(true);
    expect(text.endsWith(tail!)).toBe(true);
    expect(head!.length + tail!.length + out.spill!.omitted_bytes).toBe(text.length);
    expect(Math.abs(head!.length - 4 * tail!.length)).toBeLessThanOrEqual(5);
    expect(out.spill!.path.startsWith(`${spiller.dir}/`)).toBe(true);
    expect(out.spill!.path).toMatch(/\/[A-Za-z0-9_-]{12}-recall$/);
    expect(spiller.apply(text, { name: "x" }).text).toContain(DEFAULT_HINT);
  });

  test("text that is not valid UTF-8 stays inline and writes nothing", () => {
    using tmp = tempDir();
    const spiller = createSpiller({ root: tmp.path, owner: "o", maxInlineBytes: 1 * KiB });
    const text = `${"a".repeat(4 * KiB)}\uD800${"b".repeat(10)}`;
    expect(spiller.apply(text, { name: "x" })).toEqual({ text });
    expect(existsSync(spiller.dir)).toBe(false);
  });

  test("an inline budget too small for the notice keeps the result inline, with a warning", () => {
    using tmp = tempDir();
    const warnings: string[] = [];
    const spiller = createSpiller({ root: join(tmp.path, "x".repeat(200)), owner: "o", maxInlineBytes: 300, warn: (w) => warnings.push(w) });
    const text = "c".repeat(1000);
    expect(spiller.apply(text, { name: "x" })).toEqual({ text });
    expect(warnings).toHaveLength(1);
    expect(existsSync(spiller.dir)).toBe(false);
  });

  test("the owner never appears raw in any path: only its SHA-256 does", () => {
    using tmp = tempDir();
    const owner = "tenant-alice\u0000connection-7f3a9c";
    const spiller = createSpiller({ root: tmp.path, owner, maxInlineBytes: 1 * KiB });
    for (const name of ["recall", "search", "stats", "fact_list"]) spiller.apply("d".repeat(3 * KiB), { name });
    expect(spiller.dir).toBe(join(tmp.path, `session-${sha256Hex(owner)}`));
    const paths = walk(tmp.path);
    expect(paths.length).toBe(5);
    for (const p of paths) {
      expect(p).not.toContain("alice");
      expect(p).not.toContain("7f3a9c");
    }
  });

  test("two owners never share a directory; each spill gets a new file", () => {
    using tmp = tempDir();
    const a = createSpiller({ root: tmp.path, owner: "local\u0000one", maxInlineBytes: 1 * KiB });
    const b = createSpiller({ root: tmp.path, owner: "local\u0000two", maxInlineBytes: 1 * KiB });
    expect(a.dir).not.toBe(b.dir);
    const p1 = a.apply("e".repeat(2 * KiB), { name: "r" }).spill!.path;
    const p2 = a.apply("f".repeat(2 * KiB), { name: "r" }).spill!.path;
    expect(p1).not.toBe(p2);
    expect(readFileSync(p1, "utf8")).toBe("e".repeat(2 * KiB));
    expect(readFileSync(p2, "utf8")).toBe("f".repeat(2 * KiB));
  });
});
