/**
 * Backup files taken apart and put back together with every checksum
 * recomputed (issue 29 item 5): what anyone can do to a backup, since its
 * line sums and trailer are plain SHA-256. A restore must judge what such a
 * file says, not only that its sums hold.
 */
import { createHash } from "node:crypto";

/** A backup file's parts, as JSON values and raw object bytes. */
export interface BackupParts {
  version: string;
  header: Record<string, any>;
  records: Record<string, any>[];
  tokens: Record<string, any>[];
  cursors: Record<string, any>[];
  objects: { digest: string; size: number; bytes: Buffer }[];
}

const sum = (json: string) => createHash("sha256").update(json).digest("hex").slice(0, 32);

/** Takes a backup file's bytes apart (format 2). */
export function parseBackup(file: Buffer): BackupParts {
  const parts: BackupParts = { version: "", header: {}, records: [], tokens: [], cursors: [], objects: [] };
  let at = 0;
  const line = (): string => {
    const nl = file.indexOf(10, at);
    const out = file.subarray(at, nl).toString("utf8");
    at = nl + 1;
    return out;
  };
  const first = line().split(" ");
  parts.version = first[1]!;
  parts.header = JSON.parse(first.slice(2).join(" "));
  for (;;) {
    const l = line();
    if (l.startsWith("END ")) return parts;
    const kind = l[0];
    if (kind === "O") {
      const [, digest, size] = l.split(" ");
      const bytes = Buffer.from(file.subarray(at, at + Number(size)));
      at += Number(size) + 1;
      parts.objects.push({ digest: digest!, size: Number(size), bytes });
      continue;
    }
    const value = JSON.parse(l.slice(35));
    (kind === "R" ? parts.records : kind === "T" ? parts.tokens : parts.cursors).push(value);
  }
}

/** Puts a backup file together again, every line sum and the trailer recomputed. */
export function writeBackup(p: BackupParts): Buffer {
  const chunks: Buffer[] = [Buffer.from(`ZERODB-BACKUP ${p.version} ${JSON.stringify(p.header)}\n`)];
  const signed = (kind: string, v: unknown) => {
    const json = JSON.stringify(v);
    chunks.push(Buffer.from(`${kind} ${sum(json)} ${json}\n`));
  };
  for (const r of p.records) signed("R", r);
  for (const t of p.tokens) signed("T", t);
  for (const c of p.cursors) signed("C", c);
  for (const o of p.objects) chunks.push(Buffer.from(`O ${o.digest} ${o.size}\n`), o.bytes, Buffer.from("\n"));
  const body = Buffer.concat(chunks);
  const trailer = {
    records: p.records.length,
    tokens: p.tokens.length,
    cursors: p.cursors.length,
    objects: p.objects.length,
    sha256: createHash("sha256").update(body).digest("hex"),
  };
  return Buffer.concat([body, Buffer.from(`END ${JSON.stringify(trailer)}\n`)]);
}
