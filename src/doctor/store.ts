/**
 * The store checks of DESIGN.md 7.1: it opens and passes `PRAGMA
 * quick_check`; a write, read, search and forget round trip works; and so
 * does an object put, get and forget. The round trips run in a scratch store
 * that is deleted afterwards: the user's store is never written (issue 17).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type ZeroDbError, toZeroDbError } from "../errors.ts";
import { shellQuote } from "../harness/index.ts";
import { DB_FILE, type Memory, type Store } from "../store/index.ts";
import { type Check, type DoctorContext, check } from "./types.ts";

/** The fix for a store that is damaged: set it aside and restore the last export. */
function restoreFix(file: string): string {
  return `stop every zerodb process, then: mv ${shellQuote(file)} ${shellQuote(`${file}.damaged`)} && zerodb import <your last export .jsonl>`;
}

/** The fix for a failure of the given kind in the data dir. */
function fixFor(e: ZeroDbError, dataDir: string, database?: string): string {
  if (database !== undefined && e.code === "unavailable")
    return "check that PostgreSQL runs and that the URL's host, user, password and database are right (--database, ZERODB_DATABASE or config database)";
  if (e.code === "storage_full") return `free disk space on the file system of ${dataDir}`;
  if (e.code === "corrupt") return restoreFix(join(dataDir, DB_FILE));
  if (e.code === "unavailable") return `chmod -R u+rwX ${shellQuote(dataDir)} (and stop any process holding the store locked)`;
  if (e.code === "unsafe_path") return "see the fix of the home or files check above";
  if (e.code === "incompatible") return "install the newer zerodb that wrote this store";
  return "run `zerodb doctor` again; if it persists, `zerodb export --out backup.jsonl` and report the output of `zerodb doctor --json`";
}

/** Opens the store and runs quick_check; the store is returned for the round trips when it is usable. */
export async function storeCheck(ctx: DoctorContext, open: () => Promise<Store>): Promise<{ check: Check; store?: Store }> {
  const dataDir = ctx.config.dataDir;
  // A PostgreSQL store's errors name its database (password hidden) themselves.
  let file = ctx.config.database ? "the database" : join(dataDir, DB_FILE);
  let store: Store;
  try {
    store = await open();
  } catch (err) {
    const e = toZeroDbError(err);
    const what = e.code === "corrupt" ? `${file} is damaged or not a zerodb store` : e.code === "internal" ? `cannot open ${file}` : e.message;
    return { check: check("store", "fail", what, fixFor(e, dataDir, ctx.config.database)) };
  }
  if (ctx.config.database) file = store.dataDir;
  try {
    const r = await store.check();
    if (!r.ok) {
      store.close();
      return { check: check("store", "fail", `${file} is damaged (${r.detail})`, restoreFix(file)) };
    }
    return { check: check("store", "pass", `${file} opens; ${r.detail}`), store };
  } catch (err) {
    store.close();
    const e = toZeroDbError(err);
    return {
      check: check(
        "store",
        "fail",
        `${file} is damaged (${e.code === "internal" ? "quick_check failed" : e.message})`,
        fixFor(e, dataDir, ctx.config.database),
      ),
    };
  }
}

/** Append, read, search and forget one turn (in the scratch store). */
export async function roundTripCheck(ctx: DoctorContext, m: Memory): Promise<Check> {
  const word = `doctorword${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex")}`;
  const session = "doctor/round-trip";
  try {
    const { entries } = await m.append({ session, entries: [{ role: "note", content: `zerodb doctor round trip ${word}` }] });
    const lsn = entries[0]!.lsn;
    const read = await m.read({ session });
    if (read.turns.length !== 1 || read.turns[0]!.lsn !== lsn || !read.turns[0]!.content.includes(word))
      throw new Error(`read did not return the turn written at lsn ${lsn}`);
    const found = await m.search({ query: word });
    if (found.hits.length !== 1 || found.hits[0]!.lsn !== lsn) throw new Error("search did not find the turn just written");
    const forgot = await m.forget({ selector: { session } });
    if (forgot.hidden < 1) throw new Error("forget hid nothing");
    const after = await m.read({ session });
    const again = await m.search({ query: word });
    if (after.turns.length !== 0 || again.hits.length !== 0) throw new Error("the forgotten turn is still visible");
    return check("round trip", "pass", `append, read, search and forget at lsn ${lsn} in a scratch store (removed afterwards)`);
  } catch (err) {
    const e = toZeroDbError(err);
    const detail = e.code === "internal" ? String((err as Error).message ?? err) : e.message;
    return check("round trip", "fail", `write-read-forget in a scratch store failed: ${detail}`, fixFor(e, ctx.config.dataDir));
  }
}

/** Put, get and forget one object (in the scratch store); its blob must be gone afterwards. */
export async function objectCheck(ctx: DoctorContext, m: Memory): Promise<Check> {
  // Random bytes: no other ref can share the digest, so the forget must delete the blob.
  const bytes = crypto.getRandomValues(new Uint8Array(4096));
  try {
    const put = await m.objectPut(bytes, { name: "doctor.bin", type: "application/octet-stream" });
    const body = await m.objectGet({ object: put.object });
    const back = new Uint8Array(await new Response(body.read()).arrayBuffer());
    if (back.length !== bytes.length || Buffer.compare(Buffer.from(back), Buffer.from(bytes)) !== 0)
      throw new Error(`the bytes read back differ from the ${bytes.length} written`);
    await m.forget({ selector: { object: put.object } });
    let gone = false;
    try {
      await m.objectGet({ object: put.object });
    } catch (err) {
      gone = toZeroDbError(err).code === "not_found";
    }
    if (!gone) throw new Error("the forgotten object can still be read");
    if (body.path !== undefined && existsSync(body.path)) throw new Error(`the forgotten blob is still on disk at ${body.path}`);
    return check("objects", "pass", `put, get and forget of ${put.object.slice(0, 19)}… (${put.size} bytes)`);
  } catch (err) {
    const e = toZeroDbError(err);
    const detail = e.code === "internal" ? String((err as Error).message ?? err) : e.message;
    return check("objects", "fail", `object round trip failed: ${detail}`, fixFor(e, ctx.config.dataDir));
  }
}
