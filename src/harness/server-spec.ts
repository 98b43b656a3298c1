/**
 * What connect registers: the MCP server entry (the absolute path of the
 * running zerodb, DESIGN.md 7.1, `mcp` as its argument, and the environment
 * the server needs to find the same home from inside any harness) and the
 * capture hook's command line.
 */
import { HOOK_SUFFIX } from "./claude-hooks.ts";
import type { SelfCommand } from "./self.ts";
import { shellQuote } from "./shell.ts";
import { MANAGED_ENV, type ServerSpec } from "./types.ts";

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
  if (r)
    args.push("--url", r.url, ...(r.tenant !== undefined ? ["--tenant", r.tenant] : []), ...(r.tokenFile !== undefined ? ["--token-file", r.tokenFile] : []));
  return { command: self.command, args, env };
}

/**
 * The hook command line, `ZERODB_HOME=<home> <abs zerodb> hook claude-code`:
 * the home is pinned as for the MCP entries, through the environment so the
 * hook command's own flags do not matter. Windows shells lack `VAR=x cmd`,
 * so there the home goes in as `--home`.
 */
export function hookCommand(self: SelfCommand, opts: { home: string; platform: NodeJS.Platform; suffix?: string }): string {
  const suffix = opts.suffix ?? HOOK_SUFFIX;
  const q = (w: string) => shellQuote(w, opts.platform);
  const exe = [self.command, ...self.prefix].map(q).join(" ");
  if (opts.platform === "win32") return `${exe} --home ${q(opts.home)} ${suffix}`;
  return `ZERODB_HOME=${q(opts.home)} ${exe} ${suffix}`;
}
