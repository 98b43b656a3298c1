/**
 * Machines for the sync tests (DESIGN.md 16): each a home of its own (its
 * own data dir and store id) driving the built binary, and one real
 * `zerodb serve` on a loopback port that they sync through.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunResult, runJson, runZ } from "../helpers.ts";
import { createToken } from "../http/_server.ts";

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
