/** `zerodb` from source as another machine runs it (only HOME set), for the PostgreSQL CLI tests. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ZERODB_SRC } from "../../helpers.ts";

/** Runs `zerodb ARGS` from source with HOME=`home` and nothing else in the environment. */
export async function zerodb(home: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  mkdirSync(home, { recursive: true });
  const proc = Bun.spawn(["bun", ZERODB_SRC, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ZERODB_HOME: join(home, "zerodb") },
    cwd: home,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}

/** Runs a command with --json and parses its one document, failing on a non-zero exit. */
export async function json<T>(home: string, args: string[]): Promise<T> {
  const r = await zerodb(home, [...args, "--json"]);
  if (r.code !== 0) throw new Error(`zerodb ${args.join(" ")} exited ${r.code}: ${r.err}`);
  return JSON.parse(r.out) as T;
}
