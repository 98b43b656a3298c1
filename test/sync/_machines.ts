/**
 * Machines for the sync tests (DESIGN.md 16): each a home of its own (its
 * own data dir and store id) driving the built binary, and one real
 * `zerodb serve` on a loopback port that they sync through.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunResult, runJson, runZ } from "../helpers.ts";
import { type ServerProcess, createToken, startServer } from "../http/_server.ts";

/** A machine: a home, and the binary run in it. */
export interface Machine {
  home: string;
  run(args: string[], opts?: { stdin?: string }): Promise<RunResult>;
  json<T = any>(args: string[]): Promise<T>;
  /** `zerodb sync --url URL --token-file F --json`, checked to succeed. */
  sync(url: string, tokenFile: string): Promise<{ pushed: number; pulled: number; [k: string]: unknown }>;
  /** Every turn of every session of the local tenant, as `session: content` lines in each session's order. */
  turns(): Promise<Record<string, string[]>>;
}

/** A machine in `dir/name`. */
export function machine(dir: string, name: string): Machine {
  const home = join(dir, name);
  mkdirSync(home, { recursive: true });
  const run = (args: string[], opts: { stdin?: string } = {}) => runZ(args, { home, ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}) });
  const json = <T>(args: string[]) => runJson<T>(args, { home });
  return {
    home,
    run,
    json,
    sync: (url, tokenFile) => json(["sync", "--url", url, "--token-file", tokenFile]),
    turns: async () => {
      // One export, not a read per session: the local tenant's live turns in LSN order.
      const r = await run(["export", "--tenant", "local"]);
      if (r.code !== 0) throw new Error(`zerodb export exited ${r.code}: ${r.stderr}`);
      const out: Record<string, string[]> = {};
      for (const line of r.stdout.split("\n")) {
        if (line === "") continue;
        const rec = JSON.parse(line) as { kind: string; session?: string; content?: string; forgotten_by?: number };
        if (rec.kind !== "turn" || rec.forgotten_by !== undefined) continue;
        (out[rec.session!] ??= []).push(rec.content!);
      }
      return out;
    },
  };
}

/** A token for `tenant` of the server whose home is `serverHome`, written to a private file; its path. */
export async function tokenFile(serverHome: string, tenant: string, path: string): Promise<string> {
  mkdirSync(serverHome, { recursive: true });
  const token = await createToken(serverHome, tenant);
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** A team server: a real `zerodb serve` with its home in `dir/server`, and a token file for `tenant` (`tok`). */
export async function teamServer(dir: string, tenant = "team"): Promise<ServerProcess & { home: string; tok: string }> {
  const home = join(dir, "server");
  const tok = await tokenFile(home, tenant, join(dir, `${tenant}.token`));
  const server = await startServer(home);
  return Object.assign(server, { home, tok });
}

/**
 * A loopback proxy in front of `target`; `url` is what a machine syncs with.
 * It counts the body bytes each way (`sent`, `received`), and `wire` counts
 * everything the requests and responses carried: request and status lines,
 * headers and bodies (what the sync bench reports as bytes over the wire).
 */
export function countingProxy(target: string): { url: string; sent(): number; received(): number; wire(): number; stop(): void } {
  let sent = 0;
  let received = 0;
  let wire = 0;
  const headerBytes = (h: Headers) => {
    let n = 0;
    h.forEach((v, k) => {
      n += k.length + v.length + 4;
    });
    return n;
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    maxRequestBodySize: 64 * 2 ** 20,
    async fetch(req) {
      const url = new URL(req.url);
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      sent += body?.byteLength ?? 0;
      wire += req.method.length + url.pathname.length + url.search.length + 12 + headerBytes(req.headers) + (body?.byteLength ?? 0);
      const headers = new Headers(req.headers);
      headers.delete("host");
      const res = await fetch(`${target}${url.pathname}${url.search}`, { method: req.method, headers, ...(body ? { body } : {}) });
      const out = await res.arrayBuffer();
      received += out.byteLength;
      wire += 17 + headerBytes(res.headers) + out.byteLength;
      const back = new Headers(res.headers);
      // fetch decoded the body: the machine gets it as the proxy read it.
      back.delete("content-encoding");
      if (req.method !== "HEAD") back.delete("content-length");
      return new Response(req.method === "HEAD" ? null : out, { status: res.status, headers: back });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, sent: () => sent, received: () => received, wire: () => wire, stop: () => server.stop(true) };
}

/** `n` bytes (ASCII) starting with `word`, then characters JSON escapes: quotes, backslashes, control characters (\u0000 is six bytes as JSON). */
export function escapeHeavy(n: number, word: string): string {
  const unit = '"\\\u0000\u0001\u001f\u0007\t';
  return (word + unit.repeat(Math.ceil(n / unit.length))).slice(0, n);
}
