/**
 * The smoke test's world: an empty temporary home (HOME, ZERODB_HOME and the
 * XDG dirs all inside it) and a PATH that holds only the binary under test,
 * so a step passes only if the binary needs no Node.js, no Bun and no file
 * of the source tree (DESIGN.md section 10). Uses only Bun and node: built-ins:
 * the smoke must run from a bare checkout, without node_modules.
 */
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";

/** What a finished command printed and returned. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** A failed expectation inside a step: its message is the `why` of `FAIL <step>: <why>`. */
export class StepFailure extends Error {}

/** Fails the current step with `why` unless `ok`. */
export function expect(ok: unknown, why: string): asserts ok {
  if (!ok) throw new StepFailure(why);
}

/** The sandbox the steps run in. */
export interface Sandbox {
  /** The binary under test, absolute. */
  bin: string;
  /** The temporary root; everything the smoke writes lives under it. */
  root: string;
  home: string;
  zerodbHome: string;
  /** An empty project directory, the working directory of every command. */
  project: string;
  env: Record<string, string>;
  /** Runs the binary to completion (killed after `timeoutMs`). */
  run(args: string[], opts?: { stdin?: string; timeoutMs?: number; cwd?: string }): Promise<Ran>;
  /** Starts the binary and leaves it running; it is killed on dispose if still alive. */
  spawn(args: string[], opts?: { cwd?: string }): Subprocess<"pipe", "pipe", "pipe">;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A per-command limit: generous on a loaded 2-core machine, short enough that a hang fails the step. */
export const COMMAND_TIMEOUT_MS = 30_000;

/** Builds the sandbox for `binary`; throws StepFailure when it cannot be made clean. */
export function createSandbox(binary: string, opts: { keep?: boolean } = {}): Sandbox {
  const bin = resolve(binary);
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new StepFailure(`${bin} is not an executable file`);
  }
  const root = mkdtempSync(join(tmpdir(), "zerodb-smoke-"));
  const home = join(root, "home");
  const pathDir = join(root, "bin");
  const project = join(root, "work", "smoke-project");
  const tmp = join(root, "tmp");
  for (const d of [home, pathDir, project, tmp]) mkdirSync(d, { recursive: true, mode: 0o700 });
  // The only command on PATH is the binary itself (as `zerodb`, the name connect registers).
  symlinkSync(bin, join(pathDir, process.platform === "win32" ? "zerodb.exe" : "zerodb"));
  const zerodbHome = join(home, ".local", "share", "zerodb");
  const env: Record<string, string> = {
    PATH: pathDir,
    HOME: home,
    USERPROFILE: home,
    ZERODB_HOME: zerodbHome,
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    TMPDIR: tmp,
    LANG: "C.UTF-8",
  };
  for (const tool of ["node", "bun"]) {
    const found = Bun.which(tool, { PATH: env.PATH });
    if (found) throw new StepFailure(`${tool} is on the smoke PATH (${found})`);
  }

  const children = new Set<Subprocess>();
  const sandbox: Sandbox = {
    bin,
    root,
    home,
    zerodbHome,
    project,
    env,
    async run(args, o = {}) {
      const proc = Bun.spawn([bin, ...args], {
        cwd: o.cwd ?? project,
        env,
        stdin: o.stdin === undefined ? "ignore" : new Blob([o.stdin]),
        stdout: "pipe",
        stderr: "pipe",
        timeout: o.timeoutMs ?? COMMAND_TIMEOUT_MS,
        killSignal: "SIGKILL",
      });
      children.add(proc);
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      children.delete(proc);
      return { code: proc.signalCode ? null : code, stdout, stderr, timedOut: proc.signalCode === "SIGKILL" };
    },
    spawn(args, o = {}) {
      const proc = Bun.spawn([bin, ...args], { cwd: o.cwd ?? project, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
      children.add(proc);
      proc.exited.then(() => children.delete(proc));
      return proc;
    },
    async [Symbol.asyncDispose]() {
      for (const c of children) c.kill("SIGKILL");
      await Promise.all([...children].map((c) => c.exited));
      if (!opts.keep) rmSync(root, { recursive: true, force: true });
    },
  };
  return sandbox;
}

/** Resolves to `promise`'s value, or to "timeout" after `ms` (the timer is cleared either way). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: Timer | undefined;
  const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A one-line account of a finished command, for a FAIL line. */
export function describe(args: string[], r: Ran): string {
  const what = r.timedOut ? `timed out after ${COMMAND_TIMEOUT_MS / 1000} s` : `exited ${r.code}`;
  const err = r.stderr.trim().split("\n")[0] ?? "";
  return `zerodb ${args.join(" ")} ${what}${err ? `: ${err}` : ""}`;
}

/** Runs a command with --json that must succeed and print one JSON document; returns it parsed. */
export async function runJson<T = any>(sb: Sandbox, cmd: string[], opts?: { stdin?: string }): Promise<T> {
  const args = [...cmd, "--json"];
  const r = await sb.run(args, opts);
  expect(r.code === 0, describe(args, r));
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new StepFailure(`zerodb ${args.join(" ")} printed no single JSON document: ${JSON.stringify(r.stdout.slice(0, 200))}`);
  }
}
