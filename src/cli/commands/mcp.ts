/**
 * `zerodb mcp`: the MCP stdio server (DESIGN.md 6.2). Local mode opens the
 * store in-process; with --url the memory is the HTTP client's. Every
 * harness spawns this afresh, so it loads only what serving needs, and the
 * memory is opened by the first tool call, not before `initialize` is
 * answered (DESIGN.md section 10).
 */
import { zcommand } from "../command.ts";
import { spillRootPath } from "../../spill/file.ts";
import { guardPrivatePaths } from "../../util/private-path.ts";
import { lazyMemory } from "../context.ts";
import { normalJit } from "../jit.ts";
import { ui } from "../log.ts";

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
      });
      // Start-up is over once the client is initialized: tool calls get the normal JIT policy (jit.ts).
      server.oninitialized = () => normalJit();
      await serveStdio(server, (line) => ui.warn(line));
    } finally {
      lazy.close();
    }
    // stdout belongs to the protocol: nothing more is printed.
    return undefined;
  },
});
