/** Secrets never enter the store (DESIGN.md 7.2): redaction before anything is stored, checked down to the bytes on disk. */
import { describe, expect, test } from "bun:test";
import { appendFileSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { captureSession, projectSession } from "../../src/project.ts";
import { appendLines, claudeLayout, conversation, logLines, onlyCaptureSession, readSession, runHook, runJson } from "./_fixtures.ts";

const SID = "5ec2e700-0000-4000-8000-000000000008";
const AWS = "AKIAZQ3XK7PLM2RT9WVB";
const PEM_BODY = "MIIEpQIBAAKCAQEAzerodbTestKeyMaterialQ1w2e3r4t5y6u7i8o9p0";
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\nbXlzZWNyZXRrZXlieXRlcw==\n-----END RSA PRIVATE KEY-----`;
const PRIVATE = "my home address is 12 Quietlane Road";
const SECRETS = [AWS, PEM_BODY, "Quietlane"];

/** Every file under a directory, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

function writeSecrets(L: ReturnType<typeof claudeLayout>): void {
  const c = conversation(SID, L.cwd);
  appendLines(L.transcript(SID), [
    c.queue(`deploy with ${AWS}`),
    c.user(`here is the key:\n${PEM}\nand <private>${PRIVATE}</private> thanks`),
    c.assistant([{ type: "tool_use", id: "t1", name: "Bash", input: { command: `AWS_ACCESS_KEY_ID=${AWS} aws s3 ls` } }]),
    c.toolResult("t1", [{ type: "text", text: `using ${AWS}\n${PEM}` }]),
    c.lastPrompt(`<private>${PRIVATE}</private>`),
  ]);
  // A broken line holding a secret is kept as a note: redacted too.
  appendFileSync(L.transcript(SID), `{"type":"user","message":"${AWS} <private>${PRIVATE}\n`);
  appendLines(L.subagent(SID, "s1"), [{ ...c.user(`subagent saw ${AWS}`), isSidechain: true }]);
}

describe("redaction", () => {
  test("an AWS key, a PEM private key and a <private> span are in no search result and no byte of the store", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    writeSecrets(L);
    expect((await runHook(L, "Stop", SID)).code).toBe(0);
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    expect(turns.length).toBe(7);
    for (const t of turns) for (const s of SECRETS) expect(`${t.content}${JSON.stringify(t.meta)}`).not.toContain(s);
    expect(turns[1]!.content).toBe("here is the key:\n[redacted:private_key]\nand  thanks");
    expect(turns[1]!.meta.redacted).toBe(2);
    expect(turns[2]!.content).toBe('[tool_use Bash]\n{"command":"AWS_ACCESS_KEY_ID=[redacted:aws_access_key] aws s3 ls"}');
    for (const s of [AWS, "Quietlane", "zerodbTestKeyMaterialQ1w2e3r4t5y6u7i8o9p0"]) {
      expect((await runJson(["search", s], { home: L.home })).hits).toEqual([]);
    }
    expect((await runJson(["stats"], { home: L.home })).redactions).toBeGreaterThanOrEqual(8);
    // Down to the bytes: the database, its WAL and everything else in the home.
    const all = files(join(L.home, "zerodb"));
    expect(all.some((f) => f.endsWith("zerodb.sqlite"))).toBe(true);
    for (const f of all) {
      if (statSync(f).size === 0) continue;
      const bytes = readFileSync(f);
      for (const s of SECRETS) expect({ file: f, found: bytes.includes(Buffer.from(s)) }).toEqual({ file: f, found: false });
    }
  });

  test("config capture.redact false stores the text as it is", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path);
    await Bun.write(join(L.home, "zerodb", "config.json"), JSON.stringify({ capture: { redact: false } }));
    writeSecrets(L);
    expect((await runHook(L, "Stop", SID)).code).toBe(0);
    const turns = await readSession(L.home, await onlyCaptureSession(L.home));
    expect(turns[0]!.content).toContain(AWS);
    expect(turns[0]!.meta.redacted).toBeUndefined();
  });
});

describe("names capture derives from paths and ids (issue 29 item 9)", () => {
  // A checkout named after a token, and a transcript whose id is one: fake secrets.
  const DIR_TOKEN = "glpat-Zq8vN3kLm2Pw7Rt5Yx1B";
  const ID_TOKEN = "ghp_R4nd0mT0k3nF0rD00rsTest0123456789abcd";

  test("a project directory and a transcript id holding a secret shape: the run captures everything, no name holds the secret", async () => {
    using dir = tempDir();
    const L = claudeLayout(dir.path, `deploy-${DIR_TOKEN}`);
    const c = conversation(ID_TOKEN, L.cwd);
    appendLines(L.transcript(ID_TOKEN), [c.user("first"), c.assistant([{ type: "text", text: "second" }])]);
    expect((await runHook(L, "SessionStart", ID_TOKEN)).code).toBe(0);
    expect((await runHook(L, "Stop", ID_TOKEN)).code).toBe(0);
    expect(await logLines(L.home), "the run failed nothing").toEqual([]);
    const project = projectSession(L.cwd);
    expect(project).toMatch(/^deploy-\[redacted:gitlab_token\]-[0-9a-f]{8}$/);
    const session = await onlyCaptureSession(L.home);
    expect(session).toBe(captureSession(project, ID_TOKEN));
    const turns = await readSession(L.home, session);
    expect(turns.map((t) => t.content)).toEqual(["first", "second"]);
    // The idempotency keys carry the id's digest, not the id: the same on every run, so a replay is still one.
    expect(turns.map((t) => t.idem_key)).toEqual([expect.stringMatching(/^sha256:[0-9a-f]{64}:0:0$/), expect.stringMatching(/^sha256:[0-9a-f]{64}:1:0$/)]);
    for (const t of turns) expect(`${t.session}${t.idem_key}${JSON.stringify(t.meta)}`).not.toMatch(/glpat-|ghp_/);
    expect((await runHook(L, "Stop", ID_TOKEN)).code).toBe(0);
    expect(await readSession(L.home, session)).toHaveLength(2);
    const facts = await runJson<{ facts: { key: string }[] }>(["fact", "list", "--prefix", "project/"], { home: L.home });
    expect(facts.facts.map((f) => f.key)).toEqual([`project/${project}/latest-capture`]);
  }, 60_000);

  test("two directories whose names differ only in the secret keep two project sessions", () => {
    using dir = tempDir();
    const a = claudeLayout(dir.path, `x-${DIR_TOKEN}`).cwd;
    const b = claudeLayout(dir.path, "x-glpat-Aa8vN3kLm2Pw7Rt5Yx1C").cwd;
    expect(projectSession(a)).not.toBe(projectSession(b));
    expect(projectSession(a).slice(0, -9)).toBe(projectSession(b).slice(0, -9));
  });
});
