/**
 * `zerodb serve --public-host`: the viewer answers to the names it was told
 * (a team server reached by its DNS name, or behind a proxy), still refuses
 * any other Host (DNS rebinding, DESIGN.md 13), and a bad name is refused
 * before anything listens.
 */
import { expect, test } from "bun:test";
import { runZ, tempDir } from "../../helpers.ts";
import { createToken, startServer } from "../_server.ts";

test("the viewer answers to --public-host names and loopback, and refuses any other Host", async () => {
  using dir = tempDir();
  const token = await createToken(dir.path, "alice");
  await using server = await startServer(dir.path, ["--public-host", "Memory.Team.Example,10.1.2.3"]);
  // Printed after the listening line (startServer waits only for that one): waited for, not read at once.
  expect(await server.waitForLine(/^the web viewer also answers to /)).toBe("the web viewer also answers to memory.team.example, 10.1.2.3");
  const port = new URL(server.url).port;
  const login = (host: string) =>
    fetch(`${server.url}/ui/login`, {
      method: "POST",
      redirect: "manual",
      headers: { host, origin: `http://${host}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token }),
    });
  for (const host of [`memory.team.example:${port}`, `MEMORY.team.example:${port}`, `10.1.2.3:${port}`, `127.0.0.1:${port}`]) {
    const res = await login(host);
    expect({ host, status: res.status }).toEqual({ host, status: 303 });
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
    const page = await fetch(`${server.url}/ui`, { headers: { host, cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("tenant alice");
  }
  for (const host of [`attacker.example:${port}`, `memory.team.example.attacker.example:${port}`, `team.example:${port}`]) {
    expect({ host, status: (await login(host)).status }).toEqual({ host, status: 403 });
    expect((await fetch(`${server.url}/ui`, { headers: { host } })).status).toBe(403);
  }
});

test("a bad --public-host is a usage error naming the flag, and nothing listens", async () => {
  using dir = tempDir();
  for (const bad of ["", "memory.example:7077", "http://memory.example", "a b"]) {
    const r = await runZ(["serve", "--port", "0", "--public-host", bad], { home: dir.path });
    expect({ bad, code: r.code }).toEqual({ bad, code: 2 });
    expect(r.stderr).toContain("public-host");
    expect(r.stderr).not.toContain("listening");
  }
});
