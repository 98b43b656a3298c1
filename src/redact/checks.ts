/**
 * The tests that tell a secret from what merely sits where one could:
 * placeholders and code references, randomness (Shannon entropy), the Luhn
 * check of card numbers, and base64 that decodes to a credential.
 */

/** Shannon entropy of a string, in bits per character (ASCII counted in an array: this runs on every candidate value). */
export function entropy(s: string): number {
  if (s.length === 0) return 0;
  const ascii = new Int32Array(128);
  let other: Map<number, number> | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) ascii[c]!++;
    else (other ??= new Map()).set(c, (other.get(c) ?? 0) + 1);
  }
  let h = 0;
  const add = (n: number) => {
    const p = n / s.length;
    h -= p * Math.log2(p);
  };
  for (let c = 0; c < 128; c++) if (ascii[c]! > 0) add(ascii[c]!);
  if (other) for (const n of other.values()) add(n);
  return h;
}

/** Values that stand in for a secret: templates, masks, documentation words. */
const PLACEHOLDER_WORDS = new Set([
  "example",
  "sample",
  "placeholder",
  "changeme",
  "change_me",
  "changeit",
  "replaceme",
  "replace_me",
  "secret",
  "password",
  "passwd",
  "token",
  "apikey",
  "api_key",
  "key",
  "null",
  "none",
  "nil",
  "undefined",
  "true",
  "false",
  "required",
  "optional",
  "string",
  "str",
  "bool",
  "boolean",
  "int",
  "number",
  "any",
  "text",
  "hidden",
  "masked",
  "empty",
  "todo",
  "tbd",
  "n/a",
  "na",
  "env",
  "secretstr",
  "test",
  "testing",
  "dummy",
  "default",
  "unknown",
  "value",
  "foo",
  "bar",
  "baz",
  "foobar",
  "pw",
  "pwd",
  "pass",
  "user",
  "username",
  "login",
  "redacted",
  "omitted",
  "removed",
]);

const PLACEHOLDER_SHAPES: RegExp[] = [
  /^[$%]/, // $VAR, ${VAR}, $(cmd), %VAR%
  /\$\{|\{\{|\}\}|#\{|<%|^<.*>$|^\[.*\]$/, // templates: ${x}, {{ x }}, #{x}, <%= x %>, <your-key>, [your key]
  /^\[redacted:/,
  /^pk_(?:live|test)_/, // Stripe publishable keys are public by design
  /^(?=\S+\s+\S).*\b(?:password|secret|token|key)\b/i, // words about the secret: 'Password used to generate key', 'top secret'
  /^(.)\1*$/, // ****, xxxx, 0000
  /your|example|placeholder|changeme|redacted|x{4,}|\*{3,}|\.{3}/i,
  /^(?:os\.environ|process\.env|getenv|env\(|env\[|ENV\[|settings\.|config\.|self\.|this\.|secrets\.|vault:|op:\/\/|ref\+|arn:aws:secretsmanager)/,
];

/** Words documentation builds example credentials from: `somepassword`, `my_secret_key`, `secretpass`, `key_1234`. */
const EXAMPLE_PARTS =
  /^(?:(?:some|my|the|a|an|top|super|your|our|test|demo|sample|dummy|fake|default|admin|user|secret|password|passwd|pass|pw|pwd|key|token|api|value|here|changeme|example)[_.-]?)+(?:[_.-]?(?:1234|123|12345|123456|0000))?$/i;

/** True when a value is a stand-in (template, mask, environment reference, example), not a secret. */
export function isPlaceholder(value: string): boolean {
  const lower = value.toLowerCase();
  if (PLACEHOLDER_WORDS.has(lower) || PLACEHOLDER_WORDS.has(lower.replace(/[!.?]+$/, ""))) return true;
  if (value.length <= 64 && EXAMPLE_PARTS.test(value)) return true;
  return PLACEHOLDER_SHAPES.some((re) => re.test(value));
}

/** True when a value reads as a reference, not a secret: a file path, a URL, a digest, a version, a hex literal. */
export function isCodeOrPath(value: string): boolean {
  return /^(?:\.{0,2}\/|~\/|[A-Za-z]:\\)|^[a-z][a-z0-9+.-]*:\/\/|^(?:sha(?:1|224|256|384|512)|md5|blake2b?)[:-]|^[~^>=<]*v?\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?$|^0x[0-9a-f]+$/i.test(
    value,
  );
}

/**
 * True when an unquoted value is code: a dotted path (`settings.SECRET_KEY`,
 * `a?.b`), a camelCase or PascalCase identifier (`notificationsToolLastEventId`,
 * `BinaryLike`, `mapToken2`), or an expression over properties
 * (`e.altKey?r.C0.ESC:r.C0.CR` in minified JS).
 */
export function isIdentifier(value: string): boolean {
  return (
    /^[A-Za-z_$#][\w$]*(?:\??\.[A-Za-z_$#][\w$]*)+$/.test(value) ||
    (/^[A-Za-z_$]+\d{0,3}$/.test(value) && /[a-z][A-Z]|^[A-Z][a-z]+[A-Z]/.test(value)) ||
    (/[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$]*/.test(value) && /[?:+!&|=]/.test(value))
  );
}

const HEX = /^[0-9a-f]+$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Hex digests and UUIDs: ids far more often than secrets. */
function isHashOrUuid(value: string): boolean {
  return (HEX.test(value) && [32, 40, 56, 64, 96, 128].includes(value.length)) || UUID.test(value);
}

/** Character classes a value draws from: lower, upper, digit, other. */
function classes(s: string): { lower: boolean; upper: boolean; digit: boolean; other: boolean } {
  return { lower: /[a-z]/.test(s), upper: /[A-Z]/.test(s), digit: /[0-9]/.test(s), other: /[^A-Za-z0-9]/.test(s) };
}

/**
 * How strong a value must look to count as a secret, by what its name says:
 * a password may be a word with a digit; a token or secret must look
 * generated; a bare `*_KEY` must look generated and mixed-case.
 */
export type Tier = "password" | "short_password" | "token" | "key";

/** True when a value, assigned to a name of this tier, is a secret. */
export function looksSecret(value: string, tier: Tier): boolean {
  if (isPlaceholder(value)) return false;
  const c = classes(value);
  // A name that is only `pass` or `pw` is as often a test result (`--- PASS: TestX`) or a label as a password.
  if (tier === "short_password" && !(value.length >= 6 && /[0-9]/.test(value) && /[A-Za-z]/.test(value) && /^[\x21-\x7e]+$/.test(value))) return false;
  if (tier === "password" || tier === "short_password") {
    if (value.length < 4 || new Set(value).size < 3) return false;
    // One lower-case word (`peanuts`, `function`, `before`) is a label, a keyword or a documentation example far more often than a password.
    if (/^[a-z]{1,15}$/.test(value)) return false;
    if (!c.digit && !c.other && value.length < 6) return false;
    // A digits-only password is one only when it is long enough to be chosen.
    return !(/^\d+$/.test(value) && value.length < 6);
  }
  if (/\s/.test(value) || value.length < 8) return false;
  const h = entropy(value);
  if (tier === "token") {
    if (/^\d+$/.test(value)) return false;
    return h >= 2.9 && (c.digit || (value.length >= 20 && c.upper && c.lower));
  }
  if (isHashOrUuid(value) || value.length < 16) return false;
  return h >= 3.5 && c.digit && c.upper && c.lower;
}

/** True when a value looks machine-generated: long enough, high entropy, mixed classes. */
export function looksRandom(value: string, minLength = 16): boolean {
  if (value.length < minLength) return false;
  const c = classes(value);
  const mixed = [c.lower, c.upper, c.digit].filter(Boolean).length;
  return mixed >= 2 && c.digit && entropy(value) >= 3.2;
}

/** The Luhn check (ISO/IEC 7812-1) over a string of digits. */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Base64 (standard or url-safe) decoded to latin1 text, or null when it is not base64. */
export function decodeBase64(s: string): string | null {
  if (!/^[A-Za-z0-9+/_-]+=*$/.test(s)) return null;
  try {
    return Buffer.from(s, "base64").toString("latin1");
  } catch {
    return null;
  }
}

/** True when base64 decodes to printable `user:password` (Basic auth, Docker `auths`). */
export function isBase64Credential(s: string): boolean {
  const text = decodeBase64(s);
  if (text === null) return false;
  const colon = text.indexOf(":");
  return colon > 0 && colon < text.length - 1 && /^[\x20-\x7e]+$/.test(text);
}
