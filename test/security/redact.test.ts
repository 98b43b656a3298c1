/**
 * Secrets never enter the store (DESIGN.md 7.2, issue 14 item 2): the
 * redaction scanner against a labelled corpus of fake secrets and
 * look-alikes (test/fixtures/redact/), the forms a hostile review found
 * leaking, idempotence, `<private>` spans, JSON values, and inputs built to
 * make a backtracking regex take forever.
 */
import { describe, expect, test } from "bun:test";
import { redact, redactValue } from "../../src/redact/redact.ts";
import { RULES } from "../../src/redact/rules.ts";
import { anchorsOf } from "./_anchors.ts";
import { base64, rand } from "../fixtures/redact/_rand.ts";
import { type LookalikeRow, type SecretRow, escapedForms, lookalikes, score, secrets } from "../fixtures/redact/corpus.ts";
import { build } from "../fixtures/redact/make.ts";

const text = (t: string) => redact(t).text;
const ids = (rows: (SecretRow | LookalikeRow)[]) => rows.map((r) => r.id);

describe("the corpus", () => {
  test("is what make.ts writes, with at least 150 secrets of 60 kinds and 150 look-alikes", () => {
    const { secrets: s, lookalikes: l } = build();
    expect(secrets()).toEqual(s as SecretRow[]);
    expect(lookalikes()).toEqual(l as LookalikeRow[]);
    expect(s.length).toBeGreaterThanOrEqual(150);
    expect(new Set(secrets().map((r) => r.kind)).size).toBeGreaterThanOrEqual(60);
    expect(l.length).toBeGreaterThanOrEqual(150);
    // Every value really is in its text, so "gone from the output" means something.
    expect(
      secrets()
        .filter((r) => !r.text.includes(r.value))
        .map((r) => r.id),
    ).toEqual([]);
  });

  test("tune split: every secret is gone from the output, and its marker names its kind", () => {
    const s = score(text, "tune");
    expect(ids(s.missed)).toEqual([]);
    const misnamed = secrets()
      .filter((r) => r.split === "tune" && !text(r.text).includes(`[redacted:${r.marker}]`))
      .map((r) => r.id);
    expect(misnamed).toEqual([]);
  });

  test("tune split: every look-alike comes out byte for byte", () => {
    expect(ids(score(text, "tune").changed)).toEqual([]);
  });

  test("held-out split: at least 95% of secrets gone, at most 2% of look-alikes changed", () => {
    const s = score(text, "heldout");
    expect(s.secrets).toBeGreaterThan(50);
    expect(1 - s.missed.length / s.secrets).toBeGreaterThanOrEqual(0.95);
    expect(s.changed.length / s.lookalikes).toBeLessThanOrEqual(0.02);
  });

  test("redacting twice changes nothing the second time, on every corpus text", () => {
    const again = [...secrets(), ...lookalikes()].filter((r) => {
      const once = redact(r.text);
      const twice = redact(once.text);
      return twice.text !== once.text || twice.redactions !== 0;
    });
    expect(ids(again)).toEqual([]);
  });
});

describe("escaped text is scanned as it decodes (issue 29 item 3)", () => {
  test("a .env printed inside a JSON string: both values gone, the JSON still parses", () => {
    const out = text(String.raw`{"stdout": "# .env\nDB_PASSWORD=Zq9vN3kLm2Pw7x\nSECRET_KEY=k3J9xQm2Lp7vN3sW8yZ1bC6dF0gH\n"}`);
    expect(out).toBe(String.raw`{"stdout": "# .env\nDB_PASSWORD=[redacted:assignment]\nSECRET_KEY=[redacted:assignment]\n"}`);
    expect(JSON.parse(out)).toEqual({ stdout: "# .env\nDB_PASSWORD=[redacted:assignment]\nSECRET_KEY=[redacted:assignment]\n" });
  });

  test.each([
    [String.raw`DB_PASSWORD\u003dZq9vN3kLm2Pw7x`, String.raw`DB_PASSWORD\u003d[redacted:assignment]`],
    [String.raw`"{\"password\": \"Zq9vN3kLm2Pw7x\"}"`, String.raw`"{\"password\": \"[redacted:assignment]\"}"`],
    [String.raw`"{\\\"password\\\": \\\"Zq9vN3kLm2Pw7x\\\"}"`, String.raw`"{\\\"password\\\": \\\"[redacted:assignment]\\\"}"`],
    [String.raw`echo \"SECRET_KEY=k3J9xQm2Lp7vN3sW8yZ1bC6dF0gH\" \\n`, String.raw`echo \"SECRET_KEY=[redacted:assignment]\" \\n`],
    [String.raw`{"prompt": "\u003cprivate\u003emy address\u003c/private\u003e hi"}`, `{"prompt": " hi"}`],
  ])("%s", (input, expected) => {
    expect(text(input)).toBe(expected);
  });

  const caught = secrets().filter((r) => !text(r.text).includes(r.value));
  test.each(["escaped", "doubly escaped", "\\u escapes", "tool output"])(
    "every corpus secret, %s: gone as it decodes, and the escaping still valid",
    (form) => {
      expect(caught.length).toBeGreaterThan(300);
      const leaked = caught.flatMap((r) => {
        const f = escapedForms(r.text).find((x) => x.form === form)!;
        const out = text(f.escaped);
        let decoded: string;
        try {
          decoded = f.decode(out);
        } catch {
          return [`${r.id}: no longer valid: ${out}`];
        }
        return decoded.includes(r.value) ? [`${r.id}: ${decoded}`] : [];
      });
      expect(leaked).toEqual([]);
    },
  );

  test("every look-alike, in every escaped form, comes out byte for byte", () => {
    const changed = lookalikes().flatMap((r) => escapedForms(r.text).flatMap((f) => (text(f.escaped) === f.escaped ? [] : [`${r.id} (${f.form})`])));
    expect(changed).toEqual([]);
  });

  test("escaped text redacted twice changes nothing the second time", () => {
    const again = secrets().flatMap((r) =>
      escapedForms(r.text).flatMap((f) => {
        const once = redact(f.escaped);
        const twice = redact(once.text);
        return twice.text === once.text && twice.redactions === 0 ? [] : [`${r.id} (${f.form})`];
      }),
    );
    expect(again).toEqual([]);
  });
});

describe("the rules", () => {
  test("each rule's written anchors are exactly the literal starts of its regex (a missing one would hide secrets)", () => {
    // Rules that start before their anchor (back > 0) or scan everything ([]) are checked by their corpus cases instead.
    const wrong = RULES.filter((r) => r.back === 0 && r.anchors.length > 0)
      .filter((r) => JSON.stringify(anchorsOf(r.source)) !== JSON.stringify(r.anchors))
      .map((r) => `${r.kind}: ${JSON.stringify(r.anchors)} vs ${JSON.stringify(anchorsOf(r.source))}`);
    expect(wrong).toEqual([]);
    // Whole-text rules are few: each costs a pass over every captured byte.
    expect(
      RULES.filter((r) => r.anchors.length === 0)
        .map((r) => r.kind)
        .sort(),
    ).toEqual(["airtable_token", "card_number", "discord_token", "mailgun_key"]);
  });
});

describe("what the hostile review found leaking (issue 14)", () => {
  const SECRET40 = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYq3x9Lk2pQz";
  test.each([
    [`aws_secret_access_key = ${SECRET40}`, "aws_secret_access_key = [redacted:aws_secret_key]"],
    [`export AWS_SECRET_ACCESS_KEY=${SECRET40}`, "export AWS_SECRET_ACCESS_KEY=[redacted:aws_secret_key]"],
    [`{"SecretAccessKey": "${SECRET40}"}`, '{"SecretAccessKey": "[redacted:aws_secret_key]"}'],
    [`aws_secret_access_key: ${SECRET40}`, "aws_secret_access_key: [redacted:aws_secret_key]"],
    ["token glpat-Xk29vQm3LpR7sT1wYb4N here", "token [redacted:gitlab_token] here"],
    ["https://hooks.slack.com/services/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", "https://hooks.slack.com/services/[redacted:slack_webhook]"],
    ["client_secret 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", "client_secret [redacted:gcp_oauth_secret]"],
    ["login with hf_QpL4mZ8xR2vN7kW3sT9yB1cD6fG0hJ5aE1", "login with [redacted:huggingface_token]"],
    ["twine upload -p pypi-AgEIcHlwaS5vcmcCJGI3ZTk1ZDFhLTQ2YjMtNDhiNy1hYjQ3LWZmMDkzOWFiMmQ2NQ", "twine upload -p [redacted:pypi_token]"],
    ["key SK0123456789abcdef0123456789abcdef ok", "key [redacted:twilio_key] ok"],
    ["sent with 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 in a log", "sent with [redacted:sendgrid_key] in a log"],
    ["export GITHUB_DEPLOY_TOKEN=a8F3kLm29xQz7Vb1Nc5Rt0YwE2", "export GITHUB_DEPLOY_TOKEN=[redacted:assignment]"],
    ["VAULT_TOKEN=hvs.CAESIJx4k2mP9qL7vN3sW8yZ1bC6dF0gH5jT", "VAULT_TOKEN=[redacted:vault_token]"],
    ["PGPASSWORD=Tr0ub4dor-x9 psql -h db", "PGPASSWORD=[redacted:assignment] psql -h db"],
    ["mysql -u root -pS3cr3t!x app", "mysql -u root -p[redacted:mysql_password] app"],
    ["curl -u admin:Pa55w0rd-q https://ci/job", "curl -u admin:[redacted:basic_auth] https://ci/job"],
    ["Authorization: Basic YWRtaW46UGE1NXcwcmQtcQ==", "Authorization: Basic [redacted:basic_auth]"],
    [
      "AccountName=acme;AccountKey=q1W2e3R4t5Y6u7I8o9P0a1S2d3F4g5H6j7K8l9Z0x1C2v3B4n5M6q7W8e9R0t1Y2u3I4o5P6a7S8d9F0g1H2jA==;EndpointSuffix=core.windows.net",
      "AccountName=acme;AccountKey=[redacted:azure_storage_key];EndpointSuffix=core.windows.net",
    ],
    [
      "https://acme.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=k3J9x%2BQm2Lp7vN3sW8yZ1bC6dF0gH5jT4aE%3D",
      "https://acme.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=[redacted:azure_sas]",
    ],
    ['{"auths": {"ghcr.io": {"auth": "ZGVwbG95OmhAcmQtdDBndWVzcw=="}}}', '{"auths": {"ghcr.io": {"auth": "[redacted:docker_auth]"}}}'],
    ["shpat_0123456789abcdef0123456789abcdef", "[redacted:shopify_token]"],
    ["dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "[redacted:digitalocean_token]"],
    ["bot 7123456789:AAH4k2mP9qL7vN3sW8yZ1bC6dF0gH5jT4aE", "bot [redacted:telegram_bot_token]"],
    ["AGE-SECRET-KEY-1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE", "[redacted:age_secret_key]"],
    ["paid with 4539 1488 0343 6467 today", "paid with [redacted:card_number] today"],
    ["REDIS_URL=redis://:s3cretPassw0rd@cache:6379/0", "REDIS_URL=redis://:[redacted:url_password]@cache:6379/0"],
    ["mongodb://app:p@ss:w0rd@db.example.com/prod", "mongodb://app:[redacted:url_password]@db.example.com/prod"],
    ["https://x-access-token:hunter2xyz@github.com/acme/x.git", "https://x-access-token:[redacted:url_password]@github.com/acme/x.git"],
    ['curl -H "Cookie: theme=dark; sessionid=k3J9xQm2Lp7vN3sW8yZ1bC6dF0gH5jT" https://app', 'curl -H "Cookie: [redacted:cookie]" https://app'],
    ['{"kty":"oct","k":"GawgguFyGrWKav7AX4VKUg2xK9LqP0aZ"}', '{"kty":"oct","k":"[redacted:private_key]"}'],
  ])("%s", (input, expected) => {
    expect(text(input)).toBe(expected);
  });

  test.each([
    "password: ${DB_PASSWORD}",
    "api_key=<your-api-key>",
    'token = os.environ["TOKEN"]',
    "secret_key = settings.SECRET_KEY",
    'token = "example"',
    "sha256:0f5c7ab3a1d9e7c2b4f6a8d0e2c4b6a8d0f2e4c6b8a0d2f4e6c8b0a2d4f6e8c0",
    "integrity sha512-3vQ/MlN0pPz8tS5fz4nqPc0d7U2n5JvZx2U7bqS0Ff1pZ8Yq3nZ8tQ==",
    "4539 1488 0343 6468",
    "Stripe's test card 4242 4242 4242 4242 and Visa's 4111 1111 1111 1111",
    "resumptionToken: notificationsToolLastEventId,",
    "password: BinaryLike,",
    "readonly STENCIL_PASS_DEPTH_FAIL: 0x0B95;",
    '"pbkdf2-password": "1.2.1"',
    'const TOKEN_STRINGS = "[A-Za-z0-9._~+/-]+=*";',
    'value: "sk-proj-xxxxxxxxxxxxxxxxxxxx"',
    'if (pem.indexOf("-----BEGIN PRIVATE KEY-----") !== 0) throw err;',
    "const password = 'Password used to generate key';",
    "https://github.com/acme/zerodb and postgres://app@localhost/db",
    "--- PASS: TestHubForgetsClosed (0.18s)",
    'const MARK = { pass: "ok  ", warn: "warn" };',
    "`curl -u user:pass`, `mysql -pSECRET`, `redis://:pw@host`",
  ])("leaves %s alone", (input) => {
    expect(redact(input)).toEqual({ text: input, redactions: 0, kinds: [] });
  });
});

describe("shapes of the common scanners' rule sets (issue 29 item 10)", () => {
  // Fake secrets: none is a real credential.
  const AWS = "Xk29vQm3LpR7sT1wYb4N/8aZ+qE5uJ0cH6fG2dK9";
  const HEX32 = "4f0c9e2b7a1d3c5e8f6a0b2c4d6e8f1a";
  const SID = "AC4f0c9e2b7a1d3c5e8f6a0b2c4d6e8f1b";
  const found: [string, string][] = [
    [`AWS Secret Access Key:\n${AWS}\n`, "AWS Secret Access Key:\n[redacted:aws_secret_key]\n"],
    [`Secret access key\n\n  ${AWS}`, "Secret access key\n\n  [redacted:aws_secret_key]"],
    [
      `User name,Password,Access key ID,Secret access key\nci,,AKIAZQ3XK7PLM2RT9WVB,${AWS}`,
      "User name,Password,Access key ID,Secret access key\nci,,[redacted:aws_access_key],[redacted:aws_secret_key]",
    ],
    [`| AKIAZQ3XK7PLM2RT9WVB | ${AWS} |`, "| [redacted:aws_access_key] | [redacted:aws_secret_key] |"],
    [`the secret key for the deploy user is ${AWS}`, "the secret key for the deploy user is [redacted:aws_secret_key]"],
    [`Auth Token\n${HEX32}`, "Auth Token\n[redacted:assignment]"],
    [`client = Client("${SID}", "${HEX32}")`, `client = Client("${SID}", "[redacted:twilio_auth_token]")`],
    [`curl -X POST https://api.twilio.com -d To=x ${SID}:${HEX32}`, `curl -X POST https://api.twilio.com -d To=x ${SID}:[redacted:twilio_auth_token]`],
    ["key SK0123456789abcdef0123456789abcdef secret Zq8vN3kLm2Pw7Rt5Yx1BaC4dE6fG8hJ0", "key [redacted:twilio_key] secret [redacted:twilio_api_secret]"],
    ["card: 4539.1488.0343.6467", "card: [redacted:card_number]"],
    ["card:4539148803436467 exp 09/28", "card:[redacted:card_number] exp 09/28"],
    ["ALGOLIA_ADMIN_KEY=f3a9c2d17b8e4a6c9d0e1f2a3b4c5d6e", "ALGOLIA_ADMIN_KEY=[redacted:assignment]"],
    ["DATADOG_APP_KEY: 0f3c9a7e2d1b4c8a6e5f0a9b8c7d6e5f4a3b2c1d", "DATADOG_APP_KEY: [redacted:assignment]"],
    ["token AKCpq7W2e9R4t1Y6u3I8o5P0a2S7d4F9g1H6j3K8l5Z0x2C7v4B9n1M6q3W8e5R0t2Y7u4I9o", "token [redacted:artifactory_token]"],
    ["export BREVO=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", "export BREVO=[redacted:brevo_key]"],
    ["oc login --token=sha256~Zq8vN3kLm2Pw7Rt5Yx1BaC4dE6fG8hJ0kL2mN4pQ6sT", "oc login --token=[redacted:openshift_token]"],
    ["PLAID=access-sandbox-4f0c9e2b-7a1d-4c5e-8f6a-0b2c4d6e8f1a", "PLAID=[redacted:plaid_token]"],
    ["BUNDLE_ENTERPRISE__CONTRIBSYS__COM=cafebabe:deadbeef", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM=[redacted:sidekiq_secret]"],
    [
      `auth ${Buffer.from("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaSIsImV4cCI6NDEwMjQ0NDgwMH0.q7W2e9R4t1Y6u3I8o5P0a2S7d4F9g1H6").toString("base64")}`,
      "auth [redacted:jwt]",
    ],
  ];
  test.each(found)("%s", (input, expected) => {
    expect(text(input)).toBe(expected);
  });

  test.each(found.map(([input]) => input))("escaped in every form, gone as it decodes: %s", (input) => {
    const value = /\[redacted:/.test(text(input)) ? text(input) : "";
    for (const f of escapedForms(input)) expect(f.decode(text(f.escaped)), f.form).toBe(value);
  });

  // What ordinary code, logs and documentation hold that looks like a secret to a careless rule (each from a real package's text).
  test.each([
    "id 3f2c1b0a-9d8e-4f7a-b6c5-d4e3f2a1b0c9 and commit 44f3c9c9f0f03e783abc2284fe7c070068956e81",
    "sha256:0f5c7ab3a1d9e7c2b4f6a8d0e2c4b6a8d0f2e4c6b8a0d2f4e6c8b0a2d4f6e8c0",
    '"integrity": "sha512-3vQ/MlN0pPz8tS5fz4nqPc0d7U2n5JvZx2U7bqS0Ff1pZ8Yq3nZ8tQjfW2x9Rk5LmQ7Vb1Nc5Rt0YwE2a8F3kLm29xQz7==",',
    `<img src="data:image/png;base64,${base64(rand(7), 600)}">`,
    'accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    '"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"',
    'messages:{pass:"Element does not have a tabindex greater than 0",fail:"Element has a tabindex greater than 0"}',
    '"pass": "要素に0より大きいtabindexは存在しません",',
    '.codicon-pass:before,.codicon-issue-closed:before{content:"\\eba4"}',
    "o.key=e.altKey?r.C0.ESC+r.C0.CR:r.C0.CR,o.cancel=!0;break;case 32:o.key=r.C0.NUL:e.keyCode",
    '"libsecret-1.so.0": "libsecret-1-0",',
    "Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
    "var mapToken = mapToken2;",
    "authenticationCleartextPassword: function () {",
    "authorization = base64.decodebytes(authorization)",
    "passphrase: 'top secret',",
    "password: 'secretpass', password: 'ahotproject', password: \"peanuts\", password: 'secret!',",
    'PGPASSWORD="my awesome password"',
    "new URL('http://abc:xyz@example.com'); parse('postgres://someuser:somepassword@somehost:381/db')",
    "in valid uri format like dotenv://:key_1234@dotenvx.com/vault/.env.vault?environment=production",
    "Access key ID,Secret access key\n# rotate them with `aws iam create-access-key`\n",
    "Auth Token\nClick to reveal",
    "version 4.4.4.4 of 1234.5678.9012.3456 build",
  ])("leaves alone: %s", (input) => {
    expect(redact(input)).toEqual({ text: input, redactions: 0, kinds: [] });
  });
});

describe("private keys cut off", () => {
  const body = "MIIEowIBAAKCAQEAzz8Kp1q9vN3sW8yZ1bC6dF0gH5jT4aEQx2LmR7tY0uI3oP6s";
  test("a block cut off (a chunk boundary, a truncated paste) is redacted as far as its base64 runs", () => {
    expect(text(`key = "-----BEGIN RSA PRIVATE KEY-----\n${body}\nAB12");\nnext();`)).toBe('key = "[redacted:private_key]");\nnext();');
  });

  test("the tail of a block whose BEGIN was in an earlier chunk is redacted, the prose above it kept", () => {
    expect(text(`the key is underneath\n${body}\nAQAB==\n-----END RSA PRIVATE KEY-----\nafter`)).toBe("the key is underneath\n[redacted:private_key]\nafter");
    expect(text("see -----END RSA PRIVATE KEY----- in the docs")).toBe("see -----END RSA PRIVATE KEY----- in the docs");
  });
});

describe("<private> spans", () => {
  test("are removed and counted once each, secrets inside them included", () => {
    const r = redact("a <private>ghp_0123456789abcdefghijABCDEFGHIJ012345 and more</private> b <Private>x</Private> c");
    expect(r).toEqual({ text: "a  b  c", redactions: 2, kinds: ["private"] });
  });

  test("an unclosed span runs to the end; secrets before it are still redacted", () => {
    const r = redact("key AKIAZQ3XK7PLM2RT9WVB then <private>the rest");
    expect(r).toEqual({ text: "key [redacted:aws_access_key] then ", redactions: 2, kinds: ["private", "aws_access_key"] });
  });
});

describe("redactValue", () => {
  const input = {
    password: "hunter2xyz",
    db: { aws_secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYq3x9Lk2pQz", host: "db.internal", port: 5432 },
    notes: ["deploy with AKIAZQ3XK7PLM2RT9WVB", "nothing here", null, true, 3.5],
    api_key: "${API_KEY}",
    token_url: "https://auth.example.com/token",
    "x-api-key": "example",
    headers: { Authorization: "k3J9xQm2Lp7vN3sW8yZ1bC6dF0gH5jT" },
  };

  test("redacts every string at any depth, judges secret-named keys' values, keeps keys, numbers and placeholders", () => {
    const before = structuredClone(input);
    const r = redactValue(input);
    expect(r.value).toEqual({
      password: "[redacted:assignment]",
      db: { aws_secret_access_key: "[redacted:aws_secret_key]", host: "db.internal", port: 5432 },
      notes: ["deploy with [redacted:aws_access_key]", "nothing here", null, true, 3.5],
      api_key: "${API_KEY}",
      token_url: "https://auth.example.com/token",
      "x-api-key": "example",
      headers: { Authorization: "[redacted:assignment]" },
    });
    expect(r.redactions).toBe(4);
    expect(r.kinds.sort()).toEqual(["assignment", "aws_access_key", "aws_secret_key"]);
    // The input is untouched.
    expect(input).toEqual(before);
  });

  test("is idempotent, and a string is redacted as text too", () => {
    const once = redactValue({ cmd: "export STRIPE_KEY=sk_live_0123456789abcdefABCDEF" });
    expect(once.value).toEqual({ cmd: "export STRIPE_KEY=[redacted:stripe_key]" });
    expect(redactValue(once.value)).toEqual({ value: once.value, redactions: 0, kinds: [] });
    expect(redactValue("plain")).toEqual({ value: "plain", redactions: 0, kinds: [] });
  });

  test("a string seen before is redacted and counted again, in every value and at every place (short strings' results are kept)", () => {
    const secret = "deploy with AKIAZQ3XK7PLM2RT9WVB";
    const first = redactValue({ a: secret, b: [secret, "plain"] });
    expect(first).toEqual({
      value: { a: "deploy with [redacted:aws_access_key]", b: ["deploy with [redacted:aws_access_key]", "plain"] },
      redactions: 2,
      kinds: ["aws_access_key"],
    });
    // Another value holding the same strings: the same outcome, its own count; the kept result is not changed by its readers.
    expect(redactValue({ c: secret })).toEqual({ value: { c: "deploy with [redacted:aws_access_key]" }, redactions: 1, kinds: ["aws_access_key"] });
    expect(redactValue({ password: "hunter2xyz", note: "hunter2xyz" }).value).toEqual({ password: "[redacted:assignment]", note: "hunter2xyz" });
    const long = `${"x ".repeat(200)}AKIAZQ3XK7PLM2RT9WVB`;
    expect(redactValue([long, long])).toEqual({ value: [redact(long).text, redact(long).text], redactions: 2, kinds: ["aws_access_key"] });
  });

  test("a __proto__ key stays a plain key, and 100,000 levels of nesting do not overflow the stack", () => {
    const r = redactValue(JSON.parse('{"__proto__": {"password": "Tr0ub4dor-x9"}}'));
    expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
    expect(JSON.stringify(r.value)).toBe('{"__proto__":{"password":"[redacted:assignment]"}}');
    const deep = JSON.parse(`${"[".repeat(100_000)}"AKIAZQ3XK7PLM2RT9WVB"${"]".repeat(100_000)}`);
    expect(redactValue(deep).redactions).toBe(1);
  });
});

describe("inputs built to make a backtracking regex take forever (1-3 MiB) finish, with the right output", () => {
  const MiB = 1 << 20;
  const r = rand(99);
  const unchanged: [string, string][] = [
    ["a", "a".repeat(3 * MiB)],
    ["=", "=".repeat(3 * MiB)],
    [":", ":".repeat(3 * MiB)],
    ["-", "-".repeat(3 * MiB)],
    ["base64", base64(r, 2 * MiB)],
    ["digits with spaces", "4 ".repeat(MiB)],
    ["Bearer", "Bearer ".repeat(400_000)],
    ["scheme and colons", "http://a:".repeat(300_000)],
    ["key names", "api_key_secret_token_".repeat(100_000)],
    ["curl flags", `curl ${"-u ".repeat(MiB)}`],
    ["eyJ", "eyJ.".repeat(700_000)],
    ["JWK members with no kty", '"d":"aaaaaaaaaaaaaaaaaaaaaaaa",'.repeat(100_000)],
    ["Cookie headers", "Cookie: a=b; ".repeat(200_000)],
    ["JWKs with short members", '{"kty":"oct","k":"short"},'.repeat(100_000)],
  ];
  test.each(unchanged)(
    "%s: unchanged",
    (_, input) => {
      expect(redact(input).redactions).toBe(0);
    },
    120_000,
  );

  test("a PEM header repeated with no END line and no key material: unchanged", () => {
    expect(redact(`x ${"-----BEGIN RSA PRIVATE KEY-----\n".repeat(100_000)}`).redactions).toBe(0);
  }, 120_000);

  test("base64 lines then an END line, repeated, with no BEGIN: one key's tail each", () => {
    const tail = `${"QUJD".repeat(16)}\n-----END RSA PRIVATE KEY-----\n`;
    expect(redact(tail.repeat(30_000)).text).toBe("[redacted:private_key]\n".repeat(30_000));
  }, 120_000);

  test("dense secrets: every one replaced", () => {
    const n = 60_000;
    const input = "password=hunter2xyz ghp_0123456789abcdefghijABCDEFGHIJ012345\n".repeat(n);
    const out = redact(input);
    expect(out.redactions).toBe(2 * n);
    expect(out.text).toBe("password=[redacted:assignment] [redacted:github_token]\n".repeat(n));
  }, 120_000);
});
