/**
 * Issue 29 item 7: behind the documented TLS proxy (`serve --public-host`,
 * `X-Forwarded-Proto: https`) the viewer's session cookie is `Secure`; a
 * plain http login on loopback keeps a cookie without it (a browser would
 * drop a Secure cookie there), and a server without --public-host does not
 * believe a forwarded scheme at all. Against a real `zerodb serve`.
 */
import { expect, test } from "bun:test";
import { tempDir } from "../../helpers.ts";
import { createToken, startServer } from "../_server.ts";

/** Logs in with `token` sending `headers`; the answer's status and Set-Cookie attributes. */
async function login(url: string, token: string, headers: Record<string, string>) {
  const res = await fetch(`${url}/ui/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ token }),
  });
  const cookie = res.headers.get("set-cookie") ?? "";
  const attrs = cookie
    .split(";")
    .slice(1)
    .map((a) => a.trim().toLowerCase())
    .sort();
  return { status: res.status, attrs, pair: cookie.split(";")[0]! };
}

test("issue 29 item 7: the session cookie is Secure through a TLS proxy of a --public-host server, not on plain loopback", async () => {
  using dir = tempDir();
  const token = await createToken(dir.path, "alice");
  await using server = await startServer(dir.path, ["--public-host", "memory.team.example"]);
  const port = new URL(server.url).port;
  const proxied = { host: `memory.team.example:${port}`, origin: `https://memory.team.example:${port}` };
  const secure = ["httponly", "path=/", "samesite=strict", "secure"];
  const plain = ["httponly", "path=/", "samesite=strict"];
  const viaProxy = await login(server.url, token, { ...proxied, "x-forwarded-proto": "https" });
  expect({ status: viaProxy.status, attrs: viaProxy.attrs }).toEqual({ status: 303, attrs: secure });
  // The cookie works as the proxy forwards it.
  const page = await fetch(`${server.url}/ui`, { headers: { ...proxied, cookie: viaProxy.pair, "x-forwarded-proto": "https" } });
  expect(page.status).toBe(200);
  // RFC 7239's header says the same; the first hop's value counts.
  expect((await login(server.url, token, { ...proxied, forwarded: 'for=10.0.0.9;proto="https";host=memory.team.example' })).attrs).toEqual(secure);
  expect((await login(server.url, token, { ...proxied, "x-forwarded-proto": "https, http" })).attrs).toEqual(secure);
  expect((await login(server.url, token, { ...proxied, "x-forwarded-proto": "http" })).attrs).toEqual(plain);
  // Plain http loopback on the same server: no Secure, or the browser would drop the cookie.
  const loopback = await login(server.url, token, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` });
  expect({ status: loopback.status, attrs: loopback.attrs }).toEqual({ status: 303, attrs: plain });
  // Logging out through the proxy clears the cookie with the same attributes.
  const form = await (await fetch(`${server.url}/ui`, { headers: { ...proxied, cookie: viaProxy.pair, "x-forwarded-proto": "https" } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form)?.[1];
  expect(csrf).toBeDefined();
  const out = await fetch(`${server.url}/ui/logout`, {
    method: "POST",
    redirect: "manual",
    headers: { ...proxied, cookie: viaProxy.pair, "x-forwarded-proto": "https", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf! }),
  });
  expect(out.status).toBe(303);
  expect(out.headers.get("set-cookie")?.toLowerCase()).toContain("; secure");
});

test("issue 29 item 7: without --public-host a forwarded scheme is not believed", async () => {
  using dir = tempDir();
  const token = await createToken(dir.path, "alice");
  await using server = await startServer(dir.path);
  const port = new URL(server.url).port;
  const r = await login(server.url, token, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}`, "x-forwarded-proto": "https" });
  expect({ status: r.status, attrs: r.attrs }).toEqual({ status: 303, attrs: ["httponly", "path=/", "samesite=strict"] });
});
