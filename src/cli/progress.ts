/** Progress for long work on a TTY (DESIGN.md 6.3): one self-overwriting stderr line, nothing when piped or with --quiet. */
import { NORMAL, verbosity } from "./verbosity.ts";

const MiB = 1024 * 1024;

/** A progress reporter; `done()` clears the line. */
export interface Progress {
  update(bytes: number): void;
  done(): void;
}

/** Reports bytes of `total` on stderr when it is a TTY and the work is large enough to wait for. */
export function byteProgress(label: string, total: number | undefined, opts: { minBytes?: number } = {}): Progress {
  const show = process.stderr.isTTY === true && verbosity() >= NORMAL && (total === undefined || total >= (opts.minBytes ?? 64 * MiB));
  if (!show) return { update() {}, done() {} };
  let last = 0;
  let shown = false;
  return {
    update(bytes) {
      const now = performance.now();
      if (now - last < 200) return;
      last = now;
      shown = true;
      const of = total ? ` / ${(total / MiB).toFixed(0)} MiB (${((bytes / total) * 100).toFixed(0)}%)` : " MiB";
      process.stderr.write(`\r${label} ${(bytes / MiB).toFixed(0)}${of}\u001b[K`);
    },
    done() {
      if (shown) process.stderr.write("\r\u001b[K");
    },
  };
}

/**
 * Reports records done of a total on stderr when it is a TTY (a migration
 * rebuilding the search index). Whether it is one is asked at the first
 * report, not before: `process.stderr` costs a process about 8 ms to create,
 * which every store open (a capture hook's included) would otherwise pay.
 */
export function countProgress(): (what: string, done: number, total: number) => void {
  let show: boolean | undefined;
  let last = 0;
  return (what, done, total) => {
    show ??= process.stderr.isTTY === true && verbosity() >= NORMAL;
    if (!show) return;
    const now = performance.now();
    if (done < total && now - last < 200) return;
    last = now;
    const line = `zerodb: ${what}: ${done.toLocaleString("en-US")} / ${total.toLocaleString("en-US")} records`;
    process.stderr.write(done >= total ? `\r${line}\u001b[K\n` : `\r${line}\u001b[K`);
  };
}
