/**
 * I7 under kill -9: `zerodb object put` processes killed at random points, in
 * a loop. Afterwards no ref points at a missing or partial blob, every
 * acknowledged put reads back with its digest, and the next open leaves no
 * temp file and no blob without a ref.
 */
import { expect, test } from "bun:test";
import { createWriteStream, mkdirSync, watch } from "node:fs";
import { join } from "node:path";
import { forget } from "../../src/store/sqlite/forget/forget.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { ZERODB, runJson, tempDir } from "../helpers.ts";
import { seeded } from "../seed.ts";
import { blobFiles, byteStream, hashStream, tempFiles } from "./_lib.ts";

const MiB = 1048576;

async function writeFile(path: string, size: number, seed: number): Promise<string> {
  const out = createWriteStream(path);
  for await (const chunk of byteStream(size, seed)) if (!out.write(chunk)) await new Promise((r) => out.once("drain", r));
  await new Promise((r) => out.end(r));
  return `sha256:${(await hashStream(Bun.file(path).stream())).hex}`;
}

/** Resolves when a file appears in `dir` (a put has started streaming), or after `limitMs` as a fallback. */
function firstFileIn(dir: string, limitMs: number): { promise: Promise<void>; [Symbol.dispose](): void } {
  let watcher: ReturnType<typeof watch> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => {
    watcher = watch(dir, () => resolve());
    timer = setTimeout(resolve, limitMs);
  });
  return {
    promise,
    [Symbol.dispose]() {
      watcher?.close();
      clearTimeout(timer);
    },
  };
}

test(
  "kill -9 during object puts never leaves a ref to a missing or partial blob",
  seeded(async (random) => {
    using home = tempDir();
    const env = { HOME: home.path, ZERODB_HOME: join(home.path, "zerodb"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
    const dataDir = join(home.path, "zerodb", "data");
    // A few contents, each put several times, so kills also land on puts whose blob already exists.
    const files: { path: string; digest: string }[] = [];
    for (const [i, size] of [6 * MiB, 16 * MiB + 5, 28 * MiB + 11, 1].entries()) {
      const path = join(home.path, `in-${i}.bin`);
      files.push({ path, digest: await writeFile(path, size, i + 1) });
    }
    // One unkilled put gives the time scale for the random kill points and creates objects/tmp to watch.
    const t0 = performance.now();
    const first = await runJson(["object", "put", files[2]!.path], { home: home.path });
    const scale = performance.now() - t0;
    expect(first.object).toBe(files[2]!.digest);
    const acknowledged = new Map<string, number>([[first.object, first.lsn]]);
    mkdirSync(join(dataDir, "objects", "tmp"), { recursive: true });

    let killed = 0;
    for (let i = 0; i < 30; i++) {
      const file = files[i % files.length]!;
      const proc = Bun.spawn([ZERODB, "object", "put", file.path, "--json"], { env, cwd: home.path, stdout: "pipe", stderr: "pipe" });
      await using _ = {
        [Symbol.asyncDispose]: async () => {
          proc.kill(9);
          await proc.exited;
        },
      };
      // Half the kills come at a random time from spawn; the other half at a random time after the temp file appears.
      if (i % 2 === 1) {
        using started = firstFileIn(join(dataDir, "objects", "tmp"), scale * 2);
        await started.promise;
      }
      await new Promise((r) => setTimeout(r, random() * (i % 2 === 1 ? scale / 2 : scale)));
      proc.kill(9);
      const [stdout] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      if (proc.signalCode === "SIGKILL") killed++;
      // A put is acknowledged once its result reached the caller, whatever happened after.
      let result: { object: string; lsn: number } | undefined;
      try {
        result = JSON.parse(stdout);
      } catch {}
      if (result?.object) {
        expect(result.object).toBe(file.digest);
        acknowledged.set(result.object, result.lsn);
      }
    }
    expect(killed).toBeGreaterThan(0);
    if (process.env.ZERODB_TEST_VERBOSE)
      console.error({ killed, acknowledged: acknowledged.size, temps: tempFiles(dataDir), blobs: blobFiles(dataDir).length });

    // The next open cleans up after the dead puts.
    const listed = (await runJson<{ objects: { object: string; size: number }[] }>(["object", "list", "--limit", "1000"], { home: home.path })).objects;
    expect(tempFiles(dataDir)).toEqual([]);
    for (const digest of acknowledged.keys()) expect(listed.map((o) => o.object)).toContain(digest);
    for (const o of listed) {
      const out = join(home.path, `out-${o.object.slice(7, 19)}.bin`);
      await runJson(["object", "get", o.object, "--out", out], { home: home.path });
      expect(`sha256:${(await hashStream(Bun.file(out).stream())).hex}`).toBe(o.object);
    }
    // Every blob on disk is complete and has a ref: nothing partial, nothing orphaned.
    const onDisk = blobFiles(dataDir).map((p) => `sha256:${p.split("/").pop()}`);
    expect(onDisk.sort()).toEqual(listed.map((o) => o.object).sort());
    for (const p of blobFiles(dataDir)) {
      const hex = p.split("/").pop()!;
      expect((await hashStream(Bun.file(join(dataDir, "objects", "sha256", p)).stream())).hex).toBe(hex);
    }
  }),
  180_000,
);

test("a forget that committed but died before deleting the blob has it deleted on the next open", async () => {
  using dir = tempDir();
  const dataDir = join(dir.path, "data");
  let store = openSqliteStore(dataDir);
  const put = await store.memory("local").objectPut(new TextEncoder().encode("collect me later"));
  // The forget transaction alone, without the collection that follows it: what a crash between the two leaves.
  forget(store.db, "local", { selector: { object: put.object } });
  expect(blobFiles(dataDir)).toHaveLength(1);
  store.close();
  store = openSqliteStore(dataDir);
  try {
    expect(blobFiles(dataDir)).toEqual([]);
    expect(store.db.query("SELECT count(*) AS n FROM object_gc").get()).toEqual({ n: 0 });
    expect(store.db.query("SELECT count(*) AS n FROM objects").get()).toEqual({ n: 0 });
  } finally {
    store.close();
  }
});
