/** `zerodb ui` (DESIGN.md 13): a loopback server for the local store, its one-time link on stdout, spent on first use. */
import { expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { runZ, tempDir } from "../../helpers.ts";
import { spawnUi } from "./_ui.ts";

test("zerodb ui --no-open prints a one-time link to a loopback viewer of tenant local", async () => {
  using dir = tempDir();
  expect((await runZ(["append", "--session", "proj/ui", "hello from the local store"], { home: dir.path })).code).toBe(0);
  await using proc = spawnUi(dir.path);
  const link = await proc.firstLine();
  expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/login\/once\?code=[A-Za-z0-9_-]{43}$/);
  const first = await fetch(link, { redirect: "manual" });
  expect(first.status).toBe(303);
  const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
  const page = await fetch(new URL("/ui", link), { headers: { cookie } });
  const html = await page.text();
  expect(html).toContain("tenant local");
  expect(html).toContain("proj/ui");
  // The user's own machine: its transcripts (none in this empty home), not only the cursors.
  expect(await (await fetch(new URL("/ui/capture", link), { headers: { cookie } })).text()).toContain(
    "No Claude Code, Codex, Gemini CLI, opencode transcripts found.",
  );
  // Spent: the URL left in history logs nobody in.
  expect((await fetch(link, { redirect: "manual" })).status).toBe(401);
  proc.proc.kill("SIGTERM");
  expect(await proc.proc.exited).toBe(0);
});

/** Every file under `dir` with its size and modification time. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .sort()
    .map((name) => {
      const st = statSync(join(dir, name));
      return st.isDirectory() ? `${name}/` : `${name} ${st.size} ${st.mtimeMs}`;
    });
}

test("zerodb ui's doctor page runs zerodb doctor's checks on the open store and writes nothing to it", async () => {
  using dir = tempDir();
  expect((await runZ(["append", "--session", "proj/ui", "before the doctor"], { home: dir.path })).code).toBe(0);
  await using proc = spawnUi(dir.path);
  const link = await proc.firstLine();
  const cookie = (await fetch(link, { redirect: "manual" })).headers.get("set-cookie")!.split(";")[0]!;
  const stats = async () => JSON.parse((await runZ(["stats", "--json"], { home: dir.path })).stdout) as { last_lsn: number; turns: { count: number } };
  const before = await stats();
  const data = join(dir.path, "zerodb", "data");
  // The store file's own bytes; the WAL and shared memory change with any reader.
  const storeFiles = () => listing(data).filter((l) => !/-(wal|shm) /.test(l));
  const files = storeFiles();
  const page = await fetch(new URL("/ui/doctor?run=1", link), { headers: { cookie } });
  expect(page.status).toBe(200);
  const html = await page.text();
  for (const name of ["config", "home", "files", "store", "round trip", "objects", "mcp", "server"]) expect(html).toContain(`data-check="${name}"`);
  expect(html).toContain('data-check="store" data-status="pass"');
  expect(html).toContain('data-check="round trip" data-status="pass"');
  expect(html).toContain('data-check="mcp" data-status="pass"');
  expect(await stats()).toEqual(before);
  expect(storeFiles()).toEqual(files);
  // The scratch store is gone, and the viewer's own store still serves.
  expect(readdirSync(join(dir.path, "zerodb")).filter((n) => n.startsWith(".zerodb-doctor-"))).toEqual([]);
  expect(await (await fetch(new URL("/ui", link), { headers: { cookie } })).text()).toContain("proj/ui");
  proc.proc.kill("SIGTERM");
  expect(await proc.proc.exited).toBe(0);
});
