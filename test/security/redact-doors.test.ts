/**
 * Redaction on every door that stores text (issue 14, item 2; DESIGN.md
 * 7.2): the CLI's append, HTTP turns, fact values, link URLs, titles and
 * notes, `meta` string values and MCP remember all go through the same scan,
 * driven through the built binary and a real `zerodb serve`; then the data
 * dir's every byte and an export are searched for each secret. The opt-outs
 * (per append, and config `redact: false`) store the text as given and say
 * so in the entry's meta.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createToken, startServer } from "../http/_server.ts";
import { startMcp, writeConfig } from "../mcp/_client.ts";
import { filesContaining, runJson, runZ, tempDir } from "../helpers.ts";

// Fake secrets of shapes the old rules missed (issue 14): none is a real credential.
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq9Xk2LmQ7";
const GITLAB = "glpat-Zq8vN3kLm2Pw7Rt5Yx1B";
const GHP = "ghp_R4nd0mT0k3nF0rD00rsTest0123456789abcd";
const SLACK_HOOK = "https://hooks.slack.com/services/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";
const URL_PW = "S3cr3t@pass!word";
const HF = "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";

/** Every secret given, none of which may be found anywhere in `dir` or `text`. */
function leaks(dir: string, text: string, secrets: string[]): string[] {
  return secrets.flatMap((s) => [...filesContaining(dir, s).map((f) => `${s} in ${f}`), ...(text.includes(s) ? [`${s} in export`] : [])]);
}

describe("every door redacts (issue 14, item 2)", () => {
  test("CLI append: content and meta string values; the count is reported and summed by stats", async () => {
    using box = tempDir();
    const content = `export AWS_SECRET_ACCESS_KEY=${AWS_SECRET}\ngit remote add o https://oauth2:${GITLAB}@gitlab.com/x/y.git`;
    const r = await runJson<{ redacted?: number }>(["append", "--session", "s", "--meta", JSON.stringify({ deploy: { hook: SLACK_HOOK } }), content], {
      home: box.path,
    });
    expect(r.redacted, "the caller learns that secrets were taken out").toBe(3);
    const page = await runJson<{ turns: { content: string; meta: Record<string, unknown> }[] }>(["read", "--session", "s"], { home: box.path });
    expect(page.turns[0]!.content).toContain("AWS_SECRET_ACCESS_KEY=[redacted:");
    expect(page.turns[0]!.meta).toMatchObject({ redacted: 3 });
    expect(JSON.stringify(page.turns[0]!.meta.deploy)).toContain("[redacted:");
    expect((await runJson<{ redactions: number }>(["stats"], { home: box.path })).redactions).toBe(3);
    const exported = (await runZ(["export"], { home: box.path })).stdout;
    expect(leaks(join(box.path, "zerodb"), exported, [AWS_SECRET, GITLAB, SLACK_HOOK.slice(-24)]), "no byte of any secret is stored").toEqual([]);
  });

  test("HTTP: POST /v1/turns, PUT /v1/facts (nested value), POST /v1/links (URL, title, note)", async () => {
    using box = tempDir();
    const token = await createToken(box.path, "t");
    await using server = await startServer(box.path);
    const h = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const post = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, { method, headers: h, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const turn = await post("POST", "/v1/turns", { session: "s", entries: [{ role: "user", content: `hf token ${HF}`, meta: { note: `key ${GHP}` } }] });
    expect(turn).toMatchObject({ status: 200, body: { redacted: 2 } });
    const fact = await post("PUT", "/v1/facts/deploy/creds", { value: { aws: { aws_secret_access_key: AWS_SECRET }, list: [`token ${GITLAB}`] } });
    expect(fact).toMatchObject({ status: 200, body: { redacted: 2 } });
    const link = await post("POST", "/v1/links", {
      url: `https://x-access-token:${GHP}@github.com/o/r`,
      title: `db password=${URL_PW}`,
      note: `postgres://app:${URL_PW}@db:5432/x`,
    });
    expect(link.status).toBe(200);
    expect(link.body.redacted).toBeGreaterThanOrEqual(2);
    const got = (await (await fetch(`${server.url}/v1/facts/deploy/creds`, { headers: h })).json()) as { value: unknown };
    expect(JSON.stringify(got.value)).not.toContain(AWS_SECRET);
    await server.stop();
    const exported = (await runZ(["export"], { home: box.path })).stdout;
    expect(leaks(join(box.path, "zerodb"), exported, [HF, GHP, AWS_SECRET, GITLAB, URL_PW]), "no byte of any secret is stored").toEqual([]);
    expect(exported, "the link keeps its user and host").toContain("https://x-access-token:[redacted:");
  });

  test("MCP remember through the built binary: meta strings too, and a model cannot switch it off", async () => {
    using box = tempDir();
    await using mcp = await startMcp({ home: box.path });
    const r = await mcp.call("remember", { content: `the token is ${HF}`, meta: { origin: `mysql -uroot -p${URL_PW} prod` }, redact: false } as Record<
      string,
      unknown
    >);
    expect(r.isError, "remember has no redact switch: injected text cannot turn redaction off").toBe(true);
    const ok = await mcp.call("remember", { content: `the token is ${HF}`, meta: { origin: `mysql -uroot -p${URL_PW} prod` } });
    expect(ok.structuredContent).toMatchObject({ redacted: 2 });
    const exported = (await runZ(["export"], { home: box.path })).stdout;
    expect(leaks(join(box.path, "zerodb"), exported, [HF, URL_PW])).toEqual([]);
  });
});

describe("every door scans escaped text as it decodes (issue 29 item 3)", () => {
  // A .env as a tool that prints JSON writes it (literal \n), and the same inside one more JSON string.
  const DB_PW = "Zq9vN3kLm2Pw7xR4";
  const SECRET_KEY = "k3J9xQm2Lp7vN3sW8yZ1bC6dF0gH";
  const ESCAPED = JSON.stringify({ stdout: `# .env\nDB_PASSWORD=${DB_PW}\nSECRET_KEY=${SECRET_KEY}\n` });
  const DOUBLY = JSON.stringify({ output: ESCAPED });
  const UNICODE = `{"cmd": "export GITHUB_DEPLOY_TOKEN\\u003da8F3kLm29xQz7Vb1Nc5Rt0YwE2"}`;
  const SECRETS = [DB_PW, SECRET_KEY, "a8F3kLm29xQz7Vb1Nc5Rt0YwE2"];

  test("CLI append and fact set, HTTP turns, facts and links, MCP remember: no byte stored, every JSON still parses", async () => {
    using box = tempDir();
    const appended = await runJson<{ redacted?: number }>(["append", "--session", "s", "--meta", JSON.stringify({ raw: DOUBLY }), `${ESCAPED}\n${UNICODE}`], {
      home: box.path,
    });
    expect(appended.redacted).toBe(5);
    const fact = await runJson<{ redacted?: number }>(["fact", "set", "env", JSON.stringify({ printed: ESCAPED, nested: [DOUBLY] })], { home: box.path });
    expect(fact.redacted).toBe(4);
    const token = await createToken(box.path, "t");
    await using server = await startServer(box.path);
    const h = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const send = async (method: string, path: string, body: unknown) =>
      (await (await fetch(`${server.url}${path}`, { method, headers: h, body: JSON.stringify(body) })).json()) as { redacted?: number };
    expect((await send("POST", "/v1/turns", { session: "h", entries: [{ role: "tool", content: DOUBLY, meta: { u: UNICODE } }] })).redacted).toBe(3);
    expect((await send("PUT", "/v1/facts/deploy/env", { value: DOUBLY })).redacted).toBe(2);
    expect((await send("POST", "/v1/links", { url: "https://example.org/ci", note: ESCAPED })).redacted).toBe(2);
    await server.stop();
    await using mcp = await startMcp({ home: box.path });
    const remembered = await mcp.call("remember", { content: DOUBLY, meta: { printed: ESCAPED } });
    expect(remembered.structuredContent).toMatchObject({ redacted: 4 });
    const exported = (await runZ(["export"], { home: box.path })).stdout;
    expect(leaks(join(box.path, "zerodb"), exported, SECRETS)).toEqual([]);
    const turn = (await runJson<{ turns: { content: string; meta: { raw: string } }[] }>(["read", "--session", "s"], { home: box.path })).turns[0]!;
    const [printed, unicode] = turn.content.split("\n");
    expect((JSON.parse(printed!) as { stdout: string }).stdout).toBe("# .env\nDB_PASSWORD=[redacted:assignment]\nSECRET_KEY=[redacted:assignment]\n");
    expect(JSON.parse(unicode!)).toEqual({ cmd: "export GITHUB_DEPLOY_TOKEN=[redacted:assignment]" });
    expect(JSON.parse((JSON.parse(turn.meta.raw) as { output: string }).output)).toEqual({
      stdout: "# .env\nDB_PASSWORD=[redacted:assignment]\nSECRET_KEY=[redacted:assignment]\n",
    });
  }, 60_000);
});

describe("names holding a secret are refused on every door (issue 29 item 9)", () => {
  test("CLI append --session, fact set, object put --name: exit 2, one line naming the field, nothing written", async () => {
    using box = tempDir();
    const cases: [string[], string][] = [
      [["append", "--session", `proj/${GHP}`, "hello"], "session"],
      [["fact", "set", `deploy/${GITLAB}`, "1"], "key"],
    ];
    const file = join(box.path, "notes.txt");
    await Bun.write(file, "object bytes");
    cases.push([["object", "put", file, "--name", `${HF}.txt`], "name"]);
    for (const [args, field] of cases) {
      const r = await runZ(args, { home: box.path });
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
      expect(r.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(r.stderr).toContain(`${field}: holds what looks like a secret`);
      expect(r.stderr).not.toMatch(/ghp_|glpat-|hf_|\bat\s/);
    }
    const stats = await runJson<{ last_lsn: number }>(["stats"], { home: box.path });
    expect(stats.last_lsn).toBe(0);
  }, 60_000);

  test("HTTP: a turn's session or idem_key holding a secret is a 400 naming the field", async () => {
    using box = tempDir();
    const token = await createToken(box.path, "t");
    await using server = await startServer(box.path);
    const h = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const post = async (body: unknown) => {
      const res = await fetch(`${server.url}/v1/turns`, { method: "POST", headers: h, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { error?: { code: string; field?: string } } };
    };
    expect(await post({ session: `proj/${GHP}`, entries: [{ role: "note", content: "x" }] })).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_input", field: "session" } },
    });
    expect(await post({ session: "s", entries: [{ role: "note", content: "x", idem_key: `job-${GITLAB}` }] })).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_input", field: "entries.0.idem_key" } },
    });
  }, 60_000);
});

describe("opting out is explicit and recorded (issue 14, item 2)", () => {
  test("append --no-redact stores the text as given, and its meta says redaction: off", async () => {
    using box = tempDir();
    await runJson(["append", "--session", "s", "--no-redact", `fixture key ${GHP}`], { home: box.path });
    await runJson(["append", "--session", "s", `real key ${GHP}`], { home: box.path });
    const turns = (await runJson<{ turns: { content: string; meta?: Record<string, unknown> }[] }>(["read", "--session", "s"], { home: box.path })).turns;
    expect(turns.map((t) => [t.content.includes(GHP), t.meta?.redaction ?? null])).toEqual([
      [true, "off"],
      [false, null],
    ]);
  });

  test("a caller cannot fake the record: a meta redaction value of its own is replaced", async () => {
    using box = tempDir();
    await runJson(["append", "--session", "s", "--meta", '{"redaction":"off"}', `key ${GHP}`], { home: box.path });
    const t = (await runJson<{ turns: { content: string; meta?: Record<string, unknown> }[] }>(["read", "--session", "s"], { home: box.path })).turns[0]!;
    expect(t.content).not.toContain(GHP);
    expect(t.meta?.redaction).toBeUndefined();
  });

  test("config redact: false turns it off for every door, and each entry says so", async () => {
    using box = tempDir();
    writeConfig(box.path, { redact: false });
    await runJson(["append", "--session", "s", `key ${GHP}`], { home: box.path });
    await runJson(["fact", "set", "k", JSON.stringify({ password: "hunter2-Xq9" })], { home: box.path });
    const t = (await runJson<{ turns: { content: string; meta?: Record<string, unknown> }[] }>(["read", "--session", "s"], { home: box.path })).turns[0]!;
    expect([t.content.includes(GHP), t.meta?.redaction]).toEqual([true, "off"]);
    expect(JSON.stringify((await runJson<{ value: unknown }>(["fact", "get", "k"], { home: box.path })).value)).toContain("hunter2-Xq9");
  });
});
