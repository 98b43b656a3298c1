/**
 * The capture checks of DESIGN.md 7.1 and 7.2: when capture is on, the six
 * Claude Code hooks are installed and run an existing zerodb; and Claude
 * Code's transcript retention (`cleanupPeriodDays`, default 30) does not
 * delete transcripts before they are captured.
 */
import { statSync } from "node:fs";
import { claudeSettingsPath, commandProgram, HOOK_EVENTS, isExecutable, parseJson, readHooks, readState, toValue } from "../harness/index.ts";
import { type Check, type DoctorContext, check, why } from "./types.ts";

/** Claude Code's default retention in days. */
const DEFAULT_RETENTION_DAYS = 30;
/** Shorter than this, a session left behind (hooks failing, capture off a while) is lost before anyone notices. */
const SHORT_RETENTION_DAYS = 7;
const DAY_MS = 86_400_000;

/** What Claude Code's settings say about capture. */
export interface CaptureState {
  /** Capture is on: config says so, or hooks are installed and config does not say no (the hook's own rule). */
  on: boolean;
  settingsPath: string;
  settings?: Record<string, unknown>;
  hooks: ReturnType<typeof readHooks>;
  /** Why the settings could not be read. */
  error?: string;
}

/** Reads Claude Code's settings.json and decides whether capture is on. */
export function captureState(ctx: DoctorContext): CaptureState {
  const settingsPath = claudeSettingsPath(ctx.harness);
  const explicit = ctx.config.file.capture?.enabled;
  try {
    const text = readState(settingsPath).text;
    const hooks = readHooks(text);
    const value = text === undefined || text.trim() === "" ? {} : (toValue(parseJson(text, { jsonc: false }).root) as Record<string, unknown>);
    return { on: explicit === true || (explicit !== false && hooks.length > 0), settingsPath, settings: value, hooks };
  } catch (err) {
    return { on: explicit === true, settingsPath, hooks: [], error: why(err) };
  }
}

/**
 * The hooks are installed for every event and run an existing zerodb. When
 * none is, but another harness's capture hook is (`others.hooked`), capture
 * is on through that harness: a pass without Claude Code, a warning with it.
 */
export function hooksCheck(state: CaptureState, others: { hooked: string[]; claudeInstalled: boolean } = { hooked: [], claudeInstalled: true }): Check {
  const fix = "zerodb connect --capture";
  if (state.error !== undefined) {
    return check("hooks", state.on ? "fail" : "warn", `cannot read ${state.settingsPath}: ${state.error}`, `fix the file by hand, then ${fix}`);
  }
  if (!state.on) {
    if (state.hooks.length > 0) {
      return check(
        "hooks",
        "warn",
        `capture.enabled is false, yet ${state.settingsPath} still runs zerodb's hooks (they capture nothing)`,
        "zerodb disconnect --harness claude-code (or zerodb connect --capture to turn capture on)",
      );
    }
    return check("hooks", "pass", "capture is off (zerodb connect --capture turns it on)");
  }
  const missing = HOOK_EVENTS.map((e) => e.event).filter((e) => !state.hooks.some((h) => h.event === e));
  if (state.hooks.length === 0 && others.hooked.length > 0) {
    // Capture is on through another harness's hook: Claude Code's are missing only if Claude Code is there to capture.
    const through = `capture runs through the ${others.hooked.join(", ")} hook(s)`;
    if (!others.claudeInstalled) return check("hooks", "pass", `Claude Code is not installed; ${through}`);
    return check(
      "hooks",
      "warn",
      `${through}, but ${state.settingsPath} has none of zerodb's hooks: Claude Code sessions are not captured`,
      "zerodb connect --capture --harness claude-code",
    );
  }
  if (missing.length > 0) return check("hooks", "fail", `capture is on but ${state.settingsPath} lacks the hook for ${missing.join(", ")}`, fix);
  const broken = [...new Set(state.hooks.map((h) => commandProgram(h.command) ?? h.command))].filter((p) => !isExecutable(p));
  if (broken.length > 0) return check("hooks", "fail", `the hooks run ${broken.join(", ")}, which does not exist or is not executable`, fix);
  return check("hooks", "pass", `${state.hooks.length} hooks in ${state.settingsPath} run ${commandProgram(state.hooks[0]!.command)}`);
}

/** A transcript `capture status` reports as behind. */
export interface Behind {
  transcript: string;
  lines_behind: number;
  /** The harness that wrote it (capture status's `harness`); Claude Code when absent. */
  harness?: string;
}

/**
 * Warns when Claude Code will delete transcripts before they are captured:
 * a very short retention, or transcripts behind capture that reach the
 * retention age within a day.
 */
export function retentionCheck(state: CaptureState, behind: Behind[] | { error: string }, now = Date.now()): Check {
  const raw = state.settings?.cleanupPeriodDays;
  const days = typeof raw === "number" && Number.isFinite(raw) ? raw : DEFAULT_RETENTION_DAYS;
  const setting =
    typeof raw === "number" ? `cleanupPeriodDays ${days} in ${state.settingsPath}` : `Claude Code's default retention (${DEFAULT_RETENTION_DAYS} days)`;
  const fixSetting = `set "cleanupPeriodDays": ${DEFAULT_RETENTION_DAYS} (or more) in ${state.settingsPath}, then zerodb capture sync`;
  if (days < SHORT_RETENTION_DAYS) {
    return check(
      "retention",
      "warn",
      `${setting}: Claude Code deletes transcripts after ${days} day(s), so a session capture falls behind on is lost before it is caught up`,
      fixSetting,
    );
  }
  if ("error" in behind) return check("retention", "pass", `${setting}; which transcripts are behind is unknown (${behind.error})`);
  // cleanupPeriodDays is Claude Code's: other harnesses' files follow their own rules (harness-hooks.ts).
  const atRisk = behind.filter((b) => {
    if (b.harness !== undefined && b.harness !== "claude-code") return false;
    try {
      return statSync(b.transcript).mtimeMs + days * DAY_MS - now < DAY_MS;
    } catch {
      return false;
    }
  });
  if (atRisk.length > 0) {
    const lines = atRisk.reduce((n, b) => n + b.lines_behind, 0);
    return check(
      "retention",
      "warn",
      `${atRisk.length} transcript(s) with ${lines} line(s) not yet captured reach ${days} days within a day and Claude Code will delete them`,
      "zerodb capture sync",
    );
  }
  return check("retention", "pass", `${setting}; no transcript behind capture is near deletion`);
}

/** Asks this zerodb's `capture status --json` which transcripts are behind. */
export async function captureBehind(ctx: DoctorContext): Promise<Behind[] | { error: string }> {
  try {
    const proc = Bun.spawn([ctx.self.command, ...ctx.self.prefix, "capture", "status", "--json", ...ctx.storeArgs], {
      env: { ...ctx.harness.env, ZERODB_HOME: ctx.config.home },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: 60_000,
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0) return { error: `capture status exited ${code}: ${err.trim().split("\n").at(-1) ?? ""}` };
    const rows = (JSON.parse(out) as { sessions?: { transcript?: unknown; lines_behind?: unknown; harness?: unknown }[] }).sessions ?? [];
    return rows.flatMap((r) =>
      typeof r.transcript === "string" && typeof r.lines_behind === "number" && r.lines_behind > 0
        ? [{ transcript: r.transcript, lines_behind: r.lines_behind, ...(typeof r.harness === "string" ? { harness: r.harness } : {}) }]
        : [],
    );
  } catch (err) {
    return { error: why(err) };
  }
}
