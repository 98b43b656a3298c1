import {
  captureConfigJob,
  claudeCode,
  codexNotifyJob,
  type FileJob,
  geminiHooksJob,
  hooksJob,
  mcpJobs,
  opencodePluginJob,
  type Outcome,
  runJobs,
} from "../../harness/index.ts";
import { zcommand } from "../command.ts";
import { failedExit, harnessArg, harnessContext, renderOutcomes, selection } from "../connect-common.ts";
import { configFrom } from "../context.ts";

/** `zerodb disconnect`: remove only what connect added (DESIGN.md 7.1). */
export default zcommand({
  meta: { name: "disconnect", description: "Remove zerodb's MCP entries and capture hooks from the harnesses, nothing else" },
  args: {
    harness: harnessArg,
    "dry-run": { type: "boolean", description: "show the diff of each file and write nothing" },
  },
  async run(args) {
    const config = configFrom(args);
    const dryRun = args["dry-run"] === true;
    const ctx = harnessContext();
    // Removal looks at every selected harness, installed or not: a leftover entry is still ours to remove.
    const sel = { ...selection(ctx, args.harness), explicit: true };
    // Codex's notify comes off before its MCP table: the reverse of connect, so each backup restores its own step.
    // Gemini CLI's hooks likewise, before the MCP entry in the same settings.json.
    const jobs: (FileJob | Outcome)[] = [];
    if (sel.harnesses.some((h) => h.name === "codex")) jobs.push(codexNotifyJob(ctx, undefined));
    if (sel.harnesses.some((h) => h.name === "gemini")) jobs.push(geminiHooksJob(ctx, undefined));
    jobs.push(...mcpJobs(sel, undefined));
    if (sel.harnesses.some((h) => h.name === "opencode")) jobs.push(opencodePluginJob(ctx, undefined));
    if (sel.harnesses.includes(claudeCode)) {
      jobs.push(hooksJob(ctx, undefined));
      // Without hooks nothing captures; say so in the config so doctor agrees.
      if (config.captureEnabled) jobs.push(captureConfigJob(config.configFile, false));
    }
    return { dry_run: dryRun, results: runJobs(jobs, dryRun) };
  },
  human: renderOutcomes,
  exitCode: failedExit,
});
