/** Issue 20: `exportTape({after})` on PostgreSQL keeps the contract SQLite keeps (_export-after.ts). */
import { describe, test } from "bun:test";
import { openStore } from "../../../src/store/index.ts";
import { tempDir } from "../../helpers.ts";
import { exportAfterContract } from "../_export-after.ts";
import { postgresForFile } from "./_server.ts";

const started = await postgresForFile();

describe("PostgreSQL engine", () => {
  if ("error" in started) {
    test.skip(`[skipped: ${started.error}]`, () => {});
    return;
  }
  test("export after an LSN yields the records after it, as on SQLite", async () => {
    using dir = tempDir("zerodb-pg-after-");
    const store = await openStore({ dataDir: dir.path, database: await started.database() });
    try {
      await exportAfterContract(store);
    } finally {
      store.close();
    }
  });
});
