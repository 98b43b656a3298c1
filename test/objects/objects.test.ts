/**
 * Object refs and links through the Memory interface (DESIGN.md sections 5
 * and 8, I3, I5, I7, I8, I9): one blob per content, refs per tenant, forget
 * and collection.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { sha256Hex } from "../../src/util/hash.ts";
import { tempDir } from "../helpers.ts";
import { blobFiles, byteStream, deadPid, hashStream, tempFiles } from "./_lib.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

/** A store in a temp dir, closed and removed on dispose. */
function scratchStore(opts: { maxObjectBytes?: number } = {}) {
  const dir = tempDir();
  const dataDir = join(dir.path, "data");
  const store = openSqliteStore(dataDir, opts);
  return {
    store,
    dataDir,
    [Symbol.dispose]() {
      store.close();
      dir[Symbol.dispose]();
    },
  };
}

describe("objects", () => {
  test("put, get and list: type and name are kept, the bytes read back by range", async () => {
    using s = scratchStore();
    const m = s.store.memory("alice");
    const put = await m.objectPut(bytes("a picture, honestly"), { name: "pic.png", type: "image/png" });
    expect(put).toEqual({ object: `sha256:${sha256Hex("a picture, honestly")}`, size: 19, type: "image/png", lsn: put.lsn, duplicate: false });
    const got = await m.objectGet({ object: put.object });
    expect({ ...got, read: undefined, path: undefined }).toEqual({
      object: put.object,
      size: 19,
      type: "image/png",
      name: "pic.png",
      lsn: put.lsn,
      read: undefined,
      path: undefined,
    });
    expect(await new Response(got.read()).text()).toBe("a picture, honestly");
    expect(await new Response(got.read({ start: 0, end: 1 })).text()).toBe("a");
    expect(await new Response(got.read({ start: 18, end: 19 })).text()).toBe("y");
    expect(await m.objectList({})).toEqual({ objects: [{ object: put.object, size: 19, type: "image/png", name: "pic.png", lsn: put.lsn }], next: null });
  });

  test("without a type the object is application/octet-stream, without a name its name is null", async () => {
    using s = scratchStore();
    const m = s.store.memory("local");
    const put = await m.objectPut(bytes("raw"));
    expect(put.type).toBe("application/octet-stream");
    expect((await m.objectGet({ object: put.object })).name).toBeNull();
  });

  test("an idempotent retry returns the original LSN with duplicate:true; the same key for other bytes is a conflict", async () => {
    using s = scratchStore();
    const m = s.store.memory("local");
    const first = await m.objectPut(bytes("once"), { idem_key: "k1", name: "a.txt" });
    const again = await m.objectPut(bytes("once"), { idem_key: "k1", name: "a.txt" });
    expect(again).toEqual({ ...first, duplicate: true });
    await expect(m.objectPut(bytes("other"), { idem_key: "k1", name: "a.txt" })).rejects.toMatchObject({ code: "conflict", field: "idem_key" });
    await expect(m.objectPut(bytes("once"), { idem_key: "k1", name: "b.txt" })).rejects.toMatchObject({ code: "conflict" });
    expect((await m.objectList({})).objects).toHaveLength(1);
    // The conflicting bytes never became a blob.
    expect(blobFiles(s.dataDir)).toHaveLength(1);
    expect(tempFiles(s.dataDir)).toEqual([]);
  });

  test("the idempotency key stays reserved after a forget (I3): a replay does not resurrect the object", async () => {
    using s = scratchStore();
    const m = s.store.memory("local");
    const first = await m.objectPut(bytes("secret plan"), { idem_key: "cap:1" });
    await m.forget({ selector: { object: first.object } });
    expect(await m.objectPut(bytes("secret plan"), { idem_key: "cap:1" })).toEqual({ ...first, duplicate: true });
    await expect(m.objectGet({ object: first.object })).rejects.toMatchObject({ code: "not_found" });
    expect(blobFiles(s.dataDir)).toEqual([]);
  });

  test("two tenants, same bytes: one blob; A's forget leaves B's ref readable; after both forget, the blob is gone", async () => {
    using s = scratchStore();
    const a = s.store.memory("tenant-a");
    const b = s.store.memory("tenant-b");
    const pa = await a.objectPut(bytes("shared bytes"));
    const pb = await b.objectPut(bytes("shared bytes"));
    expect(pb.object).toBe(pa.object);
    expect(blobFiles(s.dataDir)).toHaveLength(1);
    expect((await a.forget({ selector: { object: pa.object } })).hidden).toBe(1);
    await expect(a.objectGet({ object: pa.object })).rejects.toMatchObject({ code: "not_found" });
    expect(await new Response((await b.objectGet({ object: pa.object })).read()).text()).toBe("shared bytes");
    expect(blobFiles(s.dataDir)).toHaveLength(1);
    await b.forget({ selector: { object: pa.object } });
    expect(blobFiles(s.dataDir)).toEqual([]);
    await expect(b.objectGet({ object: pa.object })).rejects.toMatchObject({ code: "not_found" });
  });

  test("two puts, a forget, a new put: the object is visible again, once", async () => {
    using s = scratchStore();
    const m = s.store.memory("local");
    const p1 = await m.objectPut(bytes("again"), { name: "one" });
    await m.objectPut(bytes("again"), { name: "two" });
    expect((await m.forget({ selector: { object: p1.object } })).hidden).toBe(2);
    expect((await m.objectList({})).objects).toEqual([]);
    expect(blobFiles(s.dataDir)).toEqual([]);
    const p3 = await m.objectPut(bytes("again"), { name: "three" });
    expect((await m.objectList({})).objects).toEqual([{ object: p1.object, size: 5, type: "application/octet-stream", name: "three", lsn: p3.lsn }]);
    expect(await new Response((await m.objectGet({ object: p1.object })).read()).text()).toBe("again");
    expect(blobFiles(s.dataDir)).toHaveLength(1);
  });

  test("a foreign digest is not_found exactly like a digest nobody has (I5)", async () => {
    using s = scratchStore();
    const put = await s.store.memory("tenant-a").objectPut(bytes("a's own"));
    const b = s.store.memory("tenant-b");
    const foreign = await b.objectGet({ object: put.object }).catch((e) => e);
    const nobody = `sha256:${"0".repeat(64)}`;
    const missing = await b.objectGet({ object: nobody }).catch((e) => e);
    expect(foreign.toJSON()).toEqual(JSON.parse(JSON.stringify(missing.toJSON()).replace(nobody, put.object)));
    expect(foreign.toJSON().error.code).toBe("not_found");
    expect((await b.objectList({})).objects).toEqual([]);
    expect((await b.stats({})).disk.object_bytes).toBe(0);
  });

  test("forgetting a turn never touches objects; forget {before} collects blobs with no live ref", async () => {
    using s = scratchStore();
    const m = s.store.memory("local");
    const put = await m.objectPut(bytes("kept"));
    const turn = await m.append({ session: "s", entries: [{ role: "note", content: `see ${put.object}` }] });
    await m.forget({ selector: { turn: turn.entries[0]!.lsn } });
    expect(await new Response((await m.objectGet({ object: put.object })).read()).text()).toBe("kept");
    expect(blobFiles(s.dataDir)).toHaveLength(1);
    const r = await m.forget({ selector: { before: new Date(Date.now() + 60_000).toISOString() } });
    expect(r.hidden).toBe(1);
    expect(blobFiles(s.dataDir)).toEqual([]);
  });

  test("list pages by LSN, one entry per digest", async () => {
    using s = scratchStore();
    const m = s.store.memory("local");
    const puts = [];
    for (let i = 0; i < 5; i++) puts.push(await m.objectPut(bytes(`object ${i}`)));
    await m.objectPut(bytes("object 0"), { name: "renamed" });
    const page1 = await m.objectList({ limit: 2 });
    expect(page1.objects.map((o) => o.object)).toEqual([puts[1]!.object, puts[2]!.object]);
    const page2 = await m.objectList({ after: page1.next!, limit: 2 });
    expect(page2.objects.map((o) => o.object)).toEqual([puts[3]!.object, puts[4]!.object]);
    const page3 = await m.objectList({ after: page2.next!, limit: 2 });
    expect(page3).toEqual({ objects: [expect.objectContaining({ object: puts[0]!.object, name: "renamed" })], next: null });
  });

  test("bad meta is refused before any byte is written (I6)", async () => {
    using s = scratchStore();
    const m = s.store.memory("local");
    let pulled = false;
    async function* source() {
      pulled = true;
      yield bytes("x");
    }
    await expect(m.objectPut(source(), { type: "not a type" })).rejects.toMatchObject({ code: "invalid_input", field: "type" });
    await expect(m.objectPut(bytes("x"), { name: "n".repeat(256) })).rejects.toMatchObject({ code: "too_large", field: "name" });
    await expect(m.objectPut(bytes("x"), { colour: "red" } as never)).rejects.toMatchObject({ code: "invalid_input", field: "colour" });
    await expect(m.objectGet({ object: "sha256:XYZ" })).rejects.toMatchObject({ code: "invalid_input", field: "object" });
    expect(pulled).toBe(false);
    expect((await m.stats({})).objects.count).toBe(0);
    expect(tempFiles(s.dataDir)).toEqual([]);
    expect(blobFiles(s.dataDir)).toEqual([]);
  });

  test("max_object_bytes: the limit passes, one byte more is too_large and leaves nothing", async () => {
    using s = scratchStore({ maxObjectBytes: 1000 });
    const m = s.store.memory("local");
    expect((await m.objectPut(byteStream(1000))).size).toBe(1000);
    await expect(m.objectPut(byteStream(1001, 7))).rejects.toMatchObject({ code: "too_large", field: "object" });
    expect(blobFiles(s.dataDir)).toHaveLength(1);
    expect(tempFiles(s.dataDir)).toEqual([]);
  });

  test("stats: disk.object_bytes counts the tenant's distinct blobs", async () => {
    using s = scratchStore();
    const m = s.store.memory("local");
    await m.objectPut(byteStream(3000, 1));
    await m.objectPut(byteStream(3000, 1));
    await m.objectPut(byteStream(500, 2));
    const st = await m.stats({});
    expect(st.objects).toEqual({ count: 3, bytes: 6500 });
    expect(st.disk.object_bytes).toBe(3500);
  });

  test("opening the store removes a dead put's temp files and a blob it published without a ref", async () => {
    using dir = tempDir();
    const dataDir = join(dir.path, "data");
    openSqliteStore(dataDir).close();
    const put = await (async () => {
      const store = openSqliteStore(dataDir);
      try {
        return await store.memory("local").objectPut(bytes("has a ref"));
      } finally {
        store.close();
      }
    })();
    // What a put killed between publishing the blob and committing its ref leaves behind.
    const orphan = "no ref was ever committed";
    const hex = sha256Hex(orphan);
    const { mkdirSync } = await import("node:fs");
    const shard = join(dataDir, "objects", "sha256", hex.slice(0, 2), hex.slice(2, 4));
    mkdirSync(shard, { recursive: true });
    writeFileSync(join(shard, hex), orphan);
    const pid = await deadPid();
    writeFileSync(join(dataDir, "objects", "tmp", `${pid}.0123456789ab.${hex}`), orphan);
    writeFileSync(join(dataDir, "objects", "tmp", `${pid}.0123456789ac.part`), "half");
    const store = openSqliteStore(dataDir);
    try {
      expect(tempFiles(dataDir)).toEqual([]);
      const [h0, h1] = [put.object.slice(7, 9), put.object.slice(9, 11)];
      expect(blobFiles(dataDir)).toEqual([join(h0, h1, put.object.slice(7))]);
      expect(await new Response((await store.memory("local").objectGet({ object: put.object })).read()).text()).toBe("has a ref");
    } finally {
      store.close();
    }
  });
});

describe("links", () => {
  test("a link is searchable by title, note and URL, idempotent, and forgettable by LSN", async () => {
    using s = scratchStore();
    const m = s.store.memory("local");
    const r = await m.linkAdd({ url: "https://example.com/deploy-guide", title: "Deploy guide", note: "ask quokka first", idem_key: "l1" });
    expect(r.duplicate).toBe(false);
    expect(await m.linkAdd({ url: "https://example.com/deploy-guide", title: "Deploy guide", note: "ask quokka first", idem_key: "l1" })).toEqual({
      lsn: r.lsn,
      duplicate: true,
    });
    await expect(m.linkAdd({ url: "https://example.com/other", idem_key: "l1" })).rejects.toMatchObject({ code: "conflict" });
    for (const q of ["quokka", "deploy guide", "example"]) {
      const hits = (await m.search({ query: q })).hits;
      expect(hits).toEqual([expect.objectContaining({ lsn: r.lsn, kind: "link", url: "https://example.com/deploy-guide" })]);
    }
    expect((await m.stats({})).links.count).toBe(1);
    expect((await m.forget({ selector: { link: r.lsn } })).hidden).toBe(1);
    expect((await m.search({ query: "quokka" })).hits).toEqual([]);
  });

  test("only http and https URLs; bad fields are named", async () => {
    using s = scratchStore();
    const m = s.store.memory("local");
    for (const url of ["ftp://example.com/x", "javascript:alert(1)", "file:///etc/passwd", "not a url", ""]) {
      await expect(m.linkAdd({ url })).rejects.toMatchObject({ field: "url" });
    }
    await expect(m.linkAdd({ url: "http://example.com", title: "t".repeat(1025) })).rejects.toMatchObject({ code: "too_large", field: "title" });
    expect((await m.stats({})).links.count).toBe(0);
  });

  test("a big stream keeps its digest end to end", async () => {
    using s = scratchStore();
    const m = s.store.memory("local");
    const expected = await hashStream(byteStream(20 * 1048576 + 3, 9));
    const put = await m.objectPut(byteStream(20 * 1048576 + 3, 9));
    expect(put.object).toBe(`sha256:${expected.hex}`);
    expect(await hashStream((await m.objectGet({ object: put.object })).read())).toEqual(expected);
  });
});
