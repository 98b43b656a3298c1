/**
 * Session names derived from where an agent runs (DESIGN.md 7.2): the project
 * session of a working directory and the capture session of a harness session.
 * Every generated name fits in 255 bytes.
 */
import { realpathSync } from "node:fs";
import { basename, resolve } from "node:path";
import { redactName } from "./redact/redact.ts";
import { sha256Hex } from "./util/hash.ts";

/** Bytes the base name may take: 255 - "-" - 8 hex - "/" - 16 hex. */
const BASE_MAX_BYTES = 229;

/** Cuts a string to at most `max` UTF-8 bytes, on a character boundary. */
export function cutUtf8(s: string, max: number): string {
  if (Buffer.byteLength(s, "utf8") <= max) return s;
  let out = "";
  let bytes = 0;
  for (const ch of s) {
    const b = Buffer.byteLength(ch, "utf8");
    if (bytes + b > max) break;
    out += ch;
    bytes += b;
  }
  return out;
}

/** A base name made safe as one session-name segment (no '/', no control chars, not '.' or '..'). */
function safeSegment(name: string): string {
  const cleaned = name.replace(/[\u0000-\u001f\u007f-\u009f/]/g, "-").replace(/\uFFFD/g, "-");
  return cleaned === "" || cleaned === "." || cleaned === ".." ? "root" : cleaned;
}

/** The real path of a directory (symlinks resolved), or its absolute path when it cannot be resolved. */
export function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/**
 * The project session of a working directory: its base name cut to 229 bytes,
 * `-`, and 8 hex of SHA-256 of the full real path, so two checkouts named
 * `app` never share a session. A secret shape in the base name (a checkout
 * named after a token) is replaced by its marker: the stores refuse a name
 * holding one, and capture must never fail for a directory's name; the path
 * hash keeps two such directories apart (issue 29 item 9).
 */
export function projectSession(cwd: string): string {
  const real = realDir(cwd);
  const base = cutUtf8(safeSegment(redactName(basename(real))), BASE_MAX_BYTES);
  return `${base}-${sha256Hex(real).slice(0, 8)}`;
}

/** The capture session of a harness session: `<project session>/<16 hex of SHA-256(id)>`. */
export function captureSession(project: string, harnessSessionId: string): string {
  return `${project}/${sha256Hex(harnessSessionId).slice(0, 16)}`;
}
