import { ensureHome } from "../../config.ts";
import {
  HARNESSES,
  captureConfigJob,
  claudeCode,
  codexNotifyCommand,
  codexNotifyJob,
  type FileJob,
  geminiHooksJob,
  hookCommand,
  hooksJob,
  mcpJobs,
  opencodeHookArgv,
  opencodePluginJob,
  type Outcome,
  runJobs,
  selfCommand,
  serverSpec,
} from "../../harness/index.ts";
import { zcommand } from "../command.ts";
import { failedExit, harnessArg, harnessContext, renderOutcomes, selection } from "../connect-common.ts";
import { configFrom } from "../context.ts";

/** `zerodb connect`: register `zerodb mcp` in every installed harness (DESIGN.md 7.1). */
export default zcommand({
  meta: {
    name: "connect",
    description:
      "Register zerodb's MCP server with every installed agent harness (--capture: the Claude Code, Codex, Gemini CLI and opencode capture hooks too)",
  },
  args: {
    harness: harnessArg,
    "dry-run": { type: "boolean", description: "show the diff of each file and write nothing" },
    capture: {
      type: "boolean",
      description: "also install the capture hooks (Claude Code and Gemini CLI hooks, Codex notify, opencode plugin) and turn capture on",
    },
  },
  async run(args) {
    const config = configFrom(args);
    const dryRun = args["dry-run"] === true;
    const ctx = harnessContext();
    const sel = selection(ctx, args.harness);
    if (!dryRun) ensureHome(config);
    const self = selfCommand(process.execPath, Bun.main);
    const dataDirSet = args["data-dir"] !== undefined || (process.env.ZERODB_DATA_DIR ?? "") !== "";
    const spec = serverSpec(self, {
      home: config.home,
      ...(dataDirSet ? { dataDir: config.dataDir } : {}),
      ...(args.config !== undefined ? { configFile: config.configFile } : {}),
      // A server named on this command line (not one from config.json, which the server reads itself).
      ...(args.url !== undefined || (process.env.ZERODB_URL ?? "") !== ""
        ? {
            remote: {
              url: config.url!,
              ...(args.tenant !== undefined ? { tenant: config.tenant } : {}),
              ...(args["token-file"] !== undefined ? { tokenFile: config.tokenFile } : {}),
            },
          }
        : {}),
    });
    const jobs: (FileJob | Outcome)[] = mcpJobs(sel, spec);
    // Hooks with --capture, and refreshed on every connect once capture is on (a moved binary).
    const wantHooks = args.capture === true || config.captureEnabled;
    if (wantHooks && sel.harnesses.includes(claudeCode)) {
      if (sel.explicit || claudeCode.installed(ctx)) jobs.push(hooksJob(ctx, hookCommand(self, { home: config.home, platform: ctx.platform })));
      else jobs.push({ target: claudeCode.name, what: "hooks", label: "Claude Code hooks", status: "skipped", detail: "Claude Code is not installed" });
    }
    const codex = sel.harnesses.find((h) => h.name === "codex");
    if (wantHooks && codex) {
      if (!sel.explicit && !codex.installed(ctx))
        jobs.push({ target: "codex", what: "hooks", label: "Codex notify hook", status: "skipped", detail: "Codex is not installed" });
      else if (codex.blocked?.(ctx)) jobs.push({ target: "codex", what: "hooks", label: "Codex notify hook", status: "failed", detail: codex.blocked(ctx)! });
      else jobs.push(codexNotifyJob(ctx, codexNotifyCommand(self, config.home)));
    }
    const gemini = sel.harnesses.find((h) => h.name === "gemini");
    if (wantHooks && gemini) {
      if (!sel.explicit && !gemini.installed(ctx))
        jobs.push({ target: "gemini", what: "hooks", label: "Gemini CLI hooks", status: "skipped", detail: "Gemini CLI is not installed" });
      else jobs.push(geminiHooksJob(ctx, hookCommand(self, { home: config.home, platform: ctx.platform, suffix: "hook gemini" })));
    }
    const opencode = sel.harnesses.find((h) => h.name === "opencode");
    if (wantHooks && opencode) {
      if (!sel.explicit && !opencode.installed(ctx))
        jobs.push({ target: "opencode", what: "hooks", label: "opencode capture plugin", status: "skipped", detail: "opencode is not installed" });
      else jobs.push(opencodePluginJob(ctx, opencodeHookArgv(self, config.home)));
    }
    if (args.capture === true) jobs.push(captureConfigJob(config.configFile, true));
    return { dry_run: dryRun, command: spec.command, results: runJobs(jobs, dryRun) };
  },
  human: (r: { dry_run: boolean; results: Outcome[] }) => [renderOutcomes(r), ...nextSteps(r)].join("\n"),
  exitCode: failedExit,
});

/**
 * What to do next, said once under the per-file lines (issue 17, item 7):
 * nothing found means install a harness first; anything written means a
 * running harness must restart to start zerodb.
 */
function nextSteps(r: { dry_run: boolean; results: Outcome[] }): string[] {
  const mcp = r.results.filter((o) => o.what === "mcp");
  if (mcp.length > 0 && mcp.every((o) => o.status === "skipped")) {
    return [
      `no agent harness found for this user. Looked for: ${HARNESSES.map((h) => h.label).join(", ")}`,
      "(a harness counts as installed when its config folder exists, such as ~/.claude or ~/.gemini, or its command is on PATH).",
      "Install one (for example: npm install -g @anthropic-ai/claude-code), start it once, then run zerodb connect again;",
      "or write one harness's config anyway with zerodb connect --harness NAME.",
    ];
  }
  if (r.dry_run) return [];
  const changed = r.results.filter((o) => o.what === "mcp" && (o.status === "added" || o.status === "updated"));
  if (changed.length === 0) return [];
  return [
    `restart ${changed.map((o) => o.label).join(", ")} if running: a harness reads its MCP servers when it starts.`,
    "Installed another harness later? Run zerodb connect again; zerodb doctor tells you when one is missing.",
  ];
}
