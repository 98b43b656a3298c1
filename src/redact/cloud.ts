/**
 * Cloud and infrastructure credentials: AWS, Google Cloud, Azure, Alibaba,
 * DigitalOcean, Heroku, Fly.io, Cloudflare, Vault, Doppler, Terraform Cloud,
 * Pulumi, Databricks, Supabase, PlanetScale, Tailscale, Docker registries.
 */
import { isBase64Credential, looksRandom } from "./checks.ts";
import { rule } from "./_rule.ts";
import { type Hit, type Rule, defaultHit } from "./types.ts";

/** A hit whose start lies `back` characters before the match: for formats whose distinctive part is in the middle. */
function reachBack(kind: string, back: RegExp) {
  return (m: RegExpExecArray, text: string): Hit | null => {
    const before = back.exec(text.slice(Math.max(0, m.index - 40), m.index));
    if (!before) return null;
    return { kind, start: m.index - before[0].length, end: m.index + m[0].length };
  };
}

/** Cloud credentials. */
export const CLOUD_RULES: Rule[] = [
  // AWS's own documentation keys end in EXAMPLE (AKIAIOSFODNN7EXAMPLE): in every SDK's docs, never a credential.
  rule(
    "aws_access_key",
    ["akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "a3t"],
    String.raw`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}\b`,
    { pick: (m) => (m[0].endsWith("EXAMPLE") ? null : defaultHit("aws_access_key", m)) },
  ),
  // The secret access key has no prefix of its own: it is known by its name, in any spelling (env, INI, YAML, `aws configure`'s prompt).
  rule(
    "aws_secret_key",
    ["aws"],
    String.raw`aws[\w .-]{0,30}?secret[\w .-]{0,30}?key[^\n:=]{0,20}?["']?[ \t]*(?::=|=>|=|:)[ \t]*["']?(?<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
    { i: true },
  ),
  rule("aws_session_token", ["x-amz-security-token="], `X-Amz-Security-Token=(?<s>[A-Za-z0-9%+/=_-]{20,4000})`, { i: true }),
  rule("gcp_oauth_secret", ["gocspx-"], String.raw`\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])`),
  rule("google_api_key", ["aiza"], String.raw`\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])`),
  rule("google_oauth_token", ["ya29."], String.raw`\bya29\.[0-9A-Za-z_-]{20,2000}`),
  rule("google_refresh_token", ["1//0"], String.raw`(?<![\w/])1//0[0-9A-Za-z_-]{40,500}`),
  // Azure connection strings keep their names; the SAS signature keeps `sig=`.
  rule("azure_storage_key", ["accountkey="], String.raw`\bAccountKey=(?<s>[A-Za-z0-9+/]{40,120}={0,2})`, { i: true }),
  rule("azure_shared_access_key", ["sharedaccesskey="], String.raw`\bSharedAccessKey=(?<s>[A-Za-z0-9+/]{20,120}={0,2})`, { i: true }),
  rule("azure_sas", ["sig="], `[?&;]sig=(?<s>[A-Za-z0-9%+/=_-]{20,300})`, { back: 1 }),
  // Entra ID client secrets: three characters, a digit, "Q~", then 31-34 more.
  rule("azure_client_secret", ["q~"], String.raw`\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])`, {
    back: 1,
    pick: reachBack("azure_client_secret", /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}$/),
  }),
  rule("alibaba_key", ["ltai"], String.raw`\bLTAI[A-Za-z0-9]{12,20}\b`),
  rule("digitalocean_token", ["dop", "doo", "dor"], String.raw`\b(?:dop|doo|dor)_v1_[a-f0-9]{64}\b`),
  rule("heroku_key", ["hrku-"], String.raw`\bHRKU-[A-Za-z0-9_-]{20,80}`),
  rule("flyio_token", ["fo1_", "fm1", "fm2"], String.raw`\bfo1_[A-Za-z0-9_-]{43}\b|\b(?:fm1|fm2)[ar]?_[A-Za-z0-9+/=_-]{40,4000}`),
  rule("cloudflare_ca_key", ["v1.0-"], String.raw`\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b`),
  rule("vault_token", ["hvs", "hvb", "hvr"], String.raw`\b(?:hvs|hvb|hvr)\.[A-Za-z0-9_-]{24,200}`),
  rule("doppler_token", ["dp."], String.raw`\bdp\.(?:pt|st(?:\.[a-z0-9_-]{2,35})?|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b`),
  rule("terraform_token", [".atlasv1."], String.raw`\.atlasv1\.[A-Za-z0-9_=-]{60,70}`, {
    pick: reachBack("terraform_token", /(?<![A-Za-z0-9])[A-Za-z0-9]{14}$/),
  }),
  rule("pulumi_token", ["pul-"], String.raw`\bpul-[a-f0-9]{40}\b`),
  rule("databricks_token", ["dapi"], String.raw`\bdapi[a-f0-9]{32}(?:-\d)?\b`),
  rule("supabase_token", ["sbp_", "sb_secret_"], String.raw`\bsbp_[a-f0-9]{40}\b|\bsb_secret_[A-Za-z0-9_-]{20,80}`),
  rule("planetscale_token", ["pscale_"], String.raw`\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}`),
  rule("tailscale_key", ["tskey-"], String.raw`\btskey-(?:api|auth|client|webhook|scim)-[A-Za-z0-9]{6,20}-[A-Za-z0-9]{20,64}\b`),
  // Docker's config.json `auths`: "auth" is base64 of user:password.
  rule("docker_auth", ['"auth"'], String.raw`"auth"\s{0,4}:\s{0,4}"(?<s>[A-Za-z0-9+/]{4,4000}={0,2})"`, {
    pick: (m) => (isBase64Credential(m.groups!.s!) ? defaultHit("docker_auth", m) : null),
  }),
  rule("onepassword_token", ["ops_eyj"], String.raw`\bops_eyJ[A-Za-z0-9+/=_-]{50,4000}`),
  rule("onepassword_secret_key", ["a3-"], String.raw`\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b`),
  rule("facebook_token", ["eaacedeose0cba"], String.raw`\bEAACEdEose0cBA[0-9A-Za-z]{20,400}`, {
    pick: (m) => (looksRandom(m[0]) ? defaultHit("facebook_token", m) : null),
  }),
];
