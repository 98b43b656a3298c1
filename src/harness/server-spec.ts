/**
 * What connect registers: the absolute path of the running zerodb (DESIGN.md
 * 7.1), `mcp` as its argument, and the environment the server needs to find
 * the same home from inside any harness.
 */
import { HOOK_SUFFIX } from "./claude-hooks.ts";
import { MANAGED_ENV, type ServerSpec } from "./types.ts";

/** How to start this zerodb: the compiled binary itself, or bun with the source entry in development. */
export interface SelfCommand {
  command: string;
  /** Arguments before the zerodb command words (the source entry when not compiled). */
  prefix: string[];
}

/** The running zerodb, as an absolute command. */
export function selfCommand(execPath: string, main: string): SelfCommand {
  // A compiled binary's entry lives in Bun's embedded file system (/$bunfs/ or B:/~BUN/).
  const compiled = main.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(main);
  return compiled ? { command: execPath, prefix: [] } : { command: execPath, prefix: [main] };
}

/**
 * The MCP server entry. ZERODB_HOME is always set: Codex forwards only an
 * allow-list of the environment, and a home found through XDG_DATA_HOME in
 * this shell would otherwise differ inside the harness.
 */
export function serverSpec(
  self: SelfCommand,
  opts: { home: string; dataDir?: string; configFile?: string; remote?: { url: string; tenant?: string; tokenFile?: string } },
): ServerSpec {
  const env: Record<string, string> = { [MANAGED_ENV]: "1", ZERODB_HOME: opts.home };
  if (opts.dataDir !== undefined) env.ZERODB_DATA_DIR = opts.dataDir;
  const args = [...self.prefix, "mcp", ...(opts.configFile !== undefined ? ["--config", opts.configFile] : [])];
  // Remote mode as flags: a token travels only as the path of its file, never as a secret in a harness config.
  const r = opts.remote;
  if (r) args.push("--url", r.url, ...(r.tenant !== undefined ? ["--tenant", r.tenant] : []), ...(r.tokenFile !== undefined ? ["--token-file", r.tokenFile] : []));
  return { command: self.command, args, env };
}

/** Quotes a word for the shell Claude Code runs hook commands with. */
export function shellQuote(word: string, platform: NodeJS.Platform): string {
  if (/^[A-Za-z0-9_/.:@%+=,-]+$/.test(word)) return word;
  if (platform === "win32") return `"${word.replaceAll('"', '""')}"`;
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The hook command line, `ZERODB_HOME=<home> <abs zerodb> hook claude-code`:
 * the home is pinned as for the MCP entries, through the environment so the
 * hook command's own flags do not matter. Windows shells lack `VAR=x cmd`,
 * so there the home goes in as `--home`.
 */
export function hookCommand(self: SelfCommand, opts: { home: string; platform: NodeJS.Platform }): string {
  const q = (w: string) => shellQuote(w, opts.platform);
  const exe = [self.command, ...self.prefix].map(q).join(" ");
  if (opts.platform === "win32") return `${exe} --home ${q(opts.home)} ${HOOK_SUFFIX}`;
  return `ZERODB_HOME=${q(opts.home)} ${exe} ${HOOK_SUFFIX}`;
}

/** Splits a POSIX shell command line into words ('single', "double" and backslash quoting). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      cur = (cur ?? "") + line.slice(i + 1, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      let j = i + 1;
      let s = "";
      for (; j < line.length && line[j] !== '"'; j++) s += line[j] === "\\" && /["\\$`]/.test(line[j + 1] ?? "") ? line[++j] : line[j];
      cur = (cur ?? "") + s;
      i = j;
    } else if (c === "\\" && i + 1 < line.length) cur = (cur ?? "") + line[++i];
    else if (/\s/.test(c)) {
      if (cur !== undefined) words.push(cur);
      cur = undefined;
    } else cur = (cur ?? "") + c;
  }
  if (cur !== undefined) words.push(cur);
  return words;
}

/** The program a hook command line runs: its first word after any `VAR=value` assignments. */
export function commandProgram(line: string): string | undefined {
  return shellWords(line).find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
}
