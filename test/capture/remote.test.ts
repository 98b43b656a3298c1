/**
 * Capture in remote mode (config `url`): appends go through the HTTP client
 * to `zerodb serve`, the cursor lives in a file in the hook's home, and the
 * idempotency keys keep a replay from writing twice (DESIGN.md 7.2).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createToken, startServer } from "../http/_server.ts";
import { tempDir } from "../helpers.ts";
import { claudeLayout, conversation, expectedKeys, jsonl, keysOf, logLines, runHook, runJson, writeTranscript } from "./_fixtures.ts";

const SID = "4e404e40-0000-4000-8000-000000000015";
const MiB = 1024 * 1024;

/** A client home whose config points the hook at the server, with its token in a file. */
function remoteConfig(home: string, url: string, token: string): void {
  mkdirSync(join(home, "zerodb"), { recursive: true });
  writeFileSync(join(home, "zerodb", "token"), `${token}\n`, { mode: 0o600 });
  writeFileSync(join(home, "zerodb", "config.json"), JSON.stringify({ url, token_file: join(home, "zerodb", "token") }));
}

describe("capture in remote mode", () => {
  test("lines go to the server once each; the cursor file is only a hint, the keys are the guarantee", async () => {
    using serverHome = tempDir();
    using dir = tempDir();
    const token = await createToken(serverHome.path, "dev");
    await using server = await startServer(serverHome.path);
    const L = claudeLayout(dir.path);
    remoteConfig(L.home, server.url, token);
    writeTranscript(L.transcript(SID), SID, L.cwd, 150, "remote");
    for (let i = 0; i < 4; i++) expect(await runHook(L, "Stop", SID)).toEqual({ code: 0, stdout: "", stderr: "" });
    const sessions = (await runJson(["sessions", "--tenant", "dev"], { home: serverHome.path })).sessions;
    expect(sessions.length).toBe(1);
    const session = sessions[0].name;
    const read = async () => (await runJson(["read", "--session", session, "--tenant", "dev", "--limit", "1000"], { home: serverHome.path })).turns;
    expect(keysOf(await read())).toEqual({ keys: expectedKeys(SID, 150), duplicates: [] });
    // The cursor is a file in the hook's home, not in the server's store.
    const cursorDirs = readdirSync(join(L.home, "zerodb", "capture"));
    expect(cursorDirs.length).toBe(1);
    // A lost cursor file: the next runs resend from the first line and the server answers duplicates.
    for (const f of readdirSync(join(L.home, "zerodb", "capture", cursorDirs[0]!)))
      await Bun.file(join(L.home, "zerodb", "capture", cursorDirs[0]!, f)).delete();
    for (let i = 0; i < 3; i++) expect((await runHook(L, "Stop", SID)).code).toBe(0);
    expect(keysOf(await read())).toEqual({ keys: expectedKeys(SID, 150), duplicates: [] });
    // capture status works from the cursor files too.
    const status = await runJson(["capture", "status"], { home: L.home, env: { CLAUDE_CONFIG_DIR: L.configDir } });
    expect(status.sessions).toMatchObject([{ source: SID, capture_session: session, lines_captured: 150, lines_behind: 0 }]);
    expect(await logLines(L.home)).toEqual([]);
  }, 60_000);

  test("a 64 MiB entry made only of U+001B goes in with no 413: every chunk fits a request even at six bytes a character", async () => {
    using serverHome = tempDir();
    using dir = tempDir();
    const token = await createToken(serverHome.path, "dev");
    await using server = await startServer(serverHome.path);
    const L = claudeLayout(dir.path);
    remoteConfig(L.home, server.url, token);
    const c = conversation(SID, L.cwd);
    // 64 MiB of ESC: 384 MiB of transcript once JSON-escaped.
    writeFileSync(L.transcript(SID), jsonl(c.user("\u001b".repeat(64 * MiB))) + jsonl(c.user("the line after")));
    for (let i = 0; i < 6; i++) expect(await runHook(L, "Stop", SID)).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await logLines(L.home)).toEqual([]);
    const db = new Database(join(serverHome.path, "zerodb", "data", "zerodb.sqlite"), { readonly: true });
    try {
      const rows = db.query("SELECT idem_key, text FROM tape WHERE tenant = 'dev' AND kind = 'turn' ORDER BY lsn").all() as {
        idem_key: string;
        text: string;
      }[];
      const perChunk = Math.floor((7 * MiB) / 6);
      const n = Math.ceil((64 * MiB) / perChunk);
      expect(rows.map((r) => r.idem_key)).toEqual([...Array.from({ length: n }, (_, k) => `${SID}:0:${k}`), `${SID}:1:0`]);
      const chunks = rows.slice(0, n);
      expect(chunks.map((r) => r.text.length)).toEqual(Array.from({ length: n }, (_, k) => (k < n - 1 ? perChunk : 64 * MiB - perChunk * (n - 1))));
      expect(chunks.every((r) => /^\u001b+$/.test(r.text))).toBe(true);
      expect(rows[n]!.text).toBe("the line after");
    } finally {
      db.close();
    }
  }, 300_000);
});
