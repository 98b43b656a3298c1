/**
 * Further vendors' token formats, for the breadth of a common secret
 * scanner's default rules (gitleaks' rule list was read for which vendors
 * and prefixes exist; the patterns here are written from each format):
 * artifact stores, cloud AI and data platforms, payments, identity and mail.
 * Each starts with a prefix of its own, so each runs only where it stands.
 */
import { decodeBase64, looksRandom } from "./checks.ts";
import { rule } from "./_rule.ts";
import { type Hit, type Rule, defaultHit } from "./types.ts";

/** Keeps a match only when it looks generated (for prefixes short or common enough to start a word). */
function random(kind: string, minLength = 16) {
  return (m: RegExpExecArray): Hit | null => (looksRandom(m[0], minLength) ? defaultHit(kind, m) : null);
}

/** A JWT written once more in base64 (`ZXlK` is base64 of `eyJ`): a secret when it decodes to header.payload.signature. */
function base64Jwt(m: RegExpExecArray): Hit | null {
  const decoded = decodeBase64(m[0].slice(0, 400).replace(/=+$/, "").slice(0, 396));
  return decoded !== null && /^eyJ[A-Za-z0-9_-]{8,}\.eyJ/.test(decoded) ? defaultHit("jwt", m) : null;
}

/** Further vendors' tokens. */
export const VENDOR_RULES: Rule[] = [
  // Artifact stores: JFrog Artifactory's API key and reference token (base64 of "ref").
  rule("artifactory_token", ["akcp", "cmvmd"], String.raw`\bAKCp[A-Za-z0-9]{69}\b|\bcmVmd[A-Za-z0-9]{59}\b`),
  // Amazon Bedrock API keys: long-lived ABSK…, and short-lived ones (base64 of bedrock.amazonaws.com).
  rule(
    "aws_bedrock_key",
    ["absk", "bedrock-api-key-ymvkcm9jay5hbwf6b25hd3muy29t"],
    String.raw`\bABSK[A-Za-z0-9+/]{109,269}={0,2}|\bbedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%-]{0,2000}`,
  ),
  rule("clickhouse_key", ["4b1d"], String.raw`\b4b1d[A-Za-z0-9]{38}\b`, { pick: random("clickhouse_key") }),
  rule("adobe_client_secret", ["p8e-"], String.raw`\bp8e-[A-Za-z0-9]{32}(?![A-Za-z0-9])`, { pick: random("adobe_client_secret") }),
  rule("defined_networking_key", ["dnkey-"], String.raw`\bdnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}`),
  rule("duffel_token", ["duffel_"], String.raw`\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}`),
  rule("frameio_token", ["fio-u-"], String.raw`\bfio-u-[A-Za-z0-9_=-]{64}`),
  rule("intra42_secret", ["s-s4t2"], String.raw`\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b`),
  rule("octopus_key", ["api-"], String.raw`\bAPI-[A-Z0-9]{26}\b`, { pick: random("octopus_key") }),
  rule("openshift_token", ["sha256~"], String.raw`\bsha256~[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])`),
  rule("plaid_token", ["access-"], String.raw`\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`),
  rule("brevo_key", ["xkeysib", "xsmtpsib"], String.raw`\b(?:xkeysib|xsmtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b`),
  rule("settlemint_token", ["sm_"], String.raw`\bsm_(?:pat|aat|sat)_[A-Za-z0-9]{16}\b`),
  rule("yandex_token", ["t1.", "aqvn"], String.raw`\bt1\.[A-Za-z0-9_-]{8,200}={0,2}\.[A-Za-z0-9_-]{86}={0,2}|\bAQVN[A-Za-z0-9_-]{35,38}(?![A-Za-z0-9_-])`),
  // Facebook page and Square access tokens.
  rule("facebook_token", ["eaa"], String.raw`\bEAA[MC][A-Za-z0-9]{100,1000}`, { pick: random("facebook_token") }),
  rule("square_token", ["eaaa"], String.raw`\bEAAA[A-Za-z0-9_-]{22,60}(?![A-Za-z0-9_-])`, { pick: random("square_token") }),
  // An app-only Twitter/X bearer token: 22 A's, then the rest URL-encoded.
  rule("twitter_bearer", ["aaaaaaaaaaaaaaaaaaaaaa"], String.raw`\bAAAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{80,200}`),
  rule("gitlab_session", ["_gitlab_session="], String.raw`\b_gitlab_session=(?<s>[0-9a-z]{32})\b`),
  // Sidekiq Enterprise's gem credentials, in Bundler's env var or in the gem source URL.
  rule("sidekiq_secret", ["bundle_"], String.raw`\bBUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM[ \t]*[=:][ \t]*["']?(?<s>[a-f0-9]{8}:[a-f0-9]{8})\b`, {
    i: true,
  }),
  rule("jwt", ["zxlk"], String.raw`\bZXlK[A-Za-z0-9+/]{60,8000}={0,2}`, { pick: base64Jwt }),
];
