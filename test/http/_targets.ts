/**
 * The two ways the HTTP tests reach the app: in-process through
 * `app.request()` (no port), and a real `zerodb serve` child on loopback.
 * Route tests run against both, so the binary and the factory agree.
 */
import { join } from "node:path";
import { createApp } from "../../src/http/app.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { runJson, tempDir } from "../helpers.ts";
import { createToken, createTokenWithId, startServer } from "./_server.ts";

/** A server under test with two tenants' tokens and a revoked one. */
export interface Target {
  /** Sends a request to a path (with query) of the server. */
  send(path: string, init?: RequestInit): Promise<Response>;
  tokens: { alice: string; bob: string; carol: string; revoked: string };
  close(): Promise<void>;
}

/** The targets by name. */
export const TARGETS: Record<string, () => Promise<Target>> = {
  "in-process": async () => {
    const dir = tempDir("zerodb-http-app-");
    const store = openSqliteStore(join(dir.path, "data"));
    const make = async (tenant: string) => (await store.tokens.create({ tenant })).token;
    const revoked = await store.tokens.create({ tenant: "alice" });
    await store.tokens.revoke({ id: revoked.id });
    const app = createApp({ store });
    return {
      send: async (path, init) => app.request(path, init),
      tokens: { alice: await make("alice"), bob: await make("bob"), carol: await make("carol"), revoked: revoked.token },
      close: async () => {
        store.close();
        dir[Symbol.dispose]();
      },
    };
  },
  "zerodb serve": async () => {
    const dir = tempDir("zerodb-http-serve-");
    const home = dir.path;
    const tokens = { alice: await createToken(home, "alice"), bob: await createToken(home, "bob"), carol: await createToken(home, "carol") };
    const revoked = await createTokenWithId(home, "alice");
    await runJson(["token", "revoke", revoked.id], { home });
    const server = await startServer(home);
    return {
      send: (path, init) => fetch(server.url + path, init),
      tokens: { ...tokens, revoked: revoked.token },
      close: async () => {
        await server[Symbol.asyncDispose]();
        dir[Symbol.dispose]();
      },
    };
  },
};

/** Request options with a bearer token and, when given, a JSON body. */
export function authed(token: string, method = "GET", json?: unknown): RequestInit {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (json === undefined) return { method, headers };
  return { method, headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(json) };
}

/** The status and parsed JSON body of a response. */
export async function answer(res: Response): Promise<{ status: number; body: any }> {
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text) };
}
