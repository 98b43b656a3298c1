/**
 * Running the built binary under a permissive umask (000), so a file or
 * directory zerodb leaves to the umask shows up group- and world-readable:
 * modes must be set explicitly (DESIGN.md section 2 and 9; the umask is not
 * trusted). Also: listing every path under a directory with its mode.
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ZERODB, type RunResult } from "../helpers.ts";

/** argv that runs the binary with umask 000. */
export function underUmask0(args: string[]): string[] {
  return ["/bin/sh", "-c", 'umask 000 && exec "$@"', "sh", ZERODB, ...args];
}

/** The environment of a run: HOME and ZERODB_HOME inside `home`. */
export function envOf(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb"), ...extra };
}

/** Runs the binary under umask 000. */
export async function runUmask0(args: string[], opts: { home: string; stdin?: string; env?: Record<string, string>; cwd?: string }): Promise<RunResult> {
  const proc = Bun.spawn(underUmask0(args), {
    cwd: opts.cwd ?? opts.home,
    env: envOf(opts.home, opts.env),
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** `zerodb mcp` under umask 000 with an SDK client. */
export async function mcpUmask0(opts: {
  home: string;
  cwd: string;
  env?: Record<string, string>;
}): Promise<{ client: Client; stderr(): string } & AsyncDisposable> {
  const [command, ...args] = underUmask0(["mcp"]);
  const transport = new StdioClientTransport({ command: command!, args, env: envOf(opts.home, opts.env), cwd: opts.cwd, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  const client = new Client({ name: "zerodb-security-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, [Symbol.asyncDispose]: () => client.close() };
}

/** Every path under `dir` (itself included as "."), with its permission bits. */
export function modes(dir: string): Record<string, { dir: boolean; mode: string }> {
  const out: Record<string, { dir: boolean; mode: string }> = {};
  const walk = (p: string) => {
    const st = statSync(p);
    out[relative(dir, p) || "."] = { dir: st.isDirectory(), mode: (st.mode & 0o777).toString(8).padStart(4, "0") };
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
  };
  walk(dir);
  return out;
}

/** Paths under `dir` whose mode is not private: 0700 for directories, 0600 for files. */
export function notPrivate(dir: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(modes(dir))
      .filter(([, m]) => m.mode !== (m.dir ? "0700" : "0600"))
      .map(([p, m]) => [p, m.mode]),
  );
}
