import { describe, expect, test } from "bun:test";
import { redact } from "../../src/redact/redact.ts";

describe("redact (DESIGN.md 7.2)", () => {
  test("removes <private> spans, closed or running to the end", () => {
    expect(redact("a <private>secret stuff</private> b").text).toBe("a  b");
    expect(redact("a <PRIVATE>x\ny</PRIVATE> b <private>tail never closed").text).toBe("a  b ");
  });

  test("replaces a PEM private key block", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzz\nabc==\n-----END RSA PRIVATE KEY-----";
    const r = redact(`key:\n${pem}\nafter`);
    expect(r.text).toBe("key:\n[redacted:private_key]\nafter");
    expect(r.kinds).toEqual(["private_key"]);
  });

  test.each([
    ["AKIAZQ3XK7PLM2RT9WVB", "aws_access_key"],
    [`ghp_${"a".repeat(36)}`, "github_token"],
    [`sk-ant-api03-${"b".repeat(40)}`, "anthropic_key"],
    [`sk-proj-${"c".repeat(40)}`, "openai_key"],
    [`xoxb-1234567890-abcdefghij`, "slack_token"],
    [`AIza${"d".repeat(35)}`, "google_api_key"],
    [`sk_live_${"e".repeat(24)}`, "stripe_key"],
    [`npm_${"f".repeat(36)}`, "npm_token"],
  ])("replaces %s as %s", (secret, kind) => {
    const r = redact(`token ${secret} here`);
    expect(r.text).toBe(`token [redacted:${kind}] here`);
    expect(r.redactions).toBe(1);
  });

  test("keeps names and separators, hides values", () => {
    expect(redact("password=hunter22 and API_KEY: 'abcd1234'").text).toBe("password=[redacted:assignment] and API_KEY: '[redacted:assignment]'");
    expect(redact("Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456").text).toBe("Authorization: Bearer [redacted:bearer]");
    expect(redact("postgres://app:s3cretpw@db.local/x").text).toBe("postgres://app:[redacted:url_password]@db.local/x");
  });

  test("leaves ordinary text alone", () => {
    const text = "The password policy needs 12 characters; see docs/api-key-rotation.md. sk-short is fine.";
    expect(redact(text)).toEqual({ text, redactions: 0, kinds: [] });
  });
});
