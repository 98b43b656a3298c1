/**
 * `zerodb serve --database URL --port 0` from source for the PostgreSQL
 * tests, each in its own home (so its own data dir), as a team's machines
 * would run it; resolves once the server says it listens.
 */
import { dirname, join } from "node:path";
import { ZERODB_SRC } from "../../helpers.ts";

/** A running `serve`: its URL, process and what it wrote to stderr. */
export interface Serve {
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
  stderr(): string;
  /** Ends it (SIGTERM, or the signal given) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts a `serve` on `url` with HOME=`home`. */
export async function startServe(home: string, url: string, extraEnv: Record<string, string> = {}): Promise<Serve> {
  const proc = Bun.spawn(["bun", ZERODB_SRC, "serve", "--port", "0", "--database", url], {
    cwd: dirname(home),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb"), ...extraEnv },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  let text = "";
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const m = /^zerodb listening on (http:\/\/\S+)$/m.exec(text);
    if (m && text.includes("  about:")) break;
    const { value, done } = await reader.read();
    if (done) throw new Error(`zerodb serve ended: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  const url_ = /^zerodb listening on (http:\/\/\S+)$/m.exec(text)![1]!;
  // Keeps draining stderr so the server never blocks on a full pipe.
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    await proc.exited;
  };
  return { url: url_, proc, stderr: () => text, stop, [Symbol.asyncDispose]: () => stop("SIGKILL") };
}

/** The peak resident set of a live process in bytes (VmHWM of /proc/<pid>/status). */
export async function peakRss(pid: number): Promise<number> {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(await Bun.file(`/proc/${pid}/status`).text());
  if (!kb) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}
