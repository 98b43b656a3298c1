/** SHA-256 helpers on Bun's native hasher. */

/** SHA-256 of a string or bytes, as bytes. */
export function sha256(data: string | Uint8Array): Uint8Array {
  return new Bun.CryptoHasher("sha256").update(data).digest() as Uint8Array;
}

/** SHA-256 of a string or bytes, as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}
