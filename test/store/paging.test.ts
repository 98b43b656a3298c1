/** I4 across processes (D5): a page walk with `after` never skips or repeats a turn while another process appends to the same SQLite file. The in-process case runs on every engine (test/store/contract/_turns.ts). */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";

const WRITER = join(import.meta.dir, "..", "fixtures", "writer.ts");

describe("paging (I4)", () => {
  test("walking a session while another process appends to it skips and repeats nothing", async () => {
    using dir = tempDir();
    const store = openSqliteStore(dir.path);
    const m = store.memory("local");
    // The writer appends to session s/w, one durable entry at a time.
    const writer = Bun.spawn([process.execPath, WRITER, dir.path, "append", "w", "600"], { stdout: "pipe", stderr: "inherit" });
    const seen: number[] = [];
    let after = 0;
    let pages = 0;
    // Walk until the writer is finished and a page comes back empty-handed.
    while (true) {
      const page = await m.read({ session: "s/w", after, limit: 7 });
      pages++;
      for (const t of page.turns) seen.push(t.lsn);
      if (page.turns.length > 0) after = page.turns[page.turns.length - 1]!.lsn;
      if (page.next === null && writer.exitCode !== null) {
        const tail = await m.read({ session: "s/w", after, limit: 1000 });
        if (tail.turns.length === 0) break;
      }
      if (page.next === null) await Bun.sleep(0);
    }
    expect(await writer.exited).toBe(0);
    const all: number[] = [];
    let cursor = 0;
    for (;;) {
      const p = await m.read({ session: "s/w", after: cursor, limit: 1000 });
      all.push(...p.turns.map((t) => t.lsn));
      if (p.next === null) break;
      cursor = p.next;
    }
    expect(all.length).toBe(600);
    expect(seen).toEqual(all);
    expect(pages).toBeGreaterThan(10);
    store.close();
  });
});
