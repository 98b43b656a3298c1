/**
 * The Store contract through the HTTP client (src/client/http.ts) talking to
 * a real `zerodb serve` on a loopback port: the same cases, the same answers
 * as in-process (D3). Capture cursors have no route and the engine's trace
 * lives in the server: both are skipped, with the reason, rather than passed.
 */
import { join } from "node:path";
import { connectHttpMemory } from "../../../src/client/http.ts";
import { ensureHome, resolveConfig } from "../../../src/config.ts";
import { openStore } from "../../../src/store/index.ts";
import { startServer } from "../../http/_server.ts";
import { tempDir } from "../../helpers.ts";
import { type Factory, runContract } from "./contract.ts";

/** A fresh home with tokens for alice and bob, and `zerodb serve --port 0` over it. */
export const httpFactory: Factory = async () => {
  const dir = tempDir("zerodb-contract-http-");
  // The same home the server runs in (test/http/_server.ts envFor); tokens are made before it opens the store.
  const config = resolveConfig({ home: join(dir.path, "zerodb") }, {});
  ensureHome(config);
  const store = await openStore({ dataDir: config.dataDir });
  const tokens = { alice: (await store.tokens.create({ tenant: "alice" })).token, bob: (await store.tokens.create({ tenant: "bob" })).token };
  store.close();
  const server = await startServer(dir.path);
  try {
    return {
      a: await connectHttpMemory({ url: server.url, token: tokens.alice, tenant: "alice" }),
      b: await connectHttpMemory({ url: server.url, token: tokens.bob, tenant: "bob" }),
      async [Symbol.asyncDispose]() {
        await server[Symbol.asyncDispose]();
        dir[Symbol.dispose]();
      },
    };
  } catch (err) {
    await server[Symbol.asyncDispose]();
    dir[Symbol.dispose]();
    throw err;
  }
};
httpFactory.lacks = {
  // Remote capture (src/capture/remote-sink.ts) keeps cursors in a local file and relies on idempotency keys instead.
  capture: "no capture-cursor route over HTTP, so a batch and its cursor cannot commit in one transaction",
  trace: "the engine runs in the server's process; the client has no Store to count",
  transfer: "export and import are the store's, not a route: `zerodb export` and `import` open the store (or --database) themselves",
};

runContract("HTTP client over zerodb serve", httpFactory);
