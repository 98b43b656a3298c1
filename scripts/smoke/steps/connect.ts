/**
 * Step `connect`: `zerodb connect --dry-run` with Claude Code and Codex
 * present (their config dirs exist, and ~/.claude.json holds settings of its
 * own) shows each registration it would make, pointing at this binary, and
 * writes nothing (DESIGN.md 7.1).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, expect, runJson } from "../sandbox.ts";

interface Outcome {
  target: string;
  status: string;
  path?: string;
  diff?: string;
  detail?: string;
}

/** Dry-runs connect against two installed harnesses and checks nothing changed. */
export async function connect(sb: Sandbox): Promise<void> {
  mkdirSync(join(sb.home, ".claude"), { recursive: true });
  mkdirSync(join(sb.home, ".codex"), { recursive: true });
  const claudeJson = join(sb.home, ".claude.json");
  const before = `${JSON.stringify({ theme: "dark", mcpServers: { other: { command: "other-server", args: [] } } })}\n`;
  writeFileSync(claudeJson, before);
  const codexToml = join(sb.home, ".codex", "config.toml");

  const plan = await runJson<{ dry_run?: boolean; command?: string; results?: Outcome[] }>(sb, ["connect", "--dry-run"]);
  expect(plan.dry_run === true, `connect --dry-run did not report a dry run: ${JSON.stringify(plan).slice(0, 200)}`);
  expect(typeof plan.command === "string" && existsSync(plan.command), `connect would register ${JSON.stringify(plan.command)}, which does not exist`);
  for (const target of ["claude-code", "codex"]) {
    const o = plan.results?.find((r) => r.target === target);
    expect(
      o && !["skipped", "failed", "error"].includes(o.status),
      `connect --dry-run would not register ${target}: ${JSON.stringify(o ?? null).slice(0, 200)}`,
    );
    expect(o.diff?.includes("zerodb") && o.diff.includes("mcp"), `connect --dry-run shows no diff registering zerodb mcp for ${target}`);
  }
  expect(readFileSync(claudeJson, "utf8") === before, "connect --dry-run changed ~/.claude.json");
  expect(!existsSync(codexToml), "connect --dry-run wrote ~/.codex/config.toml");
}
