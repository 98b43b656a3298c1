/**
 * The draining transport: `zerodb mcp` closes on stdin EOF only after every
 * request it read is answered (or cancelled), because the server drops
 * in-flight handlers when it closes. Handlers are truly asynchronous in
 * remote mode (HTTP), so the wait matters there most.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { draining } from "../../src/mcp/drain.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import type { Memory } from "../../src/store/types.ts";
import { tempDir } from "../helpers.ts";

/** A memory whose stats wait for `release`; every other operation is unused here. */
function gatedMemory() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const reached = new Promise<void>((r) => (entered = r));
  const memory = new Proxy({ tenant: "local" } as Memory, {
    get: (t, prop) =>
      prop === "tenant"
        ? t.tenant
        : prop === "stats"
          ? async () => {
              entered();
              await gate;
              throw new Error("stats is not what this test checks");
            }
          : undefined,
  });
  return { memory, release, reached };
}

async function setup(dir: string) {
  const { memory, release, reached } = gatedMemory();
  const server = createMcpServer({ memory, cwd: dir, spill: { root: join(dir, "spill"), maxInlineBytes: 65536 }, log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const transport = draining(serverSide);
  const client = new Client({ name: "t", version: "1" });
  await Promise.all([server.connect(transport), client.connect(clientSide)]);
  let drained = false;
  return { client, transport, release, reached, watch: () => void transport.drained().then(() => (drained = true)), drained: () => drained };
}

describe("draining transport", () => {
  test("drained() waits for an unanswered request, and resolves once it is answered", async () => {
    using tmp = tempDir();
    const s = await setup(tmp.path);
    await s.transport.drained(); // nothing pending: resolves at once
    const call = s.client.callTool({ name: "stats", arguments: {} });
    await s.reached;
    s.watch();
    await Promise.resolve();
    expect(s.drained()).toBe(false);
    s.release();
    const result = await call;
    expect(result.isError).toBe(true);
    await s.transport.drained();
    expect(s.drained()).toBe(true);
    await s.client.close();
  });

  test("a cancelled request no longer holds the close", async () => {
    using tmp = tempDir();
    const s = await setup(tmp.path);
    const abort = new AbortController();
    const call = s.client.callTool({ name: "stats", arguments: {} }, undefined, { signal: abort.signal }).catch((e) => e);
    await s.reached;
    s.watch();
    abort.abort("changed my mind");
    await call;
    await s.transport.drained();
    expect(s.drained()).toBe(true);
    s.release();
    await s.client.close();
  });
});
