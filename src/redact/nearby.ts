/**
 * Secrets with no prefix and no `=`: known by a telling name a line or two
 * above them, or by the identifier printed beside them. What a console or a
 * credentials CSV shows (AWS's "Secret access key" under its heading, beside
 * the access key id; Twilio's "Auth Token" under its label, after the
 * account SID; an API key's secret after its SK id), and what a person
 * pastes from it.
 */
import { judge } from "./assignment.ts";
import { entropy, looksSecret } from "./checks.ts";
import { rule } from "./_rule.ts";
import type { Hit, Rule } from "./types.ts";

/** An AWS secret access key: 40 characters of base64 with every class in it, as random as AWS makes them (not AWS's EXAMPLEKEY). */
function isAwsSecret(s: string): boolean {
  return /[a-z]/.test(s) && /[A-Z]/.test(s) && /[0-9]/.test(s) && entropy(s) >= 4 && !s.endsWith("EXAMPLEKEY");
}

/** The group `s` when it looks like an AWS secret access key. */
function awsSecret(m: RegExpExecArray): Hit | null {
  const span = m.indices!.groups!.s!;
  return isAwsSecret(m.groups!.s!) ? { kind: "aws_secret_key", start: span[0], end: span[1] } : null;
}

/** Where a label line starts: a line or a quoted string opens there, and list or table markup may stand before the label, nothing else. */
const LABEL_START = /(?:^|\n|["'\x60])[ \t]*(?:[-*#>|]+[ \t]*)?$/;

/**
 * A label alone on its line (`Auth Token`, `Secret access key:`, `API
 * secret`) and a value alone on the next: the label is judged as the name of
 * an assignment, so only labels that name a secret count, and the value
 * must pass that name's entropy check.
 */
function pickLabelled(m: RegExpExecArray, text: string): Hit | null {
  let start = m.index;
  while (start > 0 && m.index - start < 40 && /[A-Za-z _-]/.test(text[start - 1]!)) start--;
  while (text[start] === " " || text[start] === "\t") start++;
  if (!LABEL_START.test(text.slice(Math.max(0, start - 20), start))) return null;
  const label = text.slice(start, m.indices!.groups!.name![1]).trim().replace(/[ -]+/g, "_");
  const span = m.indices!.groups!.s!;
  const hit = judge(label, { value: m.groups!.s!, at: span[0], bare: false, next: "" });
  // The next line alone is a weaker sign than `=`: the value must look generated, whatever the label.
  return hit && looksSecret(m.groups!.s!, "token") ? hit : null;
}

/** Credentials known by what stands near them. */
export const NEARBY_RULES: Rule[] = [
  // "Secret access key", "secret key", "AWS secret" within three lines before a lone 40-character value.
  rule(
    "aws_secret_key",
    ["secret", "aws"],
    String.raw`(?:secret[ _-]?(?:access[ _-]?)?key|aws[ _-]?secret(?:[ _-]?access)?(?:[ _-]?key)?)[^\n]{0,120}?(?:\r?\n[^\n]{0,120}?){0,3}?(?<![A-Za-z0-9/+=])(?<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
    { i: true, pick: awsSecret },
  ),
  // The access key id, then its secret: the IAM console's CSV, a table, `aws configure list`-like output.
  rule(
    "aws_secret_key",
    ["akia", "asia"],
    String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{16}["']?(?:[ \t]*[,;|\t:][ \t]*|[ \t]+)["']?(?<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
    { pick: awsSecret },
  ),
  // A Twilio account SID, then its auth token (32 hex): Client("AC…", "…"), `-u AC…:…`, a .env pasted on one line.
  rule("twilio_auth_token", ["ac"], String.raw`\bAC[0-9a-f]{32}["']?(?:[ \t]*[,:;|][ \t]*|[ \t]+)["']?(?<s>[0-9a-f]{32})(?![0-9A-Za-z])`, {
    pick: (m) => (entropy(m.groups!.s!) >= 3 ? { kind: "twilio_auth_token", start: m.indices!.groups!.s![0], end: m.indices!.groups!.s![1] } : null),
  }),
  // A Twilio API key (SK…), then its secret (32 alphanumerics), right after it or a few words on ("with secret …").
  rule(
    "twilio_api_secret",
    ["sk"],
    String.raw`\bSK[0-9a-fA-F]{32}["']?(?:[ \t]*[,:;|][ \t]*|[ \t]+)(?:(?:[A-Za-z]{1,10}[ \t]+){0,3}?secret[ \t]*[:=]?[ \t]*)?["']?(?<s>[A-Za-z0-9]{32})(?![A-Za-z0-9])`,
    {
      pick: (m) =>
        looksSecret(m.groups!.s!, "token") && !/^[0-9a-f]+$/.test(m.groups!.s!)
          ? { kind: "twilio_api_secret", start: m.indices!.groups!.s![0], end: m.indices!.groups!.s![1] }
          : null,
    },
  ),
  // A label alone on its line, the value alone on the next (blank lines between allowed; quote, list or table markup as on the label's line).
  rule(
    "assignment",
    ["secret", "token", "key", "password"],
    String.raw`(?<name>secret|token|key|password)[ \t]*:?[ \t]*\r?\n(?:[ \t]*(?:[>|][ \t]*)?\r?\n){0,2}[ \t]*(?:[-*>|][ \t]*)?["'\x60]?(?<s>[A-Za-z0-9/+_.=~-]{16,300})[ \t]*(?=\r?\n|$|["'\x60])`,
    { i: true, pick: pickLabelled },
  ),
];
