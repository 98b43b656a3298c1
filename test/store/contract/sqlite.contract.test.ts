/** The Store contract on the SQLite engine, in-process, opened through the store's face. */
import { openStore } from "../../../src/store/index.ts";
import { tempDir } from "../../helpers.ts";
import { type Factory, runContract } from "./contract.ts";

/** A fresh SQLite store in a temp dir; tenants alice and bob. */
export const sqliteFactory: Factory = async () => {
  const dir = tempDir("zerodb-contract-");
  const store = await openStore({ dataDir: dir.path });
  return {
    a: store.memory("alice"),
    b: store.memory("bob"),
    capture: { a: store.capture("alice"), b: store.capture("bob") },
    transfer: store,
    ...(store.trace ? { trace: () => store.trace!() } : {}),
    async [Symbol.asyncDispose]() {
      store.close();
      dir[Symbol.dispose]();
    },
  };
};

runContract("SQLite engine", sqliteFactory);
