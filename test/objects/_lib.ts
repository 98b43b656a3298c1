/** Helpers of the objects tests: deterministic byte streams and hashing without holding data in memory. */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * `total` pseudo-random bytes as a stream of 1 MiB chunks, generated on the
 * fly, so gigabytes never sit in memory: one xorshift block per seed, each
 * chunk a copy of it stamped with its index (so no two chunks are equal).
 */
export function byteStream(total: number, seed = 1): ReadableStream<Uint8Array> {
  const block = randomBlock(seed);
  let sent = 0;
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      const n = Math.min(CHUNK, total - sent);
      const chunk = block.slice(0, n);
      if (n >= 4) new DataView(chunk.buffer).setUint32(0, index ^ seed, true);
      index++;
      controller.enqueue(chunk);
      sent += n;
    },
  });
}

const CHUNK = 1 << 20;

function randomBlock(seed: number): Uint8Array {
  let x = seed >>> 0 || 1;
  const words = new Uint32Array(CHUNK / 4);
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return new Uint8Array(words.buffer);
}

/** `sha256sum`'s digest of a stream's bytes, piped through the real tool. */
export async function sha256sum(stream: ReadableStream<Uint8Array>): Promise<string> {
  const proc = Bun.spawn(["sha256sum"], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  for await (const chunk of stream) {
    proc.stdin.write(chunk);
    await proc.stdin.flush();
  }
  await proc.stdin.end();
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error("sha256sum failed");
  return out.split(" ")[0]!;
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
