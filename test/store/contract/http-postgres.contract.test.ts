/**
 * The Store contract through the HTTP client talking to a real `zerodb serve
 * --database` (issue 16): a team server answers every case as the engine
 * does in process, objects included (streamed from the database's chunks).
 * One fresh database and one server per case; capture cursors and the trace
 * are skipped for the reasons the SQLite-backed HTTP run gives.
 */
import { describe, test } from "bun:test";
import { join } from "node:path";
import { connectHttpMemory } from "../../../src/client/http.ts";
import { openStore } from "../../../src/store/index.ts";
import { startServer } from "../../http/_server.ts";
import { tempDir } from "../../helpers.ts";
import { postgresForFile, type TestPostgres } from "../postgres/_server.ts";
import { type Factory, runContract } from "./contract.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

/** A fresh database with tokens for alice and bob, and `zerodb serve --database` on it. */
const factory: Factory = async () => {
  const dir = tempDir("zerodb-contract-http-pg-");
  const url = await server!.database();
  const store = await openStore({ dataDir: join(dir.path, "admin"), database: url });
  const tokens = { alice: (await store.tokens.create({ tenant: "alice" })).token, bob: (await store.tokens.create({ tenant: "bob" })).token };
  store.close();
  const serve = await startServer(dir.path, ["--database", url]);
  try {
    return {
      a: await connectHttpMemory({ url: serve.url, token: tokens.alice, tenant: "alice" }),
      b: await connectHttpMemory({ url: serve.url, token: tokens.bob, tenant: "bob" }),
      async [Symbol.asyncDispose]() {
        await serve[Symbol.asyncDispose]();
        dir[Symbol.dispose]();
      },
    };
  } catch (err) {
    await serve[Symbol.asyncDispose]();
    dir[Symbol.dispose]();
    throw err;
  }
};
factory.lacks = {
  // As in http.contract.test.ts (importing it would run its suite here too).
  capture: "no capture-cursor route over HTTP, so a batch and its cursor cannot commit in one transaction",
  trace: "the engine runs in the server's process; the client has no Store to count",
  transfer: "export and import are the store's, not a route: `zerodb export` and `import` open the store (or --database) themselves",
};

if (server) runContract("HTTP client over zerodb serve --database", factory);
else
  describe("Store contract: HTTP client over zerodb serve --database", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
