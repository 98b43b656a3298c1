/**
 * The MCP check of DESIGN.md 7.1: start this very binary's `zerodb mcp` the
 * way a harness does (a child process over stdio, same home and data dir),
 * then `initialize` and `tools/list` through the official SDK client.
 */
import { VERSION } from "../version.ts";
import { type Check, type DoctorContext, check } from "./types.ts";

/** The tools DESIGN.md 6.2 says `zerodb mcp` serves. */
const EXPECTED_TOOLS = [
  "remember",
  "recall",
  "search",
  "sessions",
  "fact_set",
  "fact_get",
  "fact_list",
  "forget",
  "object_put",
  "object_get",
  "link_add",
  "stats",
];

/** How long the server may take to answer both requests. */
const TIMEOUT_MS = 30_000;

/** initialize + tools/list against a freshly started `zerodb mcp`. */
export async function mcpCheck(ctx: DoctorContext): Promise<Check> {
  const [{ Client }, { StdioClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
  ]);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.harness.env)) if (typeof v === "string") env[k] = v;
  env.ZERODB_HOME = ctx.config.home;
  const args = [...ctx.self.prefix, "mcp", ...ctx.storeArgs];
  const transport = new StdioClientTransport({ command: ctx.self.command, args, env, cwd: ctx.config.home, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-2000);
  });
  const client = new Client({ name: "zerodb-doctor", version: VERSION });
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
  });
  try {
    await Promise.race([client.connect(transport), timeout]);
    const { tools } = await Promise.race([client.listTools(), timeout]);
    const ms = Math.round(performance.now() - started);
    const names = new Set(tools.map((t) => t.name));
    const missing = EXPECTED_TOOLS.filter((n) => !names.has(n));
    const server = client.getServerVersion();
    if (missing.length > 0) {
      return check(
        "mcp",
        "fail",
        `zerodb mcp lists ${tools.length} tools but not ${missing.join(", ")}`,
        "install a complete zerodb build (this one lacks tools), then zerodb connect",
      );
    }
    return check("mcp", "pass", `initialize + tools/list: ${server?.name ?? "server"} ${server?.version ?? ""} serves ${tools.length} tools (${ms} ms)`);
  } catch (err) {
    const last = stderr.trim().split("\n").filter(Boolean).at(-1);
    const detail = `${ctx.self.command} mcp did not answer: ${err instanceof Error ? err.message : String(err)}${last ? ` (stderr: ${last})` : ""}`;
    return check("mcp", "fail", detail, "fix what its stderr says, then run `zerodb mcp` by hand to see it start");
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}
