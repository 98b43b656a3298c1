/**
 * Image blocks of a transcript line, stored as objects (DESIGN.md section 8)
 * so the turn's `meta.images[].object` names bytes the tenant holds. The
 * text keeps only a note of each image. A failed put never blocks capture:
 * the turn still names the digest, and the run reports the failure once.
 */
import { isZeroDbError } from "../errors.ts";
import type { Memory } from "../store/types.ts";
import type { ImageBlock } from "./render.ts";

/** An image to store, named like its line's entries. */
export interface PendingImage {
  image: ImageBlock;
  /** `<source>:<position>:image<i>`: a replay is a duplicate, and a forgotten ref stays forgotten (I3). */
  idemKey: string;
}

const MEDIA_TYPE = /^[\x21-\x7e]+\/[\x21-\x7e]+$/;

/** Puts each image; returns a warning per failure. */
export async function storeImages(memory: Memory, images: PendingImage[]): Promise<string[]> {
  const warnings: string[] = [];
  for (const { image, idemKey } of images) {
    const type = MEDIA_TYPE.test(image.mediaType) ? image.mediaType : "application/octet-stream";
    try {
      await memory.objectPut(image.data, { type, idem_key: idemKey });
    } catch (err) {
      warnings.push(`image ${idemKey} not stored: ${isZeroDbError(err) ? err.code : "error"}`);
    }
  }
  return warnings;
}
