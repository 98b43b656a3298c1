/**
 * `zerodb mcp`: the MCP stdio server (DESIGN.md 6.2). Local mode opens the
 * store in-process; with --url the memory is the HTTP client's. Every
 * harness spawns this afresh, so it loads only what serving needs, and the
 * memory is opened by the first tool call, not before `initialize` is
 * answered (DESIGN.md section 10); a store that needs a migration starts it
 * in a worker once the client is initialized.
 */
import { zcommand } from "../command.ts";
import { spillRootPath } from "../../spill/file.ts";
import { guardPrivatePaths } from "../../util/private-path.ts";
import { lazyMemory } from "../context.ts";
import { normalJit } from "../jit.ts";
import { ui } from "../log.ts";
import type { SharedFlags } from "../args.ts";
import type { Config } from "../../config.ts";

/** The background syncer of this server's writes, loaded only when sync is configured. */
async function backgroundSyncer(args: SharedFlags, config: Config) {
  const [{ backgroundSyncer, wroteSomething }, { syncDetached }] = await Promise.all([import("../../sync/background.ts"), import("../sync-detached.ts")]);
  const syncer = backgroundSyncer(config, () => syncDetached(args));
  const wrote = (result: unknown) => {
    if (wroteSomething(result)) syncer.wrote();
  };
  return { wrote, close: syncer.close };
}

/** `zerodb mcp`. */
export default zcommand({
  meta: { name: "mcp", description: "Run the MCP server on stdin/stdout (what agent harnesses start)" },
  async run(args) {
    const lazy = lazyMemory(args);
    const { config } = lazy;
    // A spill root another user owns or can write to is refused at start, before the store is opened (issue 14, item 3).
    guardPrivatePaths([spillRootPath(config.spillRoot)]);
    // Remote mode connects at start, so a wrong URL or token is one line on stderr, not a server that answers nothing.
    if (config.url) await lazy.memory();
    try {
      const [{ createMcpServer }, { serveStdio }] = await Promise.all([import("../../mcp/server.ts"), import("../../mcp/stdio.ts")]);
      // With sync configured, what the tools write goes to the team server in the background (src/sync/background.ts).
      const syncer = config.url === undefined && config.file.sync !== undefined ? await backgroundSyncer(args, config) : undefined;
      const server = createMcpServer({
        // A store that cannot be opened is each tool call's typed error, and one line on stderr.
        memory: () =>
          lazy.memory().catch((err: unknown) => {
            ui.warn(`zerodb mcp: cannot open the memory: ${(err as Error)?.message ?? err}`);
            throw err;
          }),
        cwd: process.cwd(),
        objectRoots: config.objectRoots,
        spill: { root: config.spillRoot, maxInlineBytes: config.maxInlineBytes },
        // Tool failures and transport faults, on stderr: stdout is the protocol's.
        log: (line) => ui.warn(line),
        ...(syncer ? { afterWrite: syncer.wrote } : {}),
      });
      // Start-up is over once the client is initialized, or has sent its first request after initialize
      // without saying so (mcp/started.ts): tool calls get the normal JIT policy (jit.ts), and a store of
      // an earlier release starts migrating off this thread, so the first call waits less.
      const onStarted = () => {
        normalJit();
        lazy.warm();
      };
      try {
        await serveStdio(server, (line) => ui.warn(line), { onStarted });
      } finally {
        syncer?.close();
      }
    } finally {
      lazy.close();
    }
    // stdout belongs to the protocol: nothing more is printed.
    return undefined;
  },
});
