/** A real `zerodb serve` child process for the HTTP tests, on a loopback port chosen by the OS. */
import { join } from "node:path";
import { ZERODB, runJson } from "../helpers.ts";

/** A running server: its URL, pid, what it wrote to stderr, and a way to wait for more. */
export interface ServerProcess {
  url: string;
  pid: number;
  proc: ReturnType<typeof Bun.spawn>;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Waits until stderr holds a line matching `re` (or the process ends: then it throws). */
  waitForLine(re: RegExp): Promise<string>;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The environment the binary runs in: HOME and ZERODB_HOME inside `home`. */
export function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb"), ...extra };
}

/** Starts `zerodb serve --port 0` (plus `args`) in `home` and waits for its listening line. */
export async function startServer(home: string, args: string[] = []): Promise<ServerProcess> {
  const proc = Bun.spawn([ZERODB, "serve", "--port", "0", ...args], { cwd: home, env: envFor(home), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let text = "";
  let ended = false;
  let wake: () => void = () => {};
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      wake();
    }
    ended = true;
    wake();
  })();
  const waitForLine = async (re: RegExp): Promise<string> => {
    for (;;) {
      const line = text.split("\n").find((l) => re.test(l));
      if (line !== undefined) return line;
      if (ended) throw new Error(`zerodb serve ended without a line matching ${re}; stderr:\n${text}`);
      await new Promise<void>((r) => (wake = r));
    }
  };
  const listening = await waitForLine(/^zerodb listening on http:\/\/\S+$/);
  const url = listening.slice("zerodb listening on ".length);
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    return proc.exited;
  };
  return {
    url,
    pid: proc.pid,
    proc,
    stderr: () => text,
    waitForLine,
    stop,
    async [Symbol.asyncDispose]() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}

/** Creates a token for `tenant` in the store of `home` with the CLI; returns the secret. */
export async function createToken(home: string, tenant: string): Promise<string> {
  return (await createTokenWithId(home, tenant)).token;
}

/** Creates a token with the CLI; returns the secret and the id. */
export async function createTokenWithId(home: string, tenant: string): Promise<{ token: string; id: string }> {
  return runJson<{ token: string; id: string }>(["token", "create", "--tenant", tenant], { home });
}

/** The peak resident set of a process, in bytes (VmHWM of /proc/<pid>/status). */
export async function peakRss(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  if (!kb) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}
