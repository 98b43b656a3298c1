/**
 * `zerodb serve` listens on loopback unless told otherwise, explicitly (D1,
 * DESIGN.md 6.1): any other address is refused without --allow-remote, and
 * nothing listens. With --allow-remote every route but /healthz still wants
 * a token, and /healthz tells nothing but liveness and version (I5).
 */
import { describe, expect, test } from "bun:test";
import { isLoopbackHost } from "../../src/http/hosts.ts";
import { createToken, envFor } from "../http/_server.ts";
import { ZERODB, runZ, tempDir } from "../helpers.ts";

/** Every route of DESIGN.md 6.1, as an anonymous caller would try it. */
const ROUTES: [string, string][] = [
  ["GET", "/v1/whoami"],
  ["POST", "/v1/turns"],
  ["GET", "/v1/turns?session=s"],
  ["GET", "/v1/sessions"],
  ["GET", "/v1/search?q=a"],
  ["PUT", "/v1/facts/k"],
  ["GET", "/v1/facts/k"],
  ["GET", "/v1/facts"],
  ["POST", "/v1/forget"],
  ["PUT", "/v1/objects"],
  ["GET", "/v1/objects"],
  ["GET", `/v1/objects/sha256:${"0".repeat(64)}`],
  ["HEAD", `/v1/objects/sha256:${"0".repeat(64)}`],
  ["POST", "/v1/links"],
  ["GET", "/v1/stats"],
  ["GET", "/v1/unknown"],
];

describe("serve binds loopback unless told otherwise (D1, I5)", () => {
  test("a host other machines could reach is refused without --allow-remote: exit 2 naming host, nothing listens", async () => {
    using home = tempDir();
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "example.com", "127.0.0.1.nip.io", "localhost.", "0x7f.1"]) {
      const r = await runZ(["serve", "--host", host, "--port", "0", "--json"], { home: home.path });
      expect({ host, code: r.code, field: JSON.parse(r.stdout).error.field, lines: r.stderr.trim().split("\n").length }, `D1: ${host} is refused`).toEqual({
        host,
        code: 2,
        field: "host",
        lines: 1,
      });
      expect(r.stderr, `D1: the refusal names --allow-remote (${host})`).toContain("--allow-remote");
      expect(r.stderr).not.toContain("listening");
    }
  });

  test("loopback addresses need no flag", async () => {
    // IPv6 loopback judged in-process: a CI machine may have no ::1 to bind.
    for (const host of ["::1", "[::1]", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1", "127.1.2.3", "LOCALHOST"])
      expect(isLoopbackHost(host), `D1: ${host} is loopback`).toBe(true);
    for (const host of ["0.0.0.0", "::", "::ffff:10.0.0.1", "128.0.0.1", "localhost.evil.example", "1.127.0.0.1"])
      expect(isLoopbackHost(host), `D1: ${host} is not loopback`).toBe(false);
    using home = tempDir();
    for (const host of ["127.0.0.1", "localhost"]) {
      const proc = Bun.spawn([ZERODB, "serve", "--host", host, "--port", "0"], {
        cwd: home.path,
        env: envFor(home.path),
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      });
      try {
        const reader = proc.stderr.getReader();
        let seen = "";
        while (!/listening on|zerodb: /.test(seen)) {
          const { value, done } = await reader.read();
          if (done) break;
          seen += new TextDecoder().decode(value);
        }
        expect(seen, `D1: ${host} is loopback`).toContain("listening on");
      } finally {
        proc.kill();
        await proc.exited;
      }
    }
  });

  test("with --allow-remote on 0.0.0.0, every route but /healthz refuses a missing, wrong or malformed token with the same 401; /healthz says only ok and version", async () => {
    using home = tempDir();
    const token = await createToken(home.path, "t");
    const proc = Bun.spawn([ZERODB, "serve", "--host", "0.0.0.0", "--port", "0", "--allow-remote"], {
      cwd: home.path,
      env: envFor(home.path),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    try {
      const reader = proc.stderr.getReader();
      let seen = "";
      while (!/listening on http:\/\/\S+:(\d+)/.test(seen)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`serve ended: ${seen}`);
        seen += new TextDecoder().decode(value);
      }
      const port = /listening on http:\/\/\S+:(\d+)/.exec(seen)![1];
      // Reached over loopback here; the server listens on every interface.
      const base = `http://127.0.0.1:${port}`;
      const bodies = new Set<string>();
      for (const [method, path] of ROUTES) {
        for (const auth of [undefined, "Bearer wrong", `Bearer ${token}x`, `Basic ${btoa(`t:${token}`)}`, `bearer  ${token.slice(0, 10)}`, token]) {
          const res = await fetch(base + path, { method, headers: auth === undefined ? {} : { authorization: auth } });
          expect({ method, path, auth, status: res.status }, "I5: no route but /healthz answers without a valid token").toEqual({
            method,
            path,
            auth,
            status: 401,
          });
          if (method !== "HEAD") bodies.add(await res.text());
          else await res.arrayBuffer();
        }
      }
      expect([...bodies], "I5: one 401 body for every refusal, with no detail").toHaveLength(1);
      const health = await fetch(`${base}/healthz`);
      expect({ status: health.status, keys: Object.keys((await health.json()) as object).sort() }).toEqual({ status: 200, keys: ["ok", "version"] });
      const ok = await fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${token}` } });
      expect(await ok.json(), "the token itself works").toEqual({ tenant: "t" });
    } finally {
      proc.kill();
      await proc.exited;
    }
  });
});
