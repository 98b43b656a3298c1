/**
 * Issue 20: a blob deleted by a forget committed after the backup's snapshot
 * stops the backup with an error naming the object; it never leaves the
 * object out silently, and no backup file is written.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createFsBlobStore } from "../../src/objects/fs-store.ts";
import { backupChunks } from "../../src/store/sqlite/backup/backup.ts";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { writeAtomic } from "../../src/util/atomic.ts";
import { tempDir } from "../helpers.ts";

test("a forget that deletes a referenced blob mid-backup fails the backup, naming the object, and writes no file", async () => {
  using dir = tempDir();
  const data = join(dir.path, "data");
  const a = openSqliteStore(data);
  const b = openSqliteStore(data);
  try {
    const put = await a.memory("local").objectPut(new TextEncoder().encode("soon forgotten"), {});
    await a.memory("local").append({ session: "s", entries: [{ role: "note", content: "kept" }] });
    const counts = { records: 0, tokens: 0, cursors: 0, objects: 0, after: 0, last_lsn: 0 };
    const chunks = backupChunks(a.db, createFsBlobStore(join(data, "objects")), { counts });
    async function* interfered() {
      let first = true;
      for (const c of chunks) {
        yield c;
        if (first) {
          first = false;
          // Another connection forgets the object after the snapshot was taken; its blob file goes.
          await b.memory("local").forget({ selector: { object: put.object } });
          expect(createFsBlobStore(join(data, "objects")).stat(put.object)).toBeUndefined();
        }
      }
    }
    const out = join(dir.path, "b.zdb");
    await expect(writeAtomic(out, interfered(), { publish: "new", mode: 0o600 })).rejects.toThrow(`object ${put.object} was deleted while the backup ran`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir.path)).toEqual(["data"]);
    // The read transaction ended: a backup now succeeds without the forgotten object.
    const again = { records: 0, tokens: 0, cursors: 0, objects: 0, after: 0, last_lsn: 0 };
    await writeAtomic(out, backupChunks(a.db, createFsBlobStore(join(data, "objects")), { counts: again }), { publish: "new" });
    expect(again).toMatchObject({ records: 3, objects: 0 });
  } finally {
    a.close();
    b.close();
  }
});
