/**
 * A writer process for the I4 test: opens the PostgreSQL store named by
 * argv and appends `count` batches of one to three turns to session `s`,
 * then prints the LSNs it was given, as JSON, on stdout.
 */
import { openStore } from "../../../src/store/index.ts";

const [url, dataDir, id, count] = process.argv.slice(2) as [string, string, string, string];
const store = await openStore({ dataDir, database: url });
const m = store.memory("alice");
const lsns: number[] = [];
for (let i = 0; i < Number(count); i++) {
  const entries = Array.from({ length: 1 + (i % 3) }, (_, j) => ({
    role: "note" as const,
    content: `writer ${id} batch ${i} entry ${j}`,
    idem_key: `${id}:${i}:${j}`,
  }));
  const r = await m.append({ session: "s", entries });
  lsns.push(...r.entries.map((e) => e.lsn));
}
store.close();
process.stdout.write(JSON.stringify(lsns));
