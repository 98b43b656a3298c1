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

/** Private keys in their usual wrappings. */
export const KEY_RULES: Rule[] = [
  // A block runs to its END line, or to the end of the text when it was cut off.
  rule("private_key", ["-----begin"], String.raw`-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|$)`),
  // "LS0tLS1CRUdJTi" is base64 of "-----BEGIN".
  rule("private_key", ["ls0tls1crudjti"], String.raw`\bLS0tLS1CRUdJTi[A-Za-z0-9+/]{20,20000}={0,2}`, { pick: base64Pem }),
  rule("private_key", ["putty-user-key-file-"], String.raw`PuTTY-User-Key-File-[23]: [^\n]{1,80}\n[\s\S]{0,2000}?Private-Lines: \d{1,4}\r?\n(?<s>(?:[A-Za-z0-9+/=]{1,128}\r?\n){1,200})`),
  rule("age_secret_key", ["age-secret-key-1"], String.raw`\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`),
];
