/**
 * Ad-hoc code signatures of the macOS binaries, checked and made without
 * macOS tools. Apple silicon kills any arm64 process whose signature does not
 * match its bytes, and a signed binary whose pages no longer match is refused
 * on Intel Macs too. `bun build --compile` writes the bundle into the runtime
 * and must re-sign it; Bun 1.4.5 does so for darwin-arm64, but its
 * darwin-x64 output keeps the runtime's original signature, which covers
 * neither the bundle nor the moved signature (oven-sh/bun#39837, the x64
 * half). `signAdhoc` writes the same kind of signature Bun writes for arm64:
 * one SHA-256 CodeDirectory, ad-hoc and linker-signed, over every byte before
 * the signature, in 4 KiB pages, the last page hashed short (Apple's rule).
 * Layouts: <mach-o/loader.h> and <kern/cs_blobs.h>.
 */

const MH_MAGIC_64 = 0xfeedfacf;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CS_ADHOC = 0x2;
const CS_LINKER_SIGNED = 0x20000;
const CS_HASHTYPE_SHA256 = 2;
const CS_EXECSEG_MAIN_BINARY = 0x1;
const CD_VERSION = 0x20400;
/** The CodeDirectory header up to and including the exec-segment fields of version 0x20400. */
const CD_HEADER = 88;
const PAGE_SHIFT = 12;
const PAGE = 1 << PAGE_SHIFT;
const HASH = 32;

/** Where a Mach-O keeps what signing touches. */
interface Layout {
  sigCmd: number;
  dataoff: number;
  datasize: number;
  linkeditCmd: number;
  linkeditFileoff: number;
  textFilesize: number;
}

function layout(buf: Buffer): Layout {
  if (buf.readUInt32LE(0) !== MH_MAGIC_64) throw new Error("not a 64-bit little-endian Mach-O");
  const ncmds = buf.readUInt32LE(16);
  let off = 32;
  const found: Partial<Layout> = {};
  for (let i = 0; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(off);
    const size = buf.readUInt32LE(off + 4);
    if (cmd === LC_CODE_SIGNATURE) {
      found.sigCmd = off;
      found.dataoff = buf.readUInt32LE(off + 8);
      found.datasize = buf.readUInt32LE(off + 12);
    } else if (cmd === LC_SEGMENT_64) {
      const name = buf.toString("latin1", off + 8, off + 24).replace(/\0+$/, "");
      if (name === "__LINKEDIT") {
        found.linkeditCmd = off;
        found.linkeditFileoff = Number(buf.readBigUInt64LE(off + 40));
      } else if (name === "__TEXT") found.textFilesize = Number(buf.readBigUInt64LE(off + 48));
    }
    off += size;
  }
  if (found.sigCmd === undefined || found.linkeditCmd === undefined || found.textFilesize === undefined)
    throw new Error("no LC_CODE_SIGNATURE, __LINKEDIT or __TEXT");
  return found as Layout;
}

/** SHA-256 of each 4 KiB page of `buf[0, limit)`, the last one short. */
function pageHashes(buf: Buffer, limit: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < limit; at += PAGE) {
    out.push(Buffer.from(new Bun.CryptoHasher("sha256").update(buf.subarray(at, Math.min(at + PAGE, limit))).digest()));
  }
  return out;
}

/** What a signature check found. */
export type SignatureCheck = { valid: true; flags: number; pages: number } | { valid: false; why: string };

/** Checks that the embedded signature is one SHA-256 CodeDirectory whose page hashes cover and match every byte before it. */
export function checkSignature(buf: Buffer): SignatureCheck {
  let l: Layout;
  try {
    l = layout(buf);
  } catch (err) {
    return { valid: false, why: (err as Error).message };
  }
  const sig = buf.subarray(l.dataoff, l.dataoff + l.datasize);
  if (sig.length < 12 || sig.readUInt32BE(0) !== CSMAGIC_EMBEDDED_SIGNATURE) return { valid: false, why: "no embedded signature SuperBlob" };
  if (l.dataoff + l.datasize !== buf.length) return { valid: false, why: `${buf.length - l.dataoff - l.datasize} bytes after the signature` };
  const count = sig.readUInt32BE(8);
  for (let i = 0; i < count; i++) {
    const at = sig.readUInt32BE(12 + i * 8 + 4);
    if (sig.readUInt32BE(at) !== CSMAGIC_CODEDIRECTORY) continue;
    const cd = sig.subarray(at);
    const hashOffset = cd.readUInt32BE(16);
    const nCode = cd.readUInt32BE(28);
    const codeLimit = cd.readUInt32BE(32);
    if (cd.readUInt8(36) !== HASH || cd.readUInt8(37) !== CS_HASHTYPE_SHA256 || cd.readUInt8(39) !== PAGE_SHIFT)
      return { valid: false, why: "not SHA-256 over 4 KiB pages" };
    if (codeLimit !== l.dataoff) return { valid: false, why: `the signature covers ${codeLimit} bytes, not the ${l.dataoff} before it` };
    const hashes = pageHashes(buf, codeLimit);
    if (hashes.length !== nCode) return { valid: false, why: `${nCode} page hashes for ${hashes.length} pages` };
    const bad = hashes.findIndex((h, k) => !h.equals(cd.subarray(hashOffset + k * HASH, hashOffset + (k + 1) * HASH)));
    if (bad >= 0) return { valid: false, why: `page ${bad} (bytes ${bad * PAGE}..) does not match its hash` };
    return { valid: true, flags: cd.readUInt32BE(12), pages: nCode };
  }
  return { valid: false, why: "no CodeDirectory in the signature" };
}

/**
 * Replaces the embedded signature by an ad-hoc one over every byte before it;
 * returns the new file bytes. The signature stays where it was (the end of
 * __LINKEDIT, the end of the file); the load commands that size it are
 * updated first, since they lie in the first page, which the hashes cover.
 */
export function signAdhoc(input: Buffer, identifier = "zerodb"): Buffer {
  const l = layout(input);
  const ident = Buffer.from(`${identifier}\0`, "utf8");
  const nCode = Math.ceil(l.dataoff / PAGE);
  const cdLength = CD_HEADER + ident.length + nCode * HASH;
  const blobLength = 12 + 8 + cdLength;
  const buf = Buffer.alloc(l.dataoff + blobLength);
  input.copy(buf, 0, 0, l.dataoff);

  buf.writeUInt32LE(blobLength, l.sigCmd + 12);
  const filesize = l.dataoff + blobLength - l.linkeditFileoff;
  buf.writeBigUInt64LE(BigInt(filesize), l.linkeditCmd + 48);
  // __LINKEDIT is the last segment, so growing its memory size to cover the new length overlaps nothing.
  const vmsize = Number(buf.readBigUInt64LE(l.linkeditCmd + 32));
  const needed = Math.ceil(filesize / 16384) * 16384;
  if (needed > vmsize) buf.writeBigUInt64LE(BigInt(needed), l.linkeditCmd + 32);

  const sig = buf.subarray(l.dataoff);
  sig.writeUInt32BE(CSMAGIC_EMBEDDED_SIGNATURE, 0);
  sig.writeUInt32BE(blobLength, 4);
  sig.writeUInt32BE(1, 8);
  sig.writeUInt32BE(0, 12); // slot 0: the CodeDirectory
  sig.writeUInt32BE(20, 16);
  const cd = sig.subarray(20);
  cd.writeUInt32BE(CSMAGIC_CODEDIRECTORY, 0);
  cd.writeUInt32BE(cdLength, 4);
  cd.writeUInt32BE(CD_VERSION, 8);
  cd.writeUInt32BE(CS_ADHOC | CS_LINKER_SIGNED, 12);
  cd.writeUInt32BE(CD_HEADER + ident.length, 16); // hashOffset
  cd.writeUInt32BE(CD_HEADER, 20); // identOffset
  cd.writeUInt32BE(0, 24); // nSpecialSlots
  cd.writeUInt32BE(nCode, 28);
  cd.writeUInt32BE(l.dataoff, 32); // codeLimit
  cd.writeUInt8(HASH, 36);
  cd.writeUInt8(CS_HASHTYPE_SHA256, 37);
  cd.writeUInt8(0, 38); // platform
  cd.writeUInt8(PAGE_SHIFT, 39);
  // 40..64: spare2, scatterOffset, teamOffset, spare3, codeLimit64, all zero.
  cd.writeBigUInt64BE(0n, 64); // execSegBase: __TEXT starts the file
  cd.writeBigUInt64BE(BigInt(l.textFilesize), 72);
  cd.writeBigUInt64BE(BigInt(CS_EXECSEG_MAIN_BINARY), 80);
  ident.copy(cd, CD_HEADER);
  for (const [k, h] of pageHashes(buf, l.dataoff).entries()) h.copy(cd, CD_HEADER + ident.length + k * HASH);
  return buf;
}
