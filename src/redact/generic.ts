/**
 * Credentials known by where they stand rather than by a prefix: in a URL's
 * userinfo, an Authorization header, `curl -u`, `mysql -p`, a .netrc, and
 * card numbers (Luhn-checked). Names and hosts around them are kept.
 */
import { isBase64Credential, isIdentifier, isPlaceholder, looksRandom, looksSecret, luhn } from "./checks.ts";
import { rule } from "./_rule.ts";
import { type Hit, type Rule, defaultHit } from "./types.ts";

/** The group `s` when it is not a stand-in such as `$TOKEN` or `<password>`. */
function real(kind: string, tier?: "token" | "password") {
  return (m: RegExpExecArray): Hit | null => {
    const s = m.groups!.s!;
    if (isPlaceholder(s.replace(/^["']|["']$/g, ""))) return null;
    // `authorization = base64.decodebytes(...)`: code, not a credential.
    if (tier === "token" && isIdentifier(s)) return null;
    if (tier && !looksSecret(s, tier)) return null;
    return defaultHit(kind, m);
  };
}

/** Issuer prefixes and lengths of card numbers (ISO/IEC 7812): Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay. */
function isCardNumber(digits: string): boolean {
  const n = digits.length;
  const p2 = Number(digits.slice(0, 2));
  const p4 = Number(digits.slice(0, 4));
  const brand =
    (digits[0] === "4" && (n === 13 || n === 16 || n === 19)) ||
    (((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) && n === 16) ||
    ((p2 === 34 || p2 === 37) && n === 15) ||
    ((p4 === 6011 || p2 === 65 || (p4 >= 6440 && p4 <= 6499)) && n >= 16 && n <= 19) ||
    (p4 >= 3528 && p4 <= 3589 && n >= 16 && n <= 19) ||
    ((p2 === 36 || p2 === 38 || (p4 >= 3000 && p4 <= 3059)) && n >= 14 && n <= 19) ||
    (p2 === 62 && n >= 16 && n <= 19);
  // Six equal digits in a row mark the issuers' published test numbers (4111 1111 1111 1111, 6011 0000 0000 0004).
  return brand && luhn(digits) && !/(\d)\1{5}/.test(digits) && !TEST_CARDS.has(digits);
}

/** Test card numbers the networks and payment providers publish: in docs and test suites everywhere, never a customer's. */
const TEST_CARDS = new Set([
  "4242424242424242",
  "4000056655665556",
  "5555555555554444",
  "2223003122003222",
  "5200828282828210",
  "5105105105105100",
  "378282246310005",
  "371449635398431",
  "6011111111111117",
  "6011000990139424",
  "3056930009020004",
  "36227206271667",
  "3566002020360505",
  "6200000000000005",
  "30569309025904",
  "38520000023237",
  "4012888888881881",
  "4222222222222",
  "3530111333300000",
]);

/**
 * Digits grouped as a card is printed: one run, or groups of 4 (4-6-5 for
 * Amex) with one separator throughout (a space, a dash, or a dot for 4.4.4.4
 * only), in prose too: after `card:` or `#`.
 */
function pickCard(m: RegExpExecArray, text: string): Hit | null {
  const raw = m[0];
  // Part of a longer number, a version, a decimal, a time or an identifier: not a card. A label's colon (`card:4539…`) is prose.
  const before = text[m.index - 1] ?? "";
  const after = text[m.index + raw.length] ?? "";
  const labelColon = before === ":" && /[A-Za-z]/.test(text[m.index - 2] ?? "");
  if (
    (/[.\d/:_-]/.test(before) && !labelColon) ||
    /^[.,]\d|^[\d_/:-]/.test(text.slice(m.index + raw.length, m.index + raw.length + 2)) ||
    /[A-Za-z]/.test(after)
  )
    return null;
  const seps = raw.match(/[ .-]/g);
  if (seps && new Set(seps).size > 1) return null;
  const groups = raw
    .split(/[ .-]/)
    .map((g) => g.length)
    .join(",");
  if (seps && !/^4,4,4,4(?:,\d)?$|^4,4,4,4,3$|^4,6,5$|^4,6,4$/.test(groups)) return null;
  if (seps?.[0] === "." && groups !== "4,4,4,4") return null;
  return isCardNumber(raw.replace(/[ .-]/g, "")) ? defaultHit("card_number", m) : null;
}

/** A Cookie header is a credential when one of its values looks generated (a session id, a signed token). */
function pickCookie(m: RegExpExecArray): Hit | null {
  const values = m.groups!.s!.split(";").map((p) => p.slice(p.indexOf("=") + 1).trim());
  return values.some((v) => looksRandom(v, 16)) ? defaultHit("cookie", m) : null;
}

/** Where `"kty"` stands in the text last scanned: found once per text, so many `"d"` members cost one pass, not one each. */
let kty: { text: string; at: number[] } | undefined;

/** JWK private members ("d", "p", "q", "dp", "dq", "qi", and "k" of a symmetric key) count only inside a JWK (a "kty" at most 4,000 characters before them). */
function pickJwk(m: RegExpExecArray, text: string): Hit | null {
  if (kty?.text !== text) {
    const at: number[] = [];
    for (let i = text.indexOf('"kty"'); i >= 0; i = text.indexOf('"kty"', i + 1)) at.push(i);
    kty = { text, at };
  }
  // The last "kty" before the member, by binary search.
  const at = kty.at;
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid]! < m.index) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && m.index - at[lo - 1]! <= 4000 ? defaultHit("private_key", m) : null;
}

/** Credentials by position. */
export const GENERIC_RULES: Rule[] = [
  // scheme://user:password@host: the password may hold `@` and `:`; the last `@` before the host ends it; the user may be empty.
  // The password must look like one a person chose (the password tier): `abc:xyz@`, `someuser:somepassword@` are documentation.
  rule("url_password", ["://"], String.raw`://[^\s/?#@:'"<>\x60]{0,256}:(?<s>[^\s/?#'"<>\x60]{1,256})@(?=[A-Za-z0-9\[])`, {
    pick: (m, text) => (/[A-Za-z][A-Za-z0-9+.-]{1,20}$/.test(text.slice(Math.max(0, m.index - 21), m.index)) ? real("url_password", "password")(m) : null),
  }),
  rule("bearer", ["bearer"], String.raw`\bBearer\s{1,4}(?<s>[A-Za-z0-9._~+/-]{16,4000}=*)`, { i: true, pick: real("bearer", "token") }),
  rule("basic_auth", ["basic"], String.raw`\bBasic\s{1,4}(?<s>[A-Za-z0-9+/]{6,4000}={0,2})(?![A-Za-z0-9+/=])`, {
    i: true,
    pick: (m) => (isBase64Credential(m.groups!.s!) ? defaultHit("basic_auth", m) : null),
  }),
  rule(
    "authorization",
    ["proxy-authorization", "authorization"],
    String.raw`\b(?:Proxy-Authorization|Authorization)["']?\s{0,4}[:=]\s{0,4}["']?(?:(?:token|ApiKey|Key|SSWS|Splunk|GenieKey|Klaviyo-API-Key)\s{1,4})?(?<s>[A-Za-z0-9._~+/=-]{16,4000})`,
    { i: true, pick: real("authorization", "token") },
  ),
  // curl -u user:password (and wget, HTTPie): keeps the user.
  rule(
    "basic_auth",
    ["curl", "wget", "http", "xh"],
    String.raw`\b(?:curl\b|wget\b|https?[ \t]|xh[ \t])[^\n]{0,400}?\s(?:-u|--user|-a|--auth)(?:[ \t]{1,4}|=)?["']?[^\s:"']{0,100}:(?<s>[^\s"'\x60,;)][^\s"'\x60]{0,199})`,
    { pick: real("basic_auth", "password") },
  ),
  // mysql -pSECRET (-p with a space asks for it: nothing to hide).
  rule(
    "mysql_password",
    ["mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlsh", "mysqlcheck", "mariadb", "mariadb-dump"],
    String.raw`\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mysqlcheck|mariadb|mariadb-dump)\b[^\n|;&]{0,300}?\s-p(?<s>'[^'\n]{1,200}'|"[^"\n]{1,200}"|[^\s'"\x60,;)][^\s'"\x60]{0,199})`,
    { pick: real("mysql_password") },
  ),
  rule("netrc_password", ["machine"], String.raw`\bmachine\s{1,8}\S{1,256}\s{1,8}login\s{1,8}\S{1,256}\s{1,8}password\s{1,8}(?<s>\S{1,256})`, {
    pick: real("netrc_password"),
  }),
  // Cookie: a=1; session=…  and  Set-Cookie: sid=…; Path=/ (the attributes after the first pair are kept too: one span, one marker).
  rule("cookie", ["set-cookie", "cookie"], String.raw`\b(?:Set-Cookie|Cookie):[ \t]{0,4}(?<s>[^\r\n"'\x60]{1,8000})`, { i: true, pick: pickCookie }),
  rule(
    "private_key",
    ['"d"', '"p"', '"q"', '"dp"', '"dq"', '"qi"', '"k"'],
    String.raw`(?:"d"|"p"|"q"|"dp"|"dq"|"qi"|"k")\s{0,4}:\s{0,4}"(?<s>[A-Za-z0-9_-]{20,2000})"`,
    { pick: pickJwk },
  ),
  rule("card_number", [], String.raw`\b\d(?:[ .-]?\d){12,18}\b`, { pick: pickCard }),
];
