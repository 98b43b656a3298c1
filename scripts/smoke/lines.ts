/** Reading a child's output line by line, each read bounded in time (no step may hang the smoke). */
import { StepFailure, within } from "./sandbox.ts";

/** Lines of a stream, read on demand. */
export interface LineReader {
  /** The next complete line (without its newline); fails the step after `timeoutMs` or at end of stream. */
  next(what: string, timeoutMs?: number): Promise<string>;
  /** Every line left until the end of the stream; fails the step after `timeoutMs`. */
  rest(what: string, timeoutMs?: number): Promise<string[]>;
  /** Every line read so far. */
  readonly seen: readonly string[];
}

/** Wraps a byte stream (a child's stdout or stderr). */
export function lineReader(stream: ReadableStream<Uint8Array>): LineReader {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const seen: string[] = [];
  let buffer = "";
  let done = false;
  let pending: ReturnType<typeof reader.read> | undefined;
  const self: LineReader = {
    seen,
    async rest(what, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      const lines: string[] = [];
      for (;;) {
        try {
          lines.push(await self.next(what, Math.max(1, deadline - Date.now())));
        } catch (err) {
          if (!done) throw err;
          if (buffer) lines.push(buffer);
          buffer = "";
          return lines;
        }
      }
    },
    async next(what, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const nl = buffer.indexOf("\n");
        if (nl >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, "");
          buffer = buffer.slice(nl + 1);
          seen.push(line);
          return line;
        }
        if (done) throw new StepFailure(`the stream ended before ${what}${buffer ? ` (partial line ${JSON.stringify(buffer.slice(0, 200))})` : ""}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new StepFailure(`no ${what} within ${timeoutMs / 1000} s`);
        // A read that loses the race stays pending and is awaited by the next call, so no bytes are lost.
        pending ??= reader.read();
        const r = await within(pending, left);
        if (r === "timeout") continue;
        pending = undefined;
        if (r.done) done = true;
        else buffer += decoder.decode(r.value, { stream: true });
      }
    },
  };
  return self;
}
