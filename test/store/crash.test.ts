/**
 * I1, I2, D5: acknowledged writes survive kill -9; concurrent writers from
 * several processes lose and duplicate nothing; LSNs strictly increase.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.ts";
import { tempDir } from "../helpers.ts";
import { seeded } from "../seed.ts";

const WRITER = join(import.meta.dir, "..", "fixtures", "writer.ts");
/** Kill rounds: 30 in the suite, more with `bun run soak` (ZERODB_KILL_ROUNDS). */
const ROUNDS = Number(process.env.ZERODB_KILL_ROUNDS ?? "30");

/** Spawns a writer; collects its acks line by line. */
function spawnWriter(dataDir: string, mode: string, id: string, count = 1_000_000) {
  const proc = Bun.spawn([process.execPath, WRITER, dataDir, mode, id, String(count)], { stdout: "pipe", stderr: "pipe" });
  const acks: { lsn: number; id: string }[] = [];
  let done = false;
  const waiters: (() => void)[] = [];
  const reading = (async () => {
    let buf = "";
    const dec = new TextDecoder();
    for await (const chunk of proc.stdout) {
      buf += dec.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = /^ack (\d+) (\S+)$/.exec(line);
        if (m) acks.push({ lsn: Number(m[1]), id: m[2]! });
        else if (line === "done") done = true;
        for (const w of waiters.splice(0)) w();
      }
    }
    for (const w of waiters.splice(0)) w();
  })();
  return {
    proc,
    acks,
    get done() {
      return done;
    },
    reading,
    /** Resolves once at least n acks arrived (or the stream ended). */
    async until(n: number) {
      while (acks.length < n && proc.exitCode === null) await new Promise<void>((r) => waiters.push(r));
    },
  };
}

/** Every live turn (by content) and fact (by key) outside doom/, as [lsn, id]. */
function allTurns(dataDir: string): { lsn: number; text: string }[] {
  const db = new Database(join(dataDir, "zerodb.sqlite"), { readonly: true });
  try {
    return db
      .query(
        `SELECT lsn, CASE kind WHEN 'turn' THEN text ELSE subject END AS text FROM tape
         WHERE kind IN ('turn', 'fact') AND forgotten_by IS NULL AND subject NOT LIKE 'doom/%' ORDER BY lsn`,
      )
      .all() as { lsn: number; text: string }[];
  } finally {
    db.close();
  }
}

/** How many live turns are left in doom/ sessions whose forget was acknowledged. */
function doomedLeft(dataDir: string, sessions: string[]): number {
  const db = new Database(join(dataDir, "zerodb.sqlite"), { readonly: true });
  try {
    const q = db.query("SELECT count(*) AS n FROM tape WHERE kind = 'turn' AND forgotten_by IS NULL AND subject = ?");
    return sessions.reduce((n, s) => n + (q.get(s) as { n: number }).n, 0);
  } finally {
    db.close();
  }
}

function integrity(dataDir: string): string {
  const db = new Database(join(dataDir, "zerodb.sqlite"));
  try {
    return (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
}

describe("crash safety (I2)", () => {
  // About 70 ms a round on 2 cores: bun's 5 s default timeout fits the 30 rounds of CI, not the soak's 200.
  test(
    `kill -9 in the middle of appends, fact sets and forgets, ${ROUNDS} times: every acknowledged write is there once`,
    seeded(async (random) => {
      using dir = tempDir();
      const acked = new Map<string, number>();
      const forgotten: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const mode = ["append", "batch", "fact", "forget"][round % 4]!;
        const w = spawnWriter(dir.path, mode, `r${round}`);
        // Let it write a random number of entries, then kill it mid-stream.
        await w.until(1 + Math.floor(random() * 40));
        w.proc.kill(9);
        await w.proc.exited;
        await w.reading;
        expect(w.proc.signalCode).toBe("SIGKILL");
        for (const a of w.acks) {
          if (a.id.startsWith("forgot:")) forgotten.push(a.id.slice(7));
          else acked.set(a.id, a.lsn);
        }
      }
      expect(integrity(dir.path)).toBe("ok");
      // Every acknowledged forget took effect (I8).
      expect(forgotten.length).toBeGreaterThan(0);
      expect(doomedLeft(dir.path, forgotten)).toBe(0);
      const turns = allTurns(dir.path);
      const byText = new Map<string, number[]>();
      for (const t of turns) byText.set(t.text, [...(byText.get(t.text) ?? []), t.lsn]);
      // No duplicates at all, acknowledged or not.
      for (const [text, lsns] of byText) expect({ text, copies: lsns.length }).toEqual({ text, copies: 1 });
      // Every acknowledged write is there, at the LSN it was acknowledged with.
      for (const [id, lsn] of acked) expect({ id, lsn: byText.get(id)?.[0] }).toEqual({ id, lsn });
      // I1: strictly increasing.
      for (let i = 1; i < turns.length; i++) expect(turns[i]!.lsn).toBeGreaterThan(turns[i - 1]!.lsn);
      // The store still takes writes after all that.
      const store = openSqliteStore(dir.path);
      const r = await store.memory("local").append({ session: "after", entries: [{ role: "note", content: "still works" }] });
      expect(r.entries[0]!.lsn).toBeGreaterThan(turns[turns.length - 1]!.lsn);
      store.close();
    }),
    30_000 + ROUNDS * 500,
  );

  test("four processes appending to one data dir at once: every entry present once, LSNs strictly increasing", async () => {
    using dir = tempDir();
    const perWriter = 150;
    const writers = ["a", "b", "c", "d"].map((id) => spawnWriter(dir.path, id === "d" ? "batch" : "append", id, id === "d" ? 160 : perWriter));
    const codes = await Promise.all(writers.map((w) => w.proc.exited));
    await Promise.all(writers.map((w) => w.reading));
    expect(codes).toEqual([0, 0, 0, 0]);
    expect(writers.every((w) => w.done)).toBe(true);
    const turns = allTurns(dir.path);
    expect(turns.length).toBe(perWriter * 3 + 160);
    expect(new Set(turns.map((t) => t.text)).size).toBe(turns.length);
    for (let i = 1; i < turns.length; i++) expect(turns[i]!.lsn).toBeGreaterThan(turns[i - 1]!.lsn);
    // Each writer's own entries appear in the order it wrote them.
    for (const w of writers) {
      const mine = turns.filter((t) => t.text.startsWith(`${w.acks[0]!.id.split("-")[0]}-`)).map((t) => t.text);
      expect(mine).toEqual(w.acks.map((a) => a.id));
    }
    expect(integrity(dir.path)).toBe("ok");
  });
});
