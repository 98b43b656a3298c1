/**
 * Private key material: PEM blocks (RSA, EC, DSA, OpenSSH, PKCS#8, PGP),
 * the same blocks base64-encoded once more (kubeconfig `client-key-data`,
 * Kubernetes secrets), PuTTY key files and age identities.
 */
import { decodeBase64 } from "./checks.ts";
import { rule } from "./_rule.ts";
import { type Hit, type Rule, defaultHit } from "./types.ts";

/** A base64 blob is a private key when its first bytes decode to a PEM private key header (a certificate is not). */
function base64Pem(m: RegExpExecArray): Hit | null {
  const head = decodeBase64(m[0].slice(0, 64).replace(/=+$/, "").slice(0, 60));
  return head !== null && /PRIVATE KEY/.test(head) ? defaultHit("private_key", m) : null;
}

const BASE64 = /[A-Za-z0-9+/=]/;

/**
 * An END line and the base64 lines before it (a block whose BEGIN is out of
 * sight), walked back line by line over real or `\n`-escaped breaks. A line
 * counts when it could only be base64: 40 characters or more, or holding a
 * digit, `+`, `/` or `=` (prose above the key is not taken). An END line
 * with no such line before it is not a secret.
 */
function pemTail(m: RegExpExecArray, text: string): Hit | null {
  let start = m.index;
  for (let lines = 0; lines < 20000; lines++) {
    let q = start;
    if (text[q - 1] === "\n") q -= text[q - 2] === "\r" ? 2 : 1;
    else if (text.startsWith("\\n", q - 2)) q -= text.startsWith("\\r", q - 4) ? 4 : 2;
    else break;
    let b = q;
    while (b > 0 && q - b < 128 && BASE64.test(text[b - 1]!)) b--;
    const line = text.slice(b, q);
    // The line right above END is the block's last and may be short ("AQAB==").
    if (line.length < (lines === 0 ? 4 : 8) || (line.length < 40 && !/[0-9+/=]/.test(line))) break;
    start = b;
  }
  return start < m.index ? { kind: "private_key", start, end: m.index + m[0].length } : null;
}

/** A BEGIN line is a secret only with key material after it (`indexOf("-----BEGIN PRIVATE KEY-----")` in code is not). */
function pemBlock(m: RegExpExecArray): Hit | null {
  const body = m[0].slice(m[0].indexOf("-----", 5) + 5);
  return /[A-Za-z0-9+/]{16}/.test(body) ? defaultHit("private_key", m) : null;
}

/** Private keys in their usual wrappings. */
export const KEY_RULES: Rule[] = [
  // A block runs to its END line (looked for up to 64 KiB on, never past another BEGIN); a block cut off
  // (a chunk boundary, a truncated paste) runs as far as its base64 does, `\n` escapes included.
  rule(
    "private_key",
    ["-----begin"],
    String.raw`-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:(?:(?!-----BEGIN)[\s\S]){0,65536}?-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]{0,1048576})`,
    { pick: pemBlock },
  ),
  // The tail of a block whose BEGIN was in an earlier chunk: the base64 before an END line.
  rule("private_key", ["-----end"], `-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`, { pick: pemTail }),
  // "LS0tLS1CRUdJTi" is base64 of "-----BEGIN".
  rule("private_key", ["ls0tls1crudjti"], String.raw`\bLS0tLS1CRUdJTi[A-Za-z0-9+/]{20,20000}={0,2}`, { pick: base64Pem }),
  rule(
    "private_key",
    ["putty-user-key-file-"],
    String.raw`PuTTY-User-Key-File-[23]: [^\n]{1,80}\n[\s\S]{0,2000}?Private-Lines: \d{1,4}\r?\n(?<s>(?:[A-Za-z0-9+/=]{1,128}\r?\n){1,200})`,
  ),
  rule("age_secret_key", ["age-secret-key-1"], String.raw`\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`),
];
