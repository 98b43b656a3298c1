/**
 * `NAME = value` in every syntax a secret is written in: shell and .env
 * (`export X_TOKEN=…`, `$env:X = "…"`), YAML (`password: …`), JSON
 * (`"api_key": "…"`), TOML and INI (`secret = "…"`), code (`token := "…"`,
 * `key => '…'`), command-line flags (`--password=…`, `--token …`), XML
 * elements and .NET `<add key="…" value="…"/>`. The name says whether the
 * value may be a secret (names.ts); the value must then look like one
 * (checks.ts): placeholders, references and low-entropy words stay.
 */
import { isCodeOrPath, isIdentifier, isPlaceholder, looksSecret } from "./checks.ts";
import { kindForName, nameTier } from "./names.ts";
import { rule } from "./_rule.ts";
import type { Hit, Rule } from "./types.ts";

/** The value after a separator: double-quoted (also as `\"…\"` inside a JSON string), single- or back-quoted, or bare up to a space or punctuation. */
const VALUE = String.raw`(?:\\"(?<eq>[^"\\\n]{1,1000})\\"|"(?<dq>(?:[^"\\\n]|\\.){1,1000})"|'(?<sq>[^'\n]{1,1000})'|\x60(?<bq>[^\x60\n]{1,1000})\x60|(?<bare>[^\s"'\x60;,&|<>(){}\[\]=][^\s"'\x60;,&|<>(){}\[\]]{0,999}))`;

const NAME_CHAR = /[A-Za-z0-9_.-]/;

/** A value as assigned: where it starts, whether it was unquoted, and the character right after it. */
interface Assigned {
  value: string;
  at: number;
  bare: boolean;
  next: string;
}

/** Judges a name and its value; the hit covers the value only, so the name stays for a reader. */
export function judge(name: string, assigned: Assigned): Hit | null {
  const { value, at, bare, next } = assigned;
  const tier = nameTier(name);
  if (tier === null || isPlaceholder(value) || isCodeOrPath(value)) return null;
  if (bare) {
    // Code, not a value: `token = get_token()`, `password = form["password"]`, `password: Optional[str]`, `secret = SECRET_KEY`,
    // `resumptionToken: lastEventId`, `password: BinaryLike`.
    if (next === "(" || next === "[" || isIdentifier(value) || (/^[A-Za-z_][\w.-]{0,80}$/.test(value) && nameTier(value) !== null)) return null;
    // Trailing sentence punctuation is not part of a bare value.
    const trimmed = value.replace(/[.:!?]+$/, "");
    if (trimmed.length < value.length) return judge(name, { value: trimmed, at, bare, next: "." });
  }
  if (!looksSecret(value, tier)) return null;
  return { kind: kindForName(name), start: at, end: at + value.length };
}

/** The value a match captured, where it starts, and whether it was unquoted. */
function assignedValue(m: RegExpExecArray): { value: string; at: number; bare: boolean } | null {
  for (const g of ["eq", "dq", "sq", "bq", "bare"] as const) {
    const span = m.indices?.groups?.[g];
    if (span) return { value: m.groups![g]!, at: span[0], bare: g === "bare" };
  }
  return null;
}

/** `name <sep> value`, found from a secret word in the name; the name's start is found by walking back. */
function pickAssignment(m: RegExpExecArray, text: string): Hit | null {
  let start = m.index;
  while (start > 0 && m.index - start < 80 && NAME_CHAR.test(text[start - 1]!)) start--;
  // user:password@host in a URL is the URL rule's: the user is not a name; a name inside a path is a file's.
  if (text.startsWith("://", start - 3) || text[start - 1] === "/" || text[start - 1] === "\\") return null;
  const name = text.slice(start, m.indices!.groups!.name![1]);
  const v = assignedValue(m);
  if (!v) return null;
  return judge(name, { ...v, next: text[v.at + v.value.length] ?? "" });
}

/** `<name>value</name>`: the tag must open right before the name and close with the same name. */
function pickTag(m: RegExpExecArray, text: string): Hit | null {
  let start = m.index;
  while (start > 0 && m.index - start < 60 && /[\w.:-]/.test(text[start - 1]!)) start--;
  const close = m.groups!.close!;
  if (text[start - 1] !== "<" || text.slice(start, start + close.length + 1) !== `${close}>`) return null;
  const s = m.indices!.groups!.s!;
  return judge(close, { value: m.groups!.s!, at: s[0], bare: false, next: "" });
}

/** A rule whose match has a `name` group and a value group. */
function pickNamed(m: RegExpExecArray, text: string): Hit | null {
  const v = assignedValue(m) ?? (m.indices?.groups?.s ? { value: m.groups!.s!, at: m.indices.groups.s[0], bare: false } : null);
  if (!v) return null;
  return judge(m.groups!.name!, { ...v, next: text[v.at + v.value.length] ?? "" });
}

/** Assignments of secret-named values. */
export const ASSIGNMENT_RULES: Rule[] = [
  rule(
    "assignment",
    ["pass", "pwd", "pw", "secret", "token", "key", "auth", "cred"],
    String.raw`(?<name>(?:pass|pwd|pw|secret|token|key|auth|cred)[A-Za-z0-9_.-]{0,40})(?:\\?["'])?[ \t]{0,4}(?::=|=>|=|:)[ \t]{0,4}${VALUE}`,
    { i: true, pick: pickAssignment },
  ),
  // --password value, --api-token value (the `=` form is an assignment above).
  rule(
    "assignment",
    ["--"],
    String.raw`(?<![\w-])--(?<name>(?:[a-z0-9]+-){0,4}(?:password|passwd|token|secret|api-?key|access-key|secret-key|client-secret)(?:-[a-z0-9]+){0,2})[ \t]+${VALUE}`,
    { i: true, pick: pickNamed },
  ),
  // Kubernetes env lists: - name: DB_PASSWORD / value: "…"
  rule("assignment", ["name:"], String.raw`\bname:[ \t]{0,4}["']?(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})["']?[ \t]*\r?\n[ \t]{0,40}value:[ \t]{0,4}${VALUE}`, {
    pick: pickNamed,
  }),
  // <password>…</password>, <ApiKey>…</ApiKey>: found from the secret word, the tag's start found by walking back.
  rule(
    "assignment",
    ["pass", "pwd", "pw", "secret", "token", "key", "auth", "cred"],
    String.raw`(?:pass|pwd|pw|secret|token|key|auth|cred)[\w.:-]{0,40}>(?<s>[^<>\s]{4,1000})</(?<close>[\w.:-]{1,100})>`,
    { i: true, pick: pickTag },
  ),
  // .NET appSettings: <add key="StripeSecretKey" value="…" />
  rule("assignment", ["key="], String.raw`\bkey=["'](?<name>[^"'\n]{1,80})["']\s{1,4}value=${VALUE}`, { i: true, pick: pickNamed }),
];
