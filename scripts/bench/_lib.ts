/** The bench framework: sections produce figures; bench.ts prints and saves them. */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** One measured figure: a median over repeated runs, with its spread. */
export interface Figure {
  /** Section-local name, e.g. "append durable single-entry". */
  name: string;
  /** The median. */
  value: number;
  unit: string;
  /** Min and max over the repeats (the spread). */
  min?: number;
  max?: number;
  runs?: number;
  /** A comparison measured in the same run: value / reference.value. */
  ratio?: { of: string; value: number; target?: string };
  note?: string;
}

/** What a section is handed. */
export interface BenchContext {
  quick: boolean;
  /** The compiled binary (built before the sections run). */
  bin: string;
  /** A scratch directory for this section, removed afterwards. */
  tmp: string;
  /** Figures of earlier sections (the machine's limits come first). */
  figures: Map<string, Figure>;
  log(line: string): void;
}

/** A bench section. */
export interface Section {
  name: string;
  /** Runs only when named in --only (it needs minutes or a server of its own). */
  optIn?: boolean;
  run(ctx: BenchContext): Promise<Figure[]>;
}

/** The median of numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The p-th percentile (0..100) of numbers, nearest rank. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** A figure from repeated samples: the median, with min and max as the spread. */
export function summarize(name: string, samples: number[], unit: string, extra: Partial<Figure> = {}): Figure {
  return { name, value: median(samples), unit, min: Math.min(...samples), max: Math.max(...samples), runs: samples.length, ...extra };
}

/** Runs `fn` `n` times and returns each run's result. */
export async function repeat<T>(n: number, fn: (i: number) => Promise<T> | T): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await fn(i));
  return out;
}

/** A fresh scratch directory. */
export function scratch(parent: string, name: string): string {
  return mkdtempSync(join(parent, `${name}-`));
}

/** The config.json `zerodb connect --capture` leaves, which every hook run of a connected home reads. */
export const CAPTURE_CONFIG = { capture: { enabled: true } };

/** Gives `home` the zerodb home a hook finds after `zerodb connect --capture`: its config.json (and the home, private). */
export function connectedHome(home: string, extra: Record<string, unknown> = {}): void {
  mkdirSync(join(home, "zerodb"), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, "zerodb", "config.json"), JSON.stringify({ ...CAPTURE_CONFIG, ...extra }), { mode: 0o600 });
}

/** Removes a directory tree. */
export function remove(path: string): void {
  rmSync(path, { recursive: true, force: true });
}

/** The project root. */
export const ROOT = resolve(import.meta.dir, "..", "..");

/** A new scratch dir under the system temp dir. */
export function tmp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Rate (per second) from a count and milliseconds. */
export function perSecond(count: number, ms: number): number {
  return ms > 0 ? (count * 1000) / ms : 0;
}

/** Each sample's ratio to its own reference, measured back to back so background load hits both alike. */
export async function pairedRatios(
  n: number,
  sample: () => Promise<number> | number,
  reference: () => Promise<number> | number,
): Promise<{ values: number[]; references: number[]; ratios: number[] }> {
  const values: number[] = [];
  const references: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await reference();
    const v = await sample();
    references.push(r);
    values.push(v);
    ratios.push(v / r);
  }
  return { values, references, ratios };
}

/** Peak resident set (VmHWM) of a live process, in MiB; undefined where /proc has no such process. */
export function peakRssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes a directory tree occupies on disk (allocated blocks, as `du` counts them). */
export function diskBytes(path: string): number {
  const st = lstatSync(path);
  if (!st.isDirectory()) return st.blocks * 512;
  let total = st.blocks * 512;
  for (const name of readdirSync(path)) total += diskBytes(join(path, name));
  return total;
}

/** A ratio figure helper. */
export function ratio(of: string, value: number, reference: number | undefined, target?: string): Figure["ratio"] | undefined {
  if (reference === undefined || reference === 0) return undefined;
  return { of, value: value / reference, ...(target ? { target } : {}) };
}

/** Milliseconds from spawn to exit of a command; a non-zero exit is an error. */
export async function spawnMs(cmd: string[]): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { stdout: "ignore", stderr: "ignore" });
  const code = await p.exited;
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}`);
  return performance.now() - t0;
}

/**
 * Starts `zerodb serve --port 0 ARGS` with `env` and resolves once it says
 * where it listens; its per-request log is drained so the pipe never fills
 * and stalls the server. `stop` ends it (SIGTERM) and waits.
 */
export async function startServeProcess(bin: string, args: string[], env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const proc = Bun.spawn([bin, "serve", "--port", "0", ...args], { env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let url: string | undefined;
  while (url === undefined) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`zerodb serve ended: ${text}`);
    text += decoder.decode(value, { stream: true });
    url = /zerodb listening on (http:\/\/\S+)\n/.exec(text)?.[1];
  }
  const drained = (async () => {
    while (!(await reader.read()).done);
  })();
  return {
    url,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
      await drained;
    },
  };
}
