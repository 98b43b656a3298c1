/**
 * `zerodb serve` as a process (DESIGN.md 6.1): the listening line, one log
 * line per request with no secrets, loopback unless --allow-remote, clear
 * errors for bad flags and a taken port, and a graceful shutdown.
 */
import { describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { runJson, runZ, tempDir } from "../helpers.ts";
import { createToken, startServer } from "./_server.ts";

describe("zerodb serve", () => {
  test("logs one line per request: method, route pattern, status, ms; never tokens, bodies or keys", async () => {
    using dir = tempDir();
    const token = await createToken(dir.path, "alice");
    await using server = await startServer(dir.path);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    await fetch(`${server.url}/healthz`);
    await fetch(`${server.url}/v1/turns`, {
      method: "POST",
      headers,
      body: JSON.stringify({ session: "private/name", entries: [{ role: "note", content: "body words" }] }),
    });
    await fetch(`${server.url}/v1/facts/hidden/key`, { method: "PUT", headers, body: JSON.stringify({ value: "fact value" }) });
    await fetch(`${server.url}/v1/facts/hidden/key`, { headers });
    await fetch(`${server.url}/v1/whoami`, { headers: { authorization: "Bearer zdb_wrong" } });
    await fetch(`${server.url}/v1/nothing`, { headers });
    await server.waitForLine(/^GET - 404 /);
    const lines = server
      .stderr()
      .trim()
      .split("\n")
      .filter((l) => /^[A-Z]+ /.test(l));
    expect(lines.map((l) => l.replace(/ \d+\.\d+ms$/, " <ms>"))).toEqual([
      "GET /healthz 200 <ms>",
      "POST /v1/turns 200 <ms>",
      "PUT /v1/facts/:key{.+} 200 <ms>",
      "GET /v1/facts/:key{.+} 200 <ms>",
      "GET /v1/whoami 401 <ms>",
      "GET - 404 <ms>",
    ]);
    const log = server.stderr();
    for (const secret of [token, "zdb_wrong", "body words", "private/name", "hidden/key", "fact value"]) expect(log).not.toContain(secret);
  });

  test("issue 17 item 6: the start-up lines say where the store is, what tokens and tenants are, and that the local CLI uses tenant local; GET / says what this is", async () => {
    using dir = tempDir();
    const token = await createToken(dir.path, "alice");
    await using server = await startServer(dir.path);
    await server.waitForLine(/^ {2}about: /);
    const start = server.stderr().trim().split("\n");
    expect(start[0]).toBe(`zerodb listening on ${server.url}`);
    expect(start[1]).toBe(`  store:   ${dir.path}/zerodb/data`);
    expect(start[2]).toContain("1 token(s), for tenant(s) alice. Create one: zerodb token create --tenant NAME");
    expect(start[3]).toContain("use tenant 'local'");
    expect(start[3]).toContain(`--url ${server.url} --token-file FILE`);
    expect(start.join("\n")).not.toContain(token);

    await fetch(`${server.url}/v1/turns`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ session: "alice/secret-plans", entries: [{ role: "note", content: "private words" }] }),
    });
    const home = await fetch(`${server.url}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get("content-type")).toContain("text/html");
    const page = await home.text();
    expect(page).toContain("This is a zerodb server");
    expect(page).toContain("/healthz");
    expect(page).toContain("zerodb token create --tenant NAME");
    expect(page).toContain("tenant <code>local</code>");
    for (const data of ["alice", "secret-plans", "private words"]) expect(page).not.toContain(data);
  });

  test("refuses a non-loopback host without --allow-remote, and says so", async () => {
    using dir = tempDir();
    for (const host of ["0.0.0.0", "192.0.2.1", "::", "example.com"]) {
      const r = await runZ(["serve", "--host", host, "--port", "0"], { home: dir.path });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("--allow-remote");
      expect(r.stderr).not.toContain("listening");
    }
  });

  test("bad ports are usage errors naming --port; a taken port is a clear error", async () => {
    using dir = tempDir();
    for (const port of ["abc", "-1", "65536", "1e3"]) {
      const r = await runJson(["serve", "--port", port], { home: dir.path }).catch((e: Error) => e.message);
      expect(String(r)).toContain("exited 2");
    }
    const r = await runZ(["serve", "--port", "70000", "--json"], { home: dir.path });
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: "invalid_input", message: "port: must be 0 to 65535", field: "port" } });

    await using first = await startServer(dir.path);
    const port = new URL(first.url).port;
    const taken = await runZ(["serve", "--port", port], { home: dir.path });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toBe(`zerodb: cannot listen on 127.0.0.1:${port}: the port is in use (choose another with --port)\n`);
  });

  test("SIGINT with nothing in flight stops at once with exit 0", async () => {
    using dir = tempDir();
    await using server = await startServer(dir.path);
    expect(await server.stop("SIGINT")).toBe(0);
    expect(server.stderr()).toContain("zerodb: SIGINT: shutting down, 0 request(s) in flight");
    expect(server.stderr().trim().split("\n").at(-1)).toBe("zerodb: stopped");
  });

  test("SIGTERM during a request lets it complete, refuses new connections, and exits 0", async () => {
    using dir = tempDir();
    const token = await createToken(dir.path, "alice");
    await using server = await startServer(dir.path);
    const { port } = new URL(server.url);

    const sock = connect(Number(port), "127.0.0.1");
    let got = "";
    let closed = false;
    let wake = () => {};
    sock.on("data", (d) => {
      got += d.toString("latin1");
      wake();
    });
    sock.on("close", () => {
      closed = true;
      wake();
    });
    const until = async (cond: () => boolean) => {
      while (!cond()) {
        if (closed) throw new Error(`connection closed early; got ${JSON.stringify(got)}`);
        await new Promise<void>((r) => (wake = r));
      }
    };
    // With Expect: 100-continue the server says "go on" only once the route is reading the
    // body, so the request is certainly in flight when the signal is sent.
    sock.write(
      `POST /v1/turns HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        "Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    await until(() => got.includes("100 Continue"));
    server.proc.kill("SIGTERM");
    await server.waitForLine(/^zerodb: SIGTERM: shutting down, 1 request\(s\) in flight$/);
    // No new connection is accepted while the request drains.
    expect(
      await fetch(`${server.url}/healthz`).then(
        (r) => r.status,
        () => "refused",
      ),
    ).toBe("refused");

    const body = JSON.stringify({ session: "drain", entries: [{ role: "note", content: "finished after the signal" }] });
    sock.write(`${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`);
    await until(() => /\r\n\r\n\{.*\}$/.test(got.slice(got.indexOf("HTTP/1.1 200"))));
    sock.destroy();
    expect(got).toContain("HTTP/1.1 200");
    const answer = JSON.parse(got.slice(got.lastIndexOf("\r\n\r\n") + 4));
    expect(answer.entries[0].duplicate).toBe(false);

    expect(await server.proc.exited).toBe(0);
    expect(server.stderr()).toContain("POST /v1/turns 200");
    const read = await runJson(["read", "--session", "drain", "--tenant", "alice"], { home: dir.path });
    expect(read.turns.map((t: { lsn: number; content: string }) => [t.lsn, t.content])).toEqual([[answer.entries[0].lsn, "finished after the signal"]]);
  });
});
