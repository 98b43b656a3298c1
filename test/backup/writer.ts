/**
 * A writer for the backup tests: appends turns (and now and then an object)
 * to the store of argv[2] until killed, printing each acknowledged LSN.
 */
import { openSqliteStore } from "../../src/store/sqlite/store.ts";

const store = openSqliteStore(process.argv[2]!);
const m = store.memory("local");
const tag = process.argv[3] ?? "w";
for (let i = 0; ; i++) {
  if (i % 7 === 3) {
    const r = await m.objectPut(new TextEncoder().encode(`blob ${tag} ${i} ${"x".repeat(i % 50)}`), { name: `b${i}.txt`, type: "text/plain" });
    process.stdout.write(`${r.lsn}\n`);
  } else {
    const r = await m.append({ session: `s/${tag}`, entries: [{ role: "user", content: `turn ${tag} ${i} ${"lorem ipsum ".repeat(i % 20)}` }] });
    process.stdout.write(`${r.entries[0]!.lsn}\n`);
  }
}
