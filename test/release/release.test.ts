/**
 * `bun run release` (DESIGN.md section 10): one command makes all six
 * binaries and SHA256SUMS, reporting each size. The full cross build takes
 * about 10 s here once Bun's target runtimes are cached (the first run
 * downloads them from the npm registry, ~500 MiB), so the test runs all of it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { INSTALLERS, TARGETS, binaryName, sha256File } from "../../scripts/release.ts";
import { checkSignature } from "../../scripts/release/macho.ts";
import { STEPS } from "../../scripts/smoke/steps.ts";
import { tempDir } from "../helpers.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const out = tempDir("zerodb-release-");
let report = "";

beforeAll(async () => {
  // Through package.json, exactly as a maintainer runs it.
  const p = Bun.spawn([process.execPath, "run", "release", "--outdir", out.path], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`release exited ${code}: ${stderr}${stdout}`);
  report = stdout;
}, 600_000);

afterAll(() => out[Symbol.dispose]());

/** The first bytes of a file. */
function head(file: string, n = 4096): Buffer {
  const fd = openSync(file, "r");
  const buf = Buffer.alloc(n);
  const got = readSync(fd, buf, 0, n, 0);
  closeSync(fd);
  return buf.subarray(0, got);
}

/** What the executable header says about a binary: format and machine. */
function platformOf(file: string): string {
  const b = head(file);
  if (b.readUInt32BE(0) === 0x7f454c46) {
    // ELF: e_machine at 18 (62 = x86-64, 183 = AArch64); a musl build asks for musl's loader.
    const arch = { 62: "x64", 183: "arm64" }[b.readUInt16LE(18)] ?? `machine-${b.readUInt16LE(18)}`;
    return `linux-${arch}${b.includes("ld-musl-") ? "-musl" : ""}`;
  }
  if (b.readUInt32LE(0) === 0xfeedfacf) {
    // Mach-O 64: cputype 0x01000007 = x86_64, 0x0100000c = arm64.
    const arch = { 16777223: "x64", 16777228: "arm64" }[b.readUInt32LE(4)] ?? "unknown";
    return `darwin-${arch}`;
  }
  if (b.toString("latin1", 0, 2) === "MZ") {
    // PE: the "PE\0\0" header's offset is at 0x3c; machine 0x8664 = x64.
    const pe = b.readUInt32LE(0x3c);
    return b.toString("latin1", pe, pe + 4) === "PE\0\0" && b.readUInt16LE(pe + 4) === 0x8664 ? "windows-x64" : "windows-unknown";
  }
  return "unknown";
}

describe("bun run release", () => {
  test("writes the six binaries, each for its own platform, and reports each size", () => {
    for (const t of TARGETS) {
      const file = join(out.path, binaryName(t));
      const bytes = statSync(file).size;
      expect(bytes).toBeGreaterThan(10 * 1048576);
      expect(report).toContain(`built ${file} ${(bytes / 1048576).toFixed(1)} MiB (${bytes} bytes)`);
      expect({ file: binaryName(t), platform: platformOf(file) }).toEqual({ file: binaryName(t), platform: t.name });
    }
    expect(TARGETS.map(binaryName)).toEqual([
      "zerodb-linux-x64",
      "zerodb-linux-arm64",
      "zerodb-linux-x64-musl",
      "zerodb-darwin-x64",
      "zerodb-darwin-arm64",
      "zerodb-windows-x64.exe",
    ]);
  });

  test("each macOS binary carries a signature whose page hashes cover all its bytes (else macOS kills it)", async () => {
    for (const t of TARGETS.filter((t) => t.macos)) {
      const bytes = Buffer.from(await Bun.file(join(out.path, binaryName(t))).arrayBuffer());
      expect({ target: t.name, check: checkSignature(bytes) }).toMatchObject({ target: t.name, check: { valid: true } });
    }
  });

  test("SHA256SUMS lists every binary with its digest, in the format sha256sum -c reads", async () => {
    const sums = readFileSync(join(out.path, "SHA256SUMS"), "utf8");
    const expected = await Promise.all(TARGETS.map(async (t) => `${await sha256File(join(out.path, binaryName(t)))}  ${binaryName(t)}`));
    expect(sums).toBe(`${expected.join("\n")}\n`);
    const check = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: out.path });
    expect({ code: check.exitCode, stdout: check.stdout.toString() }).toEqual({ code: 0, stdout: TARGETS.map((t) => `${binaryName(t)}: OK\n`).join("") });
  });

  test("ships install.sh and install.ps1 beside the binaries, as they are in scripts/install/ (test/release/install.test.ts runs them)", () => {
    for (const f of INSTALLERS) {
      expect({ f, same: readFileSync(join(out.path, f)).equals(readFileSync(join(ROOT, "scripts", "install", f))) }).toEqual({ f, same: true });
    }
    expect(statSync(join(out.path, "install.sh")).mode & 0o111).not.toBe(0);
    expect(report).toContain(`copied install.sh, install.ps1 into ${out.path}`);
  });

  test("the linux-x64 binary passes the smoke script with no node or bun on PATH", async () => {
    if (process.platform !== "linux" || process.arch !== "x64") {
      console.warn(`skipped: a linux-x64 binary cannot run on ${process.platform}-${process.arch}`);
      return;
    }
    const bin = join(out.path, "zerodb-linux-x64");
    const p = Bun.spawn([process.execPath, join(ROOT, "scripts", "smoke.ts"), bin], { stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect({ code, stdout, stderr }).toEqual({
      code: 0,
      stdout: ["ok sandbox", ...STEPS.map((s) => `ok ${s.name}`)].map((l) => `${l}\n`).join(""),
      stderr: "",
    });
  });

  test("the linux-arm64 binary runs under qemu-user, where the machine has it", async () => {
    const sysroot = "/usr/aarch64-linux-gnu";
    if (!Bun.which("qemu-aarch64") || !statSync(sysroot, { throwIfNoEntry: false })) {
      console.warn("skipped: needs qemu-aarch64 and an aarch64 sysroot (apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross)");
      return;
    }
    using home = tempDir();
    const p = Bun.spawn(["qemu-aarch64", "-L", sysroot, join(out.path, "zerodb-linux-arm64"), "version", "--json"], {
      env: { HOME: home.path, ZERODB_HOME: join(home.path, "zerodb") },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ platform: "linux-arm64" });
  });
});
