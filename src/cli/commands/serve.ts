import { isLoopbackHost } from "../../http/hosts.ts";
import { zcommand } from "../command.ts";
import { databaseArg } from "../args.ts";
import { configFrom, openLocalStore } from "../context.ts";
import { ui } from "../log.ts";
import { UsageError, intFlag } from "../parse.ts";
import type { TokenListResult } from "../../schema/tokens.ts";

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** Resolves with the first SIGINT or SIGTERM; later ones call `again`. */
export function nextSignal(again: () => void): { signal: Promise<string>; dispose(): void } {
  let first: ((s: string) => void) | undefined;
  const signal = new Promise<string>((resolve) => (first = resolve));
  let seen = false;
  const on = (s: string) => {
    if (seen) return again();
    seen = true;
    first!(s);
  };
  for (const s of SIGNALS) process.on(s, on);
  return {
    signal,
    dispose: () => {
      for (const s of SIGNALS) process.off(s, on);
    },
  };
}

/** `zerodb serve`: the HTTP server of DESIGN.md 6.1 on the local store, until SIGINT or SIGTERM. */
export default zcommand({
  meta: { name: "serve", description: "Serve the store over HTTP (127.0.0.1:7077 by default) until Ctrl-C or SIGTERM" },
  args: {
    host: { type: "string", description: "the address to listen on (default 127.0.0.1)", valueHint: "host" },
    port: { type: "string", description: "the port (default 7077; 0 picks a free one)", valueHint: "port" },
    "allow-remote": { type: "boolean", description: "allow a host other machines can reach (no TLS: put a TLS proxy in front)" },
    "public-host": {
      type: "string",
      description: "host names the web viewer answers to besides the listen address, comma-separated (a name other machines use, or a proxy's)",
      valueHint: "names",
    },
    ...databaseArg,
  },
  async run(args) {
    const host = args.host === undefined ? "127.0.0.1" : String(args.host);
    const port = intFlag("port", args.port) ?? 7077;
    if (port > 65535) throw new UsageError("port: must be 0 to 65535", "port");
    if (host === "") throw new UsageError("host: must not be empty", "host");
    // D1: zerodb listens on loopback unless told otherwise, explicitly.
    if (!isLoopbackHost(host) && !args["allow-remote"]) {
      throw new UsageError(
        `refusing to listen on ${host}: it is not a loopback address, so other machines could reach the store; add --allow-remote if that is what you want (tokens then cross the network: put TLS in front)`,
        "host",
      );
    }
    const publicHosts = parsePublicHosts(args["public-host"]);
    const config = configFrom(args);
    const store = await openLocalStore(config);
    try {
      const [{ createApp }, { serveHttp }, { createViewer }] = await Promise.all([
        import("../../http/app.ts"),
        import("../../http/serve.ts"),
        import("../../http/viewer/state.ts"),
      ]);
      // The viewer answers to loopback names, the address it listens on, and the names it was told (DNS rebinding, DESIGN.md 13).
      // A TLS proxy's forwarded scheme is believed only with --public-host, the documented way to run behind one.
      const viewer = createViewer({
        store,
        hosts: [...(isLoopbackHost(host) || isWildcard(host) ? [] : [host]), ...publicHosts],
        trustForwardedProto: publicHosts.length > 0,
      });
      const app = createApp({ store, viewer, log: (line) => ui.info(line) });
      const server = serveHttp({ fetch: app.fetch, host, port });
      const signals = nextSignal(() => {
        ui.warn("zerodb: second signal: closing open connections now");
        void server.abort();
      });
      ui.info(`zerodb listening on ${server.url}`);
      // The store's own name for where it lives: a database URL comes without its password.
      for (const line of startLines(server.url, store.dataDir, await store.tokens.list())) ui.info(line);
      if (publicHosts.length > 0) ui.info(`the web viewer also answers to ${publicHosts.join(", ")}`);
      else if (isWildcard(host)) ui.warn(`the web viewer answers only to loopback names on ${host}: add --public-host with the name other machines use`);
      const signal = await signals.signal;
      ui.info(`zerodb: ${signal}: shutting down, ${server.inFlight()} request(s) in flight`);
      await server.stop();
      signals.dispose();
      ui.info("zerodb: stopped");
    } finally {
      store.close();
    }
    return undefined;
  },
});

/** A wildcard listen address (every interface): no request is addressed to it by that name. */
function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

/** The --public-host flag: host names (or addresses) without ports, comma-separated. */
function parsePublicHosts(value: unknown): string[] {
  if (value === undefined) return [];
  const names = String(value)
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== "");
  const bad = names.find((n) => !/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$|^\[?[0-9a-f:.]+\]?$/.test(n));
  if (names.length === 0 || bad !== undefined)
    throw new UsageError(
      `public-host: ${bad === undefined ? "give at least one name" : `not a host name: ${JSON.stringify(bad)}`} (names without ports, comma-separated)`,
      "public-host",
    );
  return names;
}

/**
 * What a person starting the server needs next (issue 17, item 6): where the
 * store is, that every token acts in one tenant and how to make one, and
 * that the local CLI and MCP act in tenant `local`, so data written with a
 * token does not show there unless asked for.
 */
export function startLines(url: string, dataDir: string, tokens: TokenListResult): string[] {
  const live = tokens.tokens.filter((t) => t.revoked === null);
  const tenants = [...new Set(live.map((t) => t.tenant))].sort();
  const have = live.length === 0 ? "no tokens yet" : `${live.length} token(s), for tenant(s) ${tenants.join(", ")}`;
  return [
    `  store:   ${dataDir}`,
    `  tokens:  every /v1 request needs a Bearer token, and a token acts in one tenant; ${have}. Create one: zerodb token create --tenant NAME`,
    `  local:   the CLI and MCP on this machine use tenant 'local' (the store directly); add --tenant NAME to see a token's tenant, or --url ${url} --token-file FILE to go through this server`,
    `  about:   ${url}/ says what this server is and logs in to the viewer with a token; ${url}/healthz answers without a token`,
  ];
}
