/** A hook's input from stdin: the event its harness writes before it closes the pipe. */
import { readSync } from "node:fs";

/**
 * All of stdin, read synchronously: a harness writes its event and closes
 * the pipe (or gives no stdin: empty), so nothing is waited for that the
 * hook would not wait for anyway, and Bun.stdin's asynchronous read cost
 * each hook run 0.4–1.2 ms more than this (issue 32). A stdin that cannot
 * be read so (non-blocking: EAGAIN) is read the asynchronous way, after
 * what was read already.
 */
export async function readHookStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  const buf = Buffer.allocUnsafe(64 * 1024);
  try {
    for (;;) {
      const n = readSync(0, buf, 0, buf.length, null);
      if (n === 0) return Buffer.concat(chunks);
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
  } catch {
    return Buffer.concat([...chunks, await Bun.stdin.bytes()]);
  }
}
