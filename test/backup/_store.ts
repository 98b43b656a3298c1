/** What the backup tests compare of a store: its records (as export prints them) and its blob files. */
import { expect } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { runZ } from "../helpers.ts";

/** Every record of a data dir, as export prints them. */
export async function records(dataDir: string, env: { home: string }, tenant?: string): Promise<any[]> {
  const r = await runZ(["export", "--data-dir", dataDir, ...(tenant ? ["--tenant", tenant] : [])], env);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return r.stdout
    .split("\n")
    .filter((l) => l)
    .map((l) => JSON.parse(l));
}

/** Every blob file under a data dir: digest -> bytes. */
export function blobs(dataDir: string): Map<string, Buffer> {
  const root = join(dataDir, "objects", "sha256");
  const out = new Map<string, Buffer>();
  if (!existsSync(root)) return out;
  for (const e of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.set(`sha256:${e.name}`, readFileSync(join(e.parentPath, e.name)));
  }
  return out;
}

/** The header of a backup file. */
export function headerOf(file: string): { store_id: string; tenant: string | null; after: number; last_lsn: number; lineage: [string, number][] } {
  const first = readFileSync(file).subarray(0, 4096).toString("utf8").split("\n")[0]!;
  return JSON.parse(first.split(" ").slice(2).join(" "));
}
