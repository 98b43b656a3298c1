/**
 * Splitting an entry too big for one turn (DESIGN.md 7.2): a chunk is cut
 * where the next character would take its UTF-8 size past 3 MiB or its
 * JSON-escaped size past 7 MiB, so every chunk is a valid turn and fits one
 * 8 MiB HTTP request even when every character escapes to six bytes. The cut
 * depends only on the text: the same entry always splits the same way, which
 * is what lets a run killed between chunks resume at the first missing one.
 */
import { CONTENT_MAX_BYTES } from "../limits.ts";
import { CHUNK_JSON_MAX_BYTES, CHUNK_RAW_MAX_BYTES, CHUNKS_MAX } from "./limits.ts";

/** The chunks of one entry; `truncated` when more than CHUNKS_MAX were needed and the rest was dropped. */
export interface Chunks {
  chunks: string[];
  truncated: boolean;
}

/** UTF-8 bytes of a BMP code unit that is not a surrogate. */
function rawSize(code: number): number {
  return code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
}

/** Bytes of a BMP code unit inside a JSON string, as JSON.stringify escapes it. */
function jsonSize(code: number): number {
  if (code >= 0x20) return code === 0x22 || code === 0x5c ? 2 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
  // \b \t \n \f \r have short escapes; every other control character is \u00XX.
  return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** UTF-8 and JSON-escaped sizes of a well-formed string, stopping once either passes its limit. */
export function measure(text: string, stopRaw = Infinity, stopJson = Infinity): { raw: number; json: number } {
  let raw = 0;
  let json = 0;
  for (let i = 0; i < text.length && raw <= stopRaw && json <= stopJson; i++) {
    const code = text.charCodeAt(i);
    if (isHighSurrogate(code)) {
      raw += 4;
      json += 4;
      i++;
    } else {
      raw += rawSize(code);
      json += jsonSize(code);
    }
  }
  return { raw, json };
}

/** A run of printable ASCII other than `"` and `\\`: one byte each, raw and escaped. */
const PLAIN = /[\x20\x21\x23-\x5b\x5d-\x7f]+/y;

/** Splits `text` (well-formed UTF-16) into chunks; text that fits one turn is one chunk. */
export function chunkText(text: string): Chunks {
  // A code unit is at most 3 bytes of UTF-8 and 6 escaped: text this short fits one turn unmeasured.
  if (text.length * 3 <= CONTENT_MAX_BYTES && text.length * 6 <= CHUNK_JSON_MAX_BYTES) return { chunks: [text], truncated: false };
  const whole = measure(text, CONTENT_MAX_BYTES, CHUNK_JSON_MAX_BYTES);
  if (whole.raw <= CONTENT_MAX_BYTES && whole.json <= CHUNK_JSON_MAX_BYTES) return { chunks: [text], truncated: false };
  const chunks: string[] = [];
  let start = 0;
  let raw = 0;
  let json = 0;
  /** Closes the chunk before `i`; false once CHUNKS_MAX are full. */
  const cut = (i: number): boolean => {
    chunks.push(text.slice(start, i));
    start = i;
    raw = 0;
    json = 0;
    return chunks.length < CHUNKS_MAX;
  };
  for (let i = 0; i < text.length; ) {
    // Plain ASCII (most text) is measured a run at a time: the cut inside it is arithmetic.
    PLAIN.lastIndex = i;
    if (PLAIN.test(text)) {
      const runEnd = PLAIN.lastIndex;
      while (i < runEnd) {
        if ((raw === CHUNK_RAW_MAX_BYTES || json === CHUNK_JSON_MAX_BYTES) && !cut(i)) return { chunks, truncated: true };
        const take = Math.min(runEnd - i, CHUNK_RAW_MAX_BYTES - raw, CHUNK_JSON_MAX_BYTES - json);
        raw += take;
        json += take;
        i += take;
      }
      continue;
    }
    const code = text.charCodeAt(i);
    const pair = isHighSurrogate(code);
    const r = pair ? 4 : rawSize(code);
    const j = pair ? 4 : jsonSize(code);
    if ((raw + r > CHUNK_RAW_MAX_BYTES || json + j > CHUNK_JSON_MAX_BYTES) && !cut(i)) return { chunks, truncated: true };
    raw += r;
    json += j;
    i += pair ? 2 : 1;
  }
  chunks.push(text.slice(start));
  return { chunks, truncated: false };
}
