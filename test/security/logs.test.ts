/**
 * No token, secret or content in any log line (issue 9; DESIGN.md 6.1: 401
 * says nothing more; 7.2: capture.log holds codes and positions, never
 * transcript text; I10). `zerodb serve`, `zerodb mcp` (local and remote) and
 * `zerodb hook claude-code` are driven with a unique content word and a
 * redactable secret, through successes and failures; then every byte of
 * their stderr and of <home>/logs is searched for the token, the word and
 * the secret.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createToken, startServer } from "../http/_server.ts";
import { startMcp } from "../mcp/_client.ts";
import { runZ, tempDir } from "../helpers.ts";

const WORD = "marmaladequasar";
const SECRET = "ghp_Q7ab9LogsSecretXk2Z0000000000000000aa";

/** Every byte of every file under `dir`. */
function allBytes(dir: string): string {
  let out = "";
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out += `\n${p}:\n${readFileSync(p, "latin1")}`;
    }
  };
  walk(dir);
  return out;
}

/** Fails naming what leaked and where. */
function expectClean(text: string, where: string, secrets: Record<string, string>) {
  for (const [name, value] of Object.entries(secrets)) {
    const at = text.indexOf(value);
    expect(at === -1 ? "" : text.slice(Math.max(0, at - 80), at + value.length + 20), `I10: no ${name} in ${where}`).toBe("");
  }
}

describe("nothing secret in logs (I10, 6.1, 7.2)", () => {
  test("zerodb serve: requests carrying a token, a content word and a secret, ok and refused, leave none of them in its stderr or the logs", async () => {
    using dir = tempDir();
    const token = await createToken(dir.path, "t");
    await using server = await startServer(dir.path);
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, "content-type": "application/json" };
    const send = (path: string, init: RequestInit = {}) => fetch(server.url + path, init).then((r) => r.arrayBuffer());
    const content = `${WORD} uses ${SECRET}`;
    await send("/v1/turns", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ session: `${WORD}/s`, entries: [{ role: "user", content, meta: { note: SECRET } }] }),
    });
    await send(`/v1/facts/${WORD}/key`, { method: "PUT", headers: json, body: JSON.stringify({ value: content }) });
    await send(`/v1/facts/${WORD}/key`, { headers: auth });
    await send(`/v1/search?q=${WORD}`, { headers: auth });
    await send("/v1/links", { method: "POST", headers: json, body: JSON.stringify({ url: `https://example.org/${WORD}?k=${SECRET}`, title: content }) });
    await send("/v1/objects", {
      method: "PUT",
      headers: { ...auth, "content-type": "text/plain", "x-zerodb-name": `${WORD}.txt`, "idempotency-key": SECRET },
      body: content,
    });
    // Refusals of every kind, each carrying the word and the secret somewhere.
    await send("/v1/turns", { method: "POST", headers: json, body: JSON.stringify({ session: `${WORD}//bad`, entries: [{ role: SECRET, content }] }) });
    await send("/v1/turns", { method: "POST", headers: json, body: `{"session": "${WORD}", ${SECRET}` });
    await send(`/v1/facts/${WORD}/missing`, { headers: auth });
    await send(`/v1/${WORD}`, { headers: auth });
    await send(`/v1/stats?token=${token}&${WORD}=${SECRET}`, { headers: auth });
    await send("/v1/whoami", { headers: { authorization: `Bearer ${SECRET}` } });
    await send("/v1/whoami", { headers: { authorization: `Bearer ${token}x` } });
    await send(`/v1/objects/sha256:${"0".repeat(64)}`, { headers: { ...auth, range: `bytes=${WORD}` } });
    await send("/v1/forget", { method: "POST", headers: json, body: JSON.stringify({ selector: { session: `${WORD}/s` } }) });
    expect(await server.stop()).toBe(0);
    const stderr = server.stderr();
    expect(stderr.split("\n").length, "the request log has a line per request").toBeGreaterThan(15);
    expectClean(stderr, "zerodb serve's stderr", { token, word: WORD, secret: SECRET });
    expectClean(allBytes(join(dir.path, "zerodb", "logs")), "<home>/logs", { token, word: WORD, secret: SECRET });
  });

  test("zerodb hook claude-code: a transcript with the word and a secret, and failing runs, leave neither in capture.log or stderr", async () => {
    using dir = tempDir();
    const work = join(dir.path, "work");
    mkdirSync(work);
    const transcript = join(dir.path, "t.jsonl");
    const msg = (uuid: string, text: string) => JSON.stringify({ type: "user", uuid, parentUuid: null, message: { role: "user", content: text } });
    writeFileSync(
      transcript,
      [msg("u1", `${WORD} ${SECRET}`), `not json ${WORD} ${SECRET}`, `{"type":"summary","summary":"${WORD}"}`, `{"partial": "${WORD}`].join("\n"),
    );
    const events = [
      { session_id: "s1", transcript_path: transcript, cwd: work, hook_event_name: "SessionStart", source: "startup" },
      { session_id: "s1", transcript_path: transcript, cwd: work, hook_event_name: "UserPromptSubmit", prompt: `${WORD} ${SECRET}` },
      { session_id: "s1", transcript_path: transcript, cwd: work, hook_event_name: "Stop", last_assistant_message: `${WORD} ${SECRET}` },
      { session_id: "s1", transcript_path: join(dir.path, `${WORD}-missing.jsonl`), cwd: work, hook_event_name: "Stop" },
      { session_id: "s1", cwd: work, hook_event_name: "Stop", prompt: `${WORD} ${SECRET}` },
    ];
    let stderr = "";
    for (const e of events) {
      const r = await runZ(["hook", "claude-code"], { home: dir.path, stdin: JSON.stringify(e), cwd: work });
      expect(r.code).toBe(0);
      stderr += r.stderr;
    }
    for (const stdin of [`{"session_id": "${SECRET}", "prompt": "${WORD}"`, `${WORD} ${SECRET}`]) {
      const r = await runZ(["hook", "claude-code"], { home: dir.path, stdin, cwd: work });
      stderr += r.stderr;
    }
    const logs = allBytes(join(dir.path, "zerodb", "logs"));
    expect(logs, "the failing runs were logged").toContain("capture.log");
    expectClean(logs, "<home>/logs", { secret: SECRET });
    // The missing transcript's own path names the word; every other line must not.
    expectClean(logs.replaceAll(`${WORD}-missing.jsonl`, "<path>"), "<home>/logs", { word: WORD });
    expectClean(stderr, "the hook's stderr", { word: WORD, secret: SECRET });
  });

  test("zerodb mcp, local and remote: remembers and failing calls carrying the word and the secret leave neither, nor the token, on stderr", async () => {
    using dir = tempDir();
    const work = join(dir.path, "work");
    mkdirSync(work);
    const token = await createToken(dir.path, "t");
    await using server = await startServer(dir.path);
    const stderrs: string[] = [];
    for (const remote of [false, true]) {
      const opts = remote ? { args: ["--url", server.url], env: { ZERODB_TOKEN: token, ZERODB_HOME: join(dir.path, "client") } } : {};
      await using mcp = await startMcp({ home: dir.path, cwd: work, ...opts });
      await mcp.call("remember", { content: `${WORD} ${SECRET}`, session: `${WORD}/s`, meta: { k: SECRET } });
      await mcp.call("remember", { content: `${WORD} ${SECRET}`, session: `${WORD}//bad` });
      await mcp.call("fact_set", { key: `${WORD}/k`, value: SECRET });
      await mcp.call("fact_get", { key: `${WORD}/missing` });
      await mcp.call("search", { query: `${WORD} ${SECRET}` });
      await mcp.call("object_put", { path: `${WORD}/${SECRET}.txt` });
      await mcp.call("link_add", { url: `ftp://${WORD}/${SECRET}` });
      await mcp.call("recall", { session: `${WORD}/s` });
      stderrs.push(mcp.stderr());
    }
    // A refused token at start: one line, without the token.
    const bad = await runZ(["mcp", "--url", server.url], { home: dir.path, env: { ZERODB_TOKEN: `${token}x` } });
    expect(bad.code).toBe(1);
    stderrs.push(bad.stderr);
    expect(await server.stop()).toBe(0);
    stderrs.push(server.stderr());
    expectClean(stderrs.join("\n"), "zerodb mcp's and serve's stderr", { token, word: WORD, secret: SECRET });
    for (const sub of ["logs", "spill"]) expectClean(allBytes(join(dir.path, "zerodb", sub)), `<home>/${sub}`, { token, word: WORD, secret: SECRET });
  });

  test("the CLI in remote mode: a refused or missing token is one line that never shows the token", async () => {
    using dir = tempDir();
    const token = await createToken(dir.path, "t");
    await using server = await startServer(dir.path);
    writeFileSync(join(dir.path, "token-file"), `${token}x\n`);
    const runs = [
      await runZ(["stats", "--url", server.url], { home: dir.path, env: { ZERODB_TOKEN: `${token}x` } }),
      await runZ(["stats", "--url", server.url, "--token-file", "token-file"], { home: dir.path }),
      await runZ(["search", WORD, "--url", server.url], { home: dir.path, env: { ZERODB_TOKEN: SECRET } }),
    ];
    for (const r of runs) {
      expect({ code: r.code, lines: r.stderr.trim().split("\n").length }).toEqual({ code: 1, lines: 1 });
      expectClean(r.stderr + r.stdout, "the CLI's output", { token, secret: SECRET });
    }
  });
});
