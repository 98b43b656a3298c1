/**
 * The capture hooks of the other harnesses (DESIGN.md 14), when capture is
 * on and the harness is installed: Codex's notify in config.toml, Gemini
 * CLI's hooks in settings.json, opencode's plugin file; and Gemini chats behind capture, which
 * Gemini may delete itself (session retention, HARNESSES.md).
 */
import { join } from "node:path";
import {
  GEMINI_HOOKS,
  codexHome,
  commandProgram,
  harnessNamed,
  isExecutable,
  isZerodbNotify,
  opencodePluginPath,
  pluginArgv,
  readHooks,
  readState,
  readToml,
} from "../harness/index.ts";
import type { Behind } from "./capture-checks.ts";
import { type Check, type DoctorContext, check, why } from "./types.ts";

type Finding = { status: "pass" | "warn"; detail: string; fix?: string };

function codexFinding(ctx: DoctorContext): Finding | undefined {
  if (!harnessNamed("codex")!.installed(ctx.harness)) return undefined;
  const path = join(codexHome(ctx.harness), "config.toml");
  const fix = "zerodb connect --capture --harness codex";
  try {
    const notify = readToml(readState(path).text ?? "").notify;
    if (isZerodbNotify(notify)) {
      if (!isExecutable(notify[0]!)) return { status: "warn", detail: `Codex's notify runs ${notify[0]}, which does not exist or is not executable`, fix };
      return { status: "pass", detail: `Codex's notify in ${path} runs ${notify[0]}` };
    }
    if (notify !== undefined)
      return {
        status: "warn",
        detail: `Codex's notify in ${path} runs another program, so Codex threads are captured only by zerodb capture sync`,
        fix: "zerodb capture sync",
      };
    return { status: "warn", detail: `Codex is installed but ${path} has no zerodb notify: its threads are not captured as they happen`, fix };
  } catch (err) {
    return { status: "warn", detail: `cannot read ${path}: ${why(err)}`, fix: `fix the file by hand, then ${fix}` };
  }
}

function geminiFinding(ctx: DoctorContext, behind: Behind[]): Finding | undefined {
  const gemini = harnessNamed("gemini")!;
  if (!gemini.installed(ctx.harness)) return undefined;
  const path = gemini.configPath(ctx.harness)!;
  const fix = "zerodb connect --capture --harness gemini";
  try {
    const hooks = readHooks(readState(path).text, GEMINI_HOOKS);
    const missing = GEMINI_HOOKS.events.map((e) => e.event).filter((e) => !hooks.some((h) => h.event === e));
    if (missing.length > 0) return { status: "warn", detail: `Gemini CLI is installed but ${path} lacks zerodb's hook for ${missing.join(", ")}`, fix };
    const program = commandProgram(hooks[0]!.command) ?? hooks[0]!.command;
    if (!isExecutable(program)) return { status: "warn", detail: `Gemini CLI's hooks run ${program}, which does not exist or is not executable`, fix };
    const late = behind.filter((b) => b.harness === "gemini");
    if (late.length > 0)
      return {
        status: "warn",
        detail: `${late.length} Gemini CLI chat(s) are behind capture, and Gemini deletes old chats itself`,
        fix: "zerodb capture sync",
      };
    return { status: "pass", detail: `${hooks.length} Gemini CLI hooks in ${path} run ${program} (Gemini runs them in trusted folders only)` };
  } catch (err) {
    return { status: "warn", detail: `cannot read ${path}: ${why(err)}`, fix: `fix the file by hand, then ${fix}` };
  }
}

function opencodeFinding(ctx: DoctorContext): Finding | undefined {
  if (!harnessNamed("opencode")!.installed(ctx.harness)) return undefined;
  const path = opencodePluginPath(ctx.harness);
  const fix = "zerodb connect --capture --harness opencode";
  try {
    const text = readState(path).text;
    const argv = pluginArgv(text);
    if (text === undefined)
      return { status: "warn", detail: `opencode is installed but has no zerodb plugin (${path}): its sessions are not captured as they happen`, fix };
    if (argv === undefined)
      return {
        status: "warn",
        detail: `${path} is not zerodb's plugin, so opencode sessions are captured only by zerodb capture sync`,
        fix: "zerodb capture sync",
      };
    if (argv.length === 0 || !isExecutable(argv[0]!))
      return { status: "warn", detail: `opencode's zerodb plugin runs ${argv[0] ?? "nothing"}, which does not exist or is not executable`, fix };
    return { status: "pass", detail: `opencode's plugin ${path} runs ${argv[0]}` };
  } catch (err) {
    return { status: "warn", detail: `cannot read ${path}: ${why(err)}`, fix: `fix the file by hand, then ${fix}` };
  }
}

/** The harnesses besides Claude Code whose zerodb capture hook is installed (by their files, installed or not). */
export function otherCaptureHooks(ctx: DoctorContext): string[] {
  const out: string[] = [];
  const quietly = (fn: () => boolean) => {
    try {
      return fn();
    } catch {
      return false;
    }
  };
  if (quietly(() => isZerodbNotify(readToml(readState(join(codexHome(ctx.harness), "config.toml")).text ?? "").notify))) out.push("Codex");
  const gemini = harnessNamed("gemini")!.configPath(ctx.harness);
  if (gemini !== undefined && quietly(() => readHooks(readState(gemini).text, GEMINI_HOOKS).length > 0)) out.push("Gemini CLI");
  if (quietly(() => pluginArgv(readState(opencodePluginPath(ctx.harness)).text) !== undefined)) out.push("opencode");
  return out;
}

/** One check over the installed harnesses besides Claude Code, or none when none of Codex, Gemini CLI and opencode is installed. */
export function harnessHooksCheck(ctx: DoctorContext, behind: Behind[] | { error: string }): Check | undefined {
  const findings = [codexFinding(ctx), geminiFinding(ctx, "error" in behind ? [] : behind), opencodeFinding(ctx)].filter((f): f is Finding => f !== undefined);
  if (findings.length === 0) return undefined;
  const warn = findings.filter((f) => f.status === "warn");
  const fixes = [...new Set(warn.flatMap((f) => (f.fix ? [f.fix] : [])))];
  return check("harness hooks", warn.length > 0 ? "warn" : "pass", findings.map((f) => f.detail).join("; "), fixes.length > 0 ? fixes.join("; ") : undefined);
}
