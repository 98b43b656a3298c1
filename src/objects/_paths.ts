/** Where blobs and temp files live under the objects root (DESIGN.md section 8). */
import { join } from "node:path";
import { invalid } from "../errors.ts";

const DIGEST_RE = /^sha256:([0-9a-f]{64})$/;

/** The 64 hex digits of a `sha256:<hex>` digest; invalid_input otherwise. */
export function digestHex(digest: string): string {
  const m = DIGEST_RE.exec(digest);
  if (!m) throw invalid("object", "must be sha256: followed by 64 lowercase hex digits");
  return m[1]!;
}

/** `<root>/sha256`: the top of the shard tree. */
export function shaDir(root: string): string {
  return join(root, "sha256");
}

/** `<root>/sha256/<hex[0:2]>/<hex[2:4]>/<hex>`. */
export function blobPath(root: string, hex: string): string {
  return join(shaDir(root), hex.slice(0, 2), hex.slice(2, 4), hex);
}

/** The directories from the root down to a blob's shard, outermost first. */
export function shardChain(root: string, hex: string): string[] {
  const sha = shaDir(root);
  const first = join(sha, hex.slice(0, 2));
  return [root, sha, first, join(first, hex.slice(2, 4))];
}

/** `<root>/tmp`: temp files, on the same file system as the blobs so rename/link stays atomic. */
export function tmpDir(root: string): string {
  return join(root, "tmp");
}

/**
 * A temp file's name: `<pid>.<random>.part` while bytes stream in, then
 * `<pid>.<random>.<hex>` once hashed. The pid tells cleanup whether its
 * writer still runs; the hex tells it which blob a dead put may have placed.
 */
export function tempName(pid: number, rand: string, hex?: string): string {
  return `${pid}.${rand}.${hex ?? "part"}`;
}

/** Parses a temp file name; undefined for names that are not ours. */
export function parseTempName(name: string): { pid: number; hex?: string } | undefined {
  const m = /^(\d{1,10})\.([0-9a-f]{12})\.(part|[0-9a-f]{64})$/.exec(name);
  if (!m) return undefined;
  return { pid: Number(m[1]), ...(m[3] !== "part" ? { hex: m[3] } : {}) };
}
