/**
 * connect / disconnect (DESIGN.md 7.1): for each harness, read its config,
 * plan the change, and write it (or, with --dry-run, show the diff). Every
 * outcome is reported per file: added, already there, updated, removed,
 * skipped (and why), failed (and why). A file that cannot be parsed is
 * reported and never written.
 */
import { rmdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { BACKUP_SUFFIX, ChangedUnderfootError, readBackup, readState, writeState } from "./apply.ts";
import { unifiedDiff } from "./diff.ts";
import type { Harness, HarnessContext, Plan, ServerSpec } from "./types.ts";

/** What happened to one file. */
export type Status = "added" | "unchanged" | "updated" | "removed" | "absent" | "skipped" | "failed";

/** One line of connect's or disconnect's report. */
export interface Outcome {
  /** The harness name, or `zerodb` for zerodb's own config.json. */
  target: string;
  /** What was edited: the MCP registration, Claude Code's hooks, or zerodb's config. */
  what: "mcp" | "hooks" | "config";
  label: string;
  path?: string;
  status: Status;
  detail?: string;
  /** With --dry-run: the unified diff of the change. */
  diff?: string;
}

/** One file edit to carry out. */
export interface FileJob {
  target: string;
  what: Outcome["what"];
  label: string;
  path: string;
  plan: (text: string | undefined) => Plan;
  /** Compares two texts by their settings, so a removal can restore the backup byte for byte. */
  sameSettings?: (a: string, b: string) => boolean;
  /**
   * The job's own backup suffix, for a second job on a file another job edits
   * (Codex's notify beside its MCP table): each backup then holds the bytes
   * before its own job's change, so undoing the jobs in reverse order gives
   * back the file's bytes.
   */
  backupSuffix?: string;
  /** Said beside a change that was made (a harness written although not detected). */
  note?: string;
  /** The file is zerodb's whole (opencode's plugin): removing it deletes the file. */
  wholeFile?: true;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** How often a file that changed under us is read and planned again (Claude Code rewrites its file often). */
const ATTEMPTS = 3;

/** Plans and (unless `dryRun`) writes one file; never throws. */
export function runJob(job: FileJob, dryRun: boolean): Outcome {
  for (let attempt = 1; ; attempt++) {
    const out = attemptJob(job, dryRun);
    if (out !== "changed") return out;
    if (attempt === ATTEMPTS) {
      return { target: job.target, what: job.what, label: job.label, path: job.path, status: "failed", detail: new ChangedUnderfootError(job.path).message };
    }
  }
}

function attemptJob(job: FileJob, dryRun: boolean): Outcome | "changed" {
  const base = { target: job.target, what: job.what, label: job.label, path: job.path };
  let state;
  try {
    state = readState(job.path);
  } catch (err) {
    return { ...base, status: "failed", detail: `cannot read ${job.path}: ${message(err)}; left untouched` };
  }
  let plan: Plan;
  try {
    plan = job.plan(state.text);
  } catch (err) {
    return { ...base, status: "failed", detail: `${job.path} is malformed (${message(err)}); left untouched` };
  }
  if (plan.change === "foreign") return { ...base, status: "skipped", detail: plan.detail };
  if (!("text" in plan)) return { ...base, status: plan.change };
  let text: string | undefined = plan.text;
  if (plan.change === "removed" && job.wholeFile) text = undefined;
  else if (plan.change === "removed" && job.sameSettings) {
    // Nothing else changed since connect: put the file back exactly as it was
    // (an empty backup: there was no file, so it goes).
    const backup = readBackup(state, job.backupSuffix);
    if (backup !== undefined && job.sameSettings(backup, text)) text = backup === "" ? undefined : backup;
  }
  if (dryRun)
    return {
      ...base,
      status: plan.change,
      diff: unifiedDiff(state.text ?? "", text ?? "", { from: job.path, to: text === undefined ? "/dev/null" : job.path }),
    };
  try {
    writeState(state, text, job.backupSuffix);
  } catch (err) {
    if (err instanceof ChangedUnderfootError) return "changed";
    return { ...base, status: "failed", detail: `cannot write ${job.path}: ${message(err)}` };
  }
  if (job.wholeFile && text === undefined) removeLeftovers(state.real, job.backupSuffix ?? BACKUP_SUFFIX);
  return { ...base, status: plan.change, ...(job.note ? { detail: job.note } : {}) };
}

/**
 * After a file zerodb owned whole is deleted: its backup (which holds only
 * zerodb's own bytes) and the folder connect made for it, when empty, so the
 * harness's config folder is as it was before connect.
 */
function removeLeftovers(path: string, suffix: string): void {
  rmSync(path + suffix, { force: true });
  try {
    rmdirSync(dirname(path));
  } catch {
    // Not empty (the user's own plugins live there too): it stays.
  }
}

/** Which harnesses to act on: the named ones, or every installed one. */
export interface Selection {
  ctx: HarnessContext;
  harnesses: readonly Harness[];
  /** True when the user named them (--harness): they are acted on even when not detected. */
  explicit: boolean;
}

/** The jobs (or skips) for registering or removing the MCP server in each selected harness. */
export function mcpJobs(sel: Selection, spec: ServerSpec | undefined): (FileJob | Outcome)[] {
  return sel.harnesses.map((h): FileJob | Outcome => {
    const path = h.configPath(sel.ctx);
    const base = { target: h.name, what: "mcp" as const, label: h.label };
    if (path === undefined) return { ...base, status: "skipped", detail: `${h.label} has no config on ${sel.ctx.platform}` };
    const installed = h.installed(sel.ctx);
    if (!sel.explicit && !installed) return { ...base, path, status: "skipped", detail: "not installed" };
    const blocked = spec ? h.blocked?.(sel.ctx) : undefined;
    if (blocked) return { ...base, path, status: "failed", detail: blocked };
    return {
      ...base,
      path,
      plan: spec ? (text) => h.planAdd(text, spec) : (text) => h.planRemove(text),
      sameSettings: (a, b) => h.sameSettings(a, b),
      ...(spec && !installed ? { note: `${h.label} was not detected; registered because --harness named it` } : {}),
    };
  });
}

/** Runs jobs in order, passing skips through. */
export function runJobs(jobs: (FileJob | Outcome)[], dryRun: boolean): Outcome[] {
  return jobs.map((j) => ("plan" in j ? runJob(j, dryRun) : j));
}
