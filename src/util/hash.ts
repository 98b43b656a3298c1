/**
 * SHA-256 helpers on Bun's native one-shot hash: about a third cheaper per
 * call than a CryptoHasher made for each (every write hashes its content
 * and its row's checksum, issue 32).
 */

/** SHA-256 of a string or bytes, as bytes. */
export function sha256(data: string | Uint8Array): Uint8Array {
  return Bun.SHA256.hash(data) as Uint8Array;
}

/** SHA-256 of a string or bytes, as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return Bun.SHA256.hash(data, "hex");
}
