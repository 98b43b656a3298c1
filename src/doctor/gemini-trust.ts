/**
 * Gemini CLI's folder trust (HARNESSES.md, MCP registration): with folder
 * trust on, the default, Gemini CLI disables every MCP server in a folder
 * that is not trusted, so zerodb shows as `Disabled` there although its
 * registration is fine. Mirrors Gemini CLI 0.61's checkPathTrust: the
 * GEMINI_CLI_TRUST_WORKSPACE and GEMINI_RESTRICTED_MODE variables, then
 * `security.folderTrust.enabled`, then the longest matching rule of
 * trustedFolders.json (TRUST_PARENT trusts the rule path's parent).
 */
import { readFileSync, realpathSync } from "node:fs";
import { dirname, join, relative, isAbsolute } from "node:path";
import { parseJson, toValue } from "../harness/jsonc.ts";
import { type Check, check } from "./types.ts";

/** Whether Gemini CLI trusts a folder, and why. */
export interface GeminiTrust {
  trusted: boolean | undefined;
  why: string;
  /** The trustedFolders.json Gemini CLI reads. */
  file: string;
}

function readJson(path: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const v = toValue(parseJson(text, { jsonc: true }).root);
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function inside(parent: string, child: string): boolean {
  const r = relative(parent, child);
  return r === "" || (!r.startsWith("..") && !isAbsolute(r));
}

/** How Gemini CLI, configured by `settingsPath`, judges `folder`. Throws on a malformed file. */
export function geminiTrust(settingsPath: string, folder: string, env: Record<string, string | undefined>): GeminiTrust {
  const file = env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || join(dirname(settingsPath), "trustedFolders.json");
  if (env.GEMINI_RESTRICTED_MODE === "true" || env.GEMINI_CLI_TRUST_WORKSPACE === "false")
    return { trusted: false, why: "the environment (GEMINI_RESTRICTED_MODE or GEMINI_CLI_TRUST_WORKSPACE) says not to trust it", file };
  if (env.GEMINI_CLI_TRUST_WORKSPACE === "true") return { trusted: true, why: "GEMINI_CLI_TRUST_WORKSPACE=true", file };
  const security = readJson(settingsPath)?.security as { folderTrust?: { enabled?: unknown } } | undefined;
  if (security?.folderTrust?.enabled === false) return { trusted: true, why: "folder trust is off in its settings", file };
  const rules = readJson(file) ?? {};
  const target = real(folder);
  let best: { path: string; level: string } | undefined;
  for (const [path, level] of Object.entries(rules)) {
    const effective = level === "TRUST_PARENT" ? dirname(path) : path;
    if (inside(real(effective), target) && (best === undefined || path.length > best.path.length)) best = { path, level: String(level) };
  }
  if (best?.level === "DO_NOT_TRUST") return { trusted: false, why: `${file} says DO_NOT_TRUST for ${best.path}`, file };
  if (best?.level === "TRUST_FOLDER" || best?.level === "TRUST_PARENT") return { trusted: true, why: `${file} trusts ${best.path} (${best.level})`, file };
  return { trusted: undefined, why: `no rule in ${file} covers it, so Gemini CLI asks and keeps MCP servers off until it is trusted`, file };
}

/** A warning when Gemini CLI would show zerodb as Disabled in `folder`; undefined when it is trusted. */
export function geminiTrustCheck(settingsPath: string, folder: string, env: Record<string, string | undefined>): Check | undefined {
  let t: GeminiTrust;
  try {
    t = geminiTrust(settingsPath, folder, env);
  } catch (err) {
    return check(
      "gemini trust",
      "warn",
      `cannot read Gemini CLI's trust settings: ${(err as Error).message}`,
      `fix the JSON of ${join(dirname(settingsPath), "trustedFolders.json")} by hand`,
    );
  }
  if (t.trusted === true) return undefined;
  const fix = `trust the folder when Gemini CLI asks (or run /permissions in it), or add "${folder}": "TRUST_FOLDER" to ${t.file}`;
  return check("gemini trust", "warn", `Gemini CLI disables zerodb (shows it as Disabled) in ${folder}: ${t.why}`, fix);
}
