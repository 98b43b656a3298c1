/** The object and link commands in remote mode (`--url`): the same results through `zerodb serve`. */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createToken, startServer } from "../http/_server.ts";
import { runJson, runZ, tempDir } from "../helpers.ts";

test("object put, get, list and link add over --url", async () => {
  using home = tempDir();
  const token = await createToken(home.path, "remote");
  await using server = await startServer(home.path);
  const o = { home: home.path, env: { ZERODB_TOKEN: token } };
  const remote = ["--url", server.url];
  const file = join(home.path, "photo.jpg");
  writeFileSync(file, Buffer.alloc(300_000, 7));
  const put = await runJson(["object", "put", file, ...remote], o);
  expect(put).toMatchObject({ size: 300_000, type: "image/jpeg", duplicate: false });
  expect((await runJson(["object", "list", ...remote], o)).objects).toEqual([
    { object: put.object, size: 300_000, type: "image/jpeg", name: "photo.jpg", lsn: put.lsn },
  ]);
  const out = join(home.path, "back.jpg");
  expect(await runJson(["object", "get", put.object, "--out", out, ...remote], o)).toEqual({
    object: put.object,
    size: 300_000,
    type: "image/jpeg",
    name: "photo.jpg",
    lsn: put.lsn,
    out,
  });
  expect(readFileSync(out).equals(readFileSync(file))).toBe(true);
  const again = await runZ(["object", "get", put.object, "--out", out, ...remote], o);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("never overwrites");
  expect(await runJson(["link", "add", "https://example.com/r", "--note", "kiwi", ...remote], o)).toEqual({ lsn: put.lsn + 1, duplicate: false });
  // The local store under the server holds exactly what went over the wire.
  expect((await runJson(["object", "list", "--tenant", "remote"], { home: home.path })).objects).toHaveLength(1);
}, 60_000);
