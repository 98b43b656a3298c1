/**
 * From the shared flags to a Memory: the store opened in-process (local mode)
 * or, with a URL, the HTTP client (remote mode). Commands call `withMemory`
 * and never learn which one they got.
 */
import { sep } from "node:path";
import { type Config, ensureHome, homePaths, resolveConfig } from "../config.ts";
import { checkTenant } from "../schema/tenant.ts";
import { type Memory, type MigrationAhead, type Store, dataDirPaths, migrateStoreAhead, openStore } from "../store/index.ts";
import { guardPrivatePaths } from "../util/private-path.ts";
import type { SharedFlags } from "./args.ts";
import { ui } from "./log.ts";
import { UsageError, databaseFlag } from "./parse.ts";

/** The configuration the shared flags describe. */
export function configFrom(flags: SharedFlags): Config {
  const database = databaseFlag(flags.database);
  // Two stores named at once: which one a write went to must never be a guess.
  if (database !== undefined && flags.url !== undefined) throw new UsageError("give --url or --database, not both", "database");
  const config = resolveConfig({
    database,
    home: flags.home,
    dataDir: flags["data-dir"],
    url: flags.url,
    tenant: flags.tenant,
    tokenFile: flags["token-file"],
    config: flags.config,
  });
  // --database on the command line wins over a URL from the environment or the config: the store is opened directly.
  return database === undefined ? config : { ...config, url: undefined };
}

/**
 * Refuses a home or data dir another user owns or can write to, before
 * either is created, so a refused store leaves nothing behind (issue 14,
 * item 3). Whether the data dir is in the home is returned.
 */
function guardStorePaths(config: Config): boolean {
  const inHome = config.dataDir === config.home || config.dataDir.startsWith(config.home + sep);
  guardPrivatePaths([...(inHome ? homePaths(config.home) : []), ...dataDirPaths(config.dataDir)]);
  return inHome;
}

/** Opens the local store of a configuration (creating the home when the data dir is in it). */
export async function openLocalStore(config: Config): Promise<Store> {
  if (guardStorePaths(config)) ensureHome(config);
  const { countProgress } = await import("./progress.ts");
  // A migration that rebuilds the search index of a large store shows how far it is (DESIGN.md 11).
  return openStore({
    dataDir: config.dataDir,
    ...(config.database ? { database: config.database } : {}),
    maxObjectBytes: config.maxObjectBytes,
    redact: config.redactWrites,
    onProgress: countProgress(),
  });
}

/** Remote mode: the same operations over HTTP, loaded only when asked for. */
async function remoteMemory(config: Config & { url: string }): Promise<Memory> {
  const [{ connectHttpMemory }, { resolveToken }] = await Promise.all([import("../client/http.ts"), import("../client/token.ts")]);
  ui.debug(`zerodb: server ${config.url}, tenant ${config.tenant ?? "(the token's)"}`);
  return connectHttpMemory({ url: config.url, token: resolveToken(config), tenant: config.tenant });
}

/** Runs `fn` with the memory the flags select, closing it afterwards. */
export async function withMemory<T>(flags: SharedFlags, fn: (memory: Memory, config: Config) => Promise<T>): Promise<T> {
  const config = configFrom(flags);
  if (config.url) return fn(await remoteMemory({ ...config, url: config.url }), config);
  // The tenant is checked before the store is opened or created: bad input never touches disk (I6).
  const tenant = checkTenant(config.tenant ?? "local");
  ui.debug(`zerodb: store ${config.dataDir}, tenant ${tenant}`);
  const store = await openLocalStore(config);
  try {
    return await fn(store.memory(tenant), config);
  } finally {
    store.close();
  }
}

/** The memory the flags select, opened on the first call of `memory`; `close` closes it if it was opened. */
export interface LazyMemory {
  config: Config;
  memory(): Promise<Memory>;
  /** Starts, off this thread, the migration the first open would run (none needed: nothing happens). */
  warm(): void;
  close(): void;
}

/**
 * The memory the flags select, not yet opened: `zerodb mcp` answers
 * `initialize` before its first tool call opens the store (DESIGN.md
 * section 10). The flags and the tenant are checked now, so bad input is
 * refused at once and never touches disk (I6), and so are the home and
 * data dir: a path another user could plant is refused before any door
 * speaks (issue 14, item 3). Opening itself (SQLite, migrations) waits,
 * except that `warm` may start a migration the store needs in a worker.
 */
export function lazyMemory(flags: SharedFlags): LazyMemory {
  const config = configFrom(flags);
  const url = config.url;
  const tenant = url ? undefined : checkTenant(config.tenant ?? "local");
  if (!url) guardStorePaths(config);
  let store: Store | undefined;
  let opening: Promise<Store> | undefined;
  let remote: Memory | undefined;
  let ahead: MigrationAhead | undefined;
  return {
    config,
    async memory() {
      if (url) return (remote ??= await remoteMemory({ ...config, url }));
      // One open, however many calls arrive before it ends. A migration started ahead is waited for off
      // this thread; the open after it finds the schema current.
      opening ??= (async () => {
        await ahead?.done;
        ui.debug(`zerodb: store ${config.dataDir}, tenant ${tenant}`);
        store = await openLocalStore(config);
        return store;
      })().catch((err: unknown) => {
        // A failed open is tried again by the next call, as before.
        opening = undefined;
        throw err;
      });
      return (await opening).memory(tenant!);
    },
    warm() {
      if (url || opening || ahead) return;
      ahead = migrateStoreAhead(config);
    },
    close: () => {
      ahead?.stop();
      store?.close();
    },
  };
}

/** Runs `fn` with the local store itself (export, import, doctor). */
export async function withStore<T>(flags: SharedFlags, fn: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const config = configFrom(flags);
  ui.debug(`zerodb: store ${config.dataDir}`);
  const store = await openLocalStore(config);
  try {
    return await fn(store, config);
  } finally {
    store.close();
  }
}
