import { ensureHome } from "../../config.ts";
import { captureConfigJob, claudeCode, type FileJob, hookCommand, hooksJob, mcpJobs, type Outcome, runJobs, selfCommand, serverSpec } from "../../harness/index.ts";
import { zcommand } from "../command.ts";
import { failedExit, harnessArg, harnessContext, renderOutcomes, selection } from "../connect-common.ts";
import { configFrom } from "../context.ts";

/** `zerodb connect`: register `zerodb mcp` in every installed harness (DESIGN.md 7.1). */
export default zcommand({
  meta: { name: "connect", description: "Register zerodb's MCP server with every installed agent harness (--capture: Claude Code hooks too)" },
  args: {
    harness: harnessArg,
    "dry-run": { type: "boolean", description: "show the diff of each file and write nothing" },
    capture: { type: "boolean", description: "also install the Claude Code capture hooks and turn capture on" },
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
        ? { remote: { url: config.url!, ...(args.tenant !== undefined ? { tenant: config.tenant } : {}), ...(args["token-file"] !== undefined ? { tokenFile: config.tokenFile } : {}) } }
        : {}),
    });
    const jobs: (FileJob | Outcome)[] = mcpJobs(sel, spec);
    // Hooks with --capture, and refreshed on every connect once capture is on (a moved binary).
    const wantHooks = args.capture === true || config.captureEnabled;
    if (wantHooks && sel.harnesses.includes(claudeCode)) {
      if (sel.explicit || claudeCode.installed(ctx)) jobs.push(hooksJob(ctx, hookCommand(self, { home: config.home, platform: ctx.platform })));
      else jobs.push({ target: claudeCode.name, what: "hooks", label: "Claude Code hooks", status: "skipped", detail: "Claude Code is not installed" });
    }
    if (args.capture === true) jobs.push(captureConfigJob(config.configFile, true));
    return { dry_run: dryRun, command: spec.command, results: runJobs(jobs, dryRun) };
  },
  human: renderOutcomes,
  exitCode: failedExit,
});
