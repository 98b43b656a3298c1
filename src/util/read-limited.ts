/**
 * A stream's bytes, at most `max` of them, counted as they arrive: the moment
 * it passes `max` the stream is cancelled and `over()` is thrown, so no caller
 * ever buffers more than its limit (DESIGN.md section 3). Used by the HTTP
 * door for JSON bodies and by the CLI for stdin, each with its own error.
 */
export async function readLimited(body: ReadableStream<Uint8Array> | null, limit: { max: number; over: () => Error }): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit.max) {
      // Stop reading: the rest is never buffered.
      reader.cancel().catch(() => {});
      throw limit.over();
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}
