/**
 * The macOS signature checker and ad-hoc signer of scripts/release/macho.ts,
 * on small binaries cross-compiled here. The signer's format is pinned to
 * Bun's own darwin-arm64 signer (codesign-verified upstream): re-signing
 * Bun's arm64 output with Bun's identifier must give back the same bytes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { checkSignature, signAdhoc } from "../../scripts/release/macho.ts";
import { tempDir } from "../helpers.ts";

const dir = tempDir("zerodb-macho-");
const built: Record<string, Buffer> = {};

beforeAll(async () => {
  const entry = join(dir.path, "hello.ts");
  await Bun.write(entry, 'console.log("hello from a signed binary");\n');
  for (const target of ["darwin-arm64", "darwin-x64"]) {
    const out = join(dir.path, target);
    const r = Bun.spawnSync([process.execPath, "build", entry, "--compile", "--bytecode", "--format=cjs", `--target=bun-${target}`, "--outfile", out], {
      stdout: "ignore",
      stderr: "pipe",
    });
    if (r.exitCode !== 0) throw new Error(`cross-compiling ${target} failed: ${r.stderr.toString()}`);
    built[target] = Buffer.from(await Bun.file(out).arrayBuffer());
  }
}, 300_000);

afterAll(() => dir[Symbol.dispose]());

describe("macOS code signatures", () => {
  test("Bun's darwin-arm64 signature checks valid, and re-signing it reproduces it byte for byte", () => {
    const arm = built["darwin-arm64"]!;
    expect(checkSignature(arm)).toMatchObject({ valid: true, flags: 0x20002 });
    expect(signAdhoc(arm, "a.out").equals(arm)).toBe(true);
  });

  test("one changed byte in the embedded bundle is caught, naming its page; re-signing repairs it", () => {
    const arm = Buffer.from(built["darwin-arm64"]!);
    const at = arm.indexOf("hello from a signed binary");
    expect(at).toBeGreaterThan(0);
    arm[at] = arm[at]! ^ 0x20;
    expect(checkSignature(arm)).toEqual({
      valid: false,
      why: `page ${Math.floor(at / 4096)} (bytes ${Math.floor(at / 4096) * 4096}..) does not match its hash`,
    });
    expect(checkSignature(signAdhoc(arm))).toMatchObject({ valid: true });
  });

  test("a darwin-x64 binary signed by signAdhoc checks valid over every byte before its signature", () => {
    const signed = signAdhoc(built["darwin-x64"]!);
    const check = checkSignature(signed);
    expect(check).toMatchObject({ valid: true, flags: 0x20002 });
    // Every page up to the signature is hashed: nothing of the bundle is left outside.
    expect(check.valid && check.pages * 4096).toBeGreaterThanOrEqual(signed.indexOf("hello from a signed binary"));
  });

  test("trailing bytes after the signature are refused (codesign --strict rejects them)", () => {
    const arm = Buffer.concat([built["darwin-arm64"]!, Buffer.from("junk")]);
    expect(checkSignature(arm)).toEqual({ valid: false, why: "4 bytes after the signature" });
  });
});
