/**
 * `zerodb mcp`: the MCP stdio server (DESIGN.md 6.2). Local mode opens the
 * store in-process; with --url the memory is the HTTP client's. Every
 * harness spawns this afresh, so it loads only what serving needs.
 */
import { zcommand } from "../command.ts";
import { spillRootPath } from "../../spill/file.ts";
import { guardPrivatePaths } from "../../util/private-path.ts";
import { configFrom, withMemory } from "../context.ts";
import { ui } from "../log.ts";

/** `zerodb mcp`. */
export default zcommand({
  meta: { name: "mcp", description: "Run the MCP server on stdin/stdout (what agent harnesses start)" },
  async run(args) {
    // A spill root another user owns or can write to is refused at start, before the store is opened (issue 14, item 3).
    guardPrivatePaths([spillRootPath(configFrom(args).spillRoot)]);
    await withMemory(args, async (memory, config) => {
      const [{ createMcpServer }, { serveStdio }] = await Promise.all([import("../../mcp/server.ts"), import("../../mcp/stdio.ts")]);
      const server = createMcpServer({
        memory,
        cwd: process.cwd(),
        objectRoots: config.objectRoots,
        spill: { root: config.spillRoot, maxInlineBytes: config.maxInlineBytes },
        // Tool failures and transport faults, on stderr: stdout is the protocol's.
        log: (line) => ui.warn(line),
      });
      await serveStdio(server, (line) => ui.warn(line));
    });
    // stdout belongs to the protocol: nothing more is printed.
    return undefined;
  },
});
