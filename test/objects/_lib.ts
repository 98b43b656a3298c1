/** Helpers of the objects tests: deterministic byte streams and hashing without holding data in memory. */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * `total` pseudo-random bytes as a stream of 1 MiB chunks, generated on the
 * fly (xorshift), so gigabytes never sit in memory.
 */
export function byteStream(total: number, seed = 1): ReadableStream<Uint8Array> {
  let sent = 0;
  let x = seed >>> 0 || 1;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      const n = Math.min(1 << 20, total - sent);
      const words = new Uint32Array(Math.ceil(n / 4));
      for (let i = 0; i < words.length; i++) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        words[i] = x >>> 0;
      }
      controller.enqueue(new Uint8Array(words.buffer, 0, n));
      sent += n;
    },
  });
}

/** SHA-256 hex of a stream, chunk by chunk. */
export async function hashStream(stream: ReadableStream<Uint8Array>): Promise<{ hex: string; size: number }> {
  const h = new Bun.CryptoHasher("sha256");
  let size = 0;
  for await (const chunk of stream) {
    h.update(chunk);
    size += chunk.byteLength;
  }
  return { hex: h.digest("hex"), size };
}

/** Every file under a directory, recursively (relative paths). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) walk(join(d, e.name), join(rel, e.name));
      else out.push(join(rel, e.name));
    }
  };
  walk(dir, "");
  return out.sort();
}

/** The blob files under a data dir's objects tree. */
export function blobFiles(dataDir: string): string[] {
  return filesUnder(join(dataDir, "objects", "sha256"));
}

/** The temp files under a data dir's objects tree. */
export function tempFiles(dataDir: string): string[] {
  return filesUnder(join(dataDir, "objects", "tmp"));
}

/** A pid that no process has any more (a child that already exited). */
export async function deadPid(): Promise<number> {
  const p = Bun.spawn(["true"]);
  await p.exited;
  return p.pid;
}
