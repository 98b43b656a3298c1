/**
 * The one interface every harness sits behind (DESIGN.md 7.1): where its
 * user-level MCP config lives, whether it is installed, and pure functions
 * from a config file's text to the text with zerodb added or removed.
 * Reading and writing the file is apply.ts's job, not the harness's.
 */

/** What the environment looks like to detection: no process globals below the CLI. */
export interface HarnessContext {
  /** The user's home directory ($HOME, or %USERPROFILE%). */
  userHome: string;
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  /** The directory a relative path in `env` is taken from; the process's when absent. */
  cwd?: string;
}

/** The MCP server zerodb registers: `command args...` with extra environment. */
export interface ServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** What a harness config holds about zerodb. */
export interface Registration {
  /** The executable the harness will start. */
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Carries zerodb's marker (env ZERODB_MANAGED=1), so disconnect may remove it. */
  managed: boolean;
}

/** The result of planning an edit: the new text, or the reason nothing changes. */
export type Plan = { change: "added" | "updated" | "removed"; text: string } | { change: "unchanged" | "absent" } | { change: "foreign"; detail: string };

/** One harness: Claude Code, Codex, Gemini CLI, Cursor, VS Code, Windsurf, opencode, Claude Desktop. */
export interface Harness {
  /** The name `--harness` takes. */
  readonly name: string;
  /** The name people know it by. */
  readonly label: string;
  /** The user-level config file, or undefined when the harness does not exist on this platform. */
  configPath(ctx: HarnessContext): string | undefined;
  /** True when its config dir exists or its binary is on PATH. */
  installed(ctx: HarnessContext): boolean;
  /**
   * A reason the config cannot be written even though the harness was asked
   * for (Codex refuses a missing $CODEX_HOME), or undefined.
   */
  blocked?(ctx: HarnessContext): string | undefined;
  /** Plans registering `spec`; `text` is undefined when the file does not exist. Throws on a malformed file. */
  planAdd(text: string | undefined, spec: ServerSpec): Plan;
  /** Plans removing zerodb's managed entry. Throws on a malformed file. */
  planRemove(text: string | undefined): Plan;
  /** What the config registers under the name zerodb, if anything. Throws on a malformed file. */
  registration(text: string | undefined): Registration | undefined;
  /** True when two texts of this config hold the same settings (lets disconnect restore the backup byte for byte). */
  sameSettings(a: string, b: string): boolean;
}

/** The server name zerodb registers under in every harness. */
export const SERVER_NAME = "zerodb";

/** The env marker that makes an entry zerodb's to update and remove. */
export const MANAGED_ENV = "ZERODB_MANAGED";
