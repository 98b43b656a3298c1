/**
 * Ordinary text no one here wrote, for redaction's false positives and its
 * speed on real bytes (issue 29): the sources, type declarations, READMEs,
 * changelogs, minified bundles, stylesheets and lockfiles of the installed
 * packages, read from node_modules at bench time and never committed. They
 * hold UUIDs, git hashes, sha256 and sha512 integrity strings, base64 data
 * URIs and minified JS: everything that must come out of redaction as it
 * went in. A file is picked by the digest of its path, so a quick run reads
 * a spread of packages, not the first ones alphabetically.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { extname, join, relative } from "node:path";

/** Text files by extension; binaries (the Bun and Biome executables, PostgreSQL) are never read. */
const TEXT = new Set([".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json", ".md", ".markdown", ".txt", ".css", ".html", ".yml", ".yaml", ".map"]);
/** A file past this is a bundle read whole elsewhere in the corpus many times over. */
const FILE_MAX = 4 << 20;

/** One file of the corpus. */
export interface OrdinaryFile {
  path: string;
  text: string;
}

/** Every text file under `dir` (symbolic links to directories followed once), paths sorted. */
function walk(dir: string, out: string[], seen: Set<string>): void {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.name === ".bin" || e.name === ".cache") continue;
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) {
      try {
        isDir = statSync(p).isDirectory();
      } catch {
        continue;
      }
    }
    if (isDir) {
      if (seen.has(p)) continue;
      seen.add(p);
      walk(p, out, seen);
    } else if (TEXT.has(extname(e.name))) out.push(p);
  }
}

/** Up to `maxBytes` of the text files of `root`'s node_modules, in an order fixed by their paths' digests. */
export function ordinaryCorpus(root: string, maxBytes: number): { files: OrdinaryFile[]; bytes: number } {
  const base = join(root, "node_modules");
  const paths: string[] = [];
  walk(base, paths, new Set());
  const order = paths.map((p) => ({ p, key: createHash("sha256").update(relative(base, p)).digest("hex") })).sort((a, b) => (a.key < b.key ? -1 : 1));
  const files: OrdinaryFile[] = [];
  let bytes = 0;
  for (const { p } of order) {
    if (bytes >= maxBytes) break;
    let size: number;
    try {
      size = statSync(p).size;
    } catch {
      continue;
    }
    if (size === 0 || size > FILE_MAX) continue;
    const text = readFileSync(p, "utf8");
    files.push({ path: relative(base, p), text });
    bytes += Buffer.byteLength(text);
  }
  return { files, bytes };
}
