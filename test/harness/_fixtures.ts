/**
 * A HOME holding every (Linux) harness's config, each already in use and
 * written in its own style; and the JSON report connect and disconnect print.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The user's files before zerodb touches them, by path relative to HOME. */
export const USER_FILES: Record<string, string> = {
  ".claude.json": `{
  "numStartups": 42,
  "installMethod": "npm",
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ],
      "env": {
        "GITHUB_TOKEN": "ghp_not_a_real_token"
      }
    }
  },
  "projects": {
    "/home/u/app": {
      "allowedTools": [],
      "hasTrustDialogAccepted": true
    }
  }
}`,
  ".claude/settings.json": `{
    "cleanupPeriodDays": 45,
    "hooks": {
        "Stop": [
            {
                "matcher": "",
                "hooks": [
                    { "type": "command", "command": "notify-send 'claude is done'" }
                ]
            }
        ]
    },
    "permissions": { "allow": ["Bash(git status)"] }
}
`,
  ".codex/config.toml": `# Codex settings, hand-written
model = "o3"            # the default model
approval_policy = 'on-request'

[mcp_servers.docs]
command = "docs-server"
args = [
  "--port", "0",  # any port
  'C:\\literal\\path',
]
notes = """
[mcp_servers.zerodb]
this is text inside a string, not a table
"""

[mcp_servers.docs.env]
DOCS_HOME = "/srv/docs"

[profiles.fast]
model = "o4-mini"

# the end
`,
  ".gemini/settings.json": `{
\t// Gemini reads comments
\t"theme": "GitHub",
\t"mcpServers": {
\t\t"fs": {"command": "fs-server", "args": ["/"]} /* local files */
\t}
}
`,
  ".cursor/mcp.json": `{"mcpServers":{"browser":{"command":"browser-mcp","args":[]}}}`,
  ".config/Code/User/mcp.json": `{\r\n  // VS Code user MCP servers\r\n  "inputs": [],\r\n  "servers": {\r\n    "memory": {\r\n      "type": "stdio",\r\n      "command": "node",\r\n      "args": ["memory.js"],\r\n    },\r\n  },\r\n}\r\n`,
  ".codeium/windsurf/mcp_config.json": `{}\n`,
  ".config/opencode/opencode.json": `{
  "$schema": "https://opencode.ai/config.json",
  "mcp": {
    "weather": { "type": "remote", "url": "https://example.invalid/mcp", "enabled": false }
  },
  "theme": "opencode"
}
`,
};

/** The MCP config of each harness, relative to HOME. */
export const MCP_FILES: Record<string, string> = {
  "claude-code": ".claude.json",
  codex: ".codex/config.toml",
  gemini: ".gemini/settings.json",
  cursor: ".cursor/mcp.json",
  vscode: ".config/Code/User/mcp.json",
  windsurf: ".codeium/windsurf/mcp_config.json",
  opencode: ".config/opencode/opencode.json",
};

/** Writes the user's files into `home` (.claude.json is 0600, as Claude Code keeps it). */
export function writeUserFiles(home: string, files: Record<string, string> = USER_FILES): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, rel)), { recursive: true });
    writeFileSync(join(home, rel), text);
  }
  chmodSync(join(home, ".claude.json"), 0o600);
  chmodSync(join(home, ".codex/config.toml"), 0o640);
}

/** Bytes, mode, inode and mtime of a file: what "changes nothing" compares. */
export function fingerprint(path: string): { text: string; mode: number; ino: number; mtimeMs: number } {
  const st = statSync(path);
  return { text: readFileSync(path, "utf8"), mode: st.mode & 0o777, ino: st.ino, mtimeMs: st.mtimeMs };
}

/** Every file under `dir`, relative, sorted (to spot leftover temp files and extra backups). */
export function listFiles(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = join(prefix, e.name);
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

/** One line of connect's or disconnect's `--json` report. */
export type Outcome = { target: string; what: string; label: string; status: string; path?: string; detail?: string; diff?: string };
/** connect's or disconnect's `--json` report. */
export type Report = { dry_run: boolean; command: string; results: Outcome[] };

/** The status of one target's entry (`what`: mcp, hooks, config) in a report. */
export const statusOf = (r: Report, target: string, what = "mcp") => r.results.find((o) => o.target === target && o.what === what)?.status;
