/**
 * Tokens of hosted services that carry a prefix of their own: code hosts and
 * CI, package registries, AI providers, chat and mail, payments, observability
 * and productivity tools. A prefix is what makes these safe to match anywhere.
 */
import { looksRandom } from "./checks.ts";
import { rule } from "./_rule.ts";
import { type Hit, type Rule, defaultHit } from "./types.ts";

/** Keeps a match only when it looks generated (for prefixes short or common enough to start a word). */
function random(kind: string, minLength = 16) {
  return (m: RegExpExecArray): Hit | null => (looksRandom(m[0], minLength) ? defaultHit(kind, m) : null);
}

/** Service tokens. */
export const SERVICE_RULES: Rule[] = [
  // Code hosts and CI.
  rule(
    "github_token",
    ["ghp", "gho", "ghu", "ghs", "ghr", "github_pat_"],
    String.raw`\b(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`,
  ),
  rule(
    "gitlab_token",
    ["glpat", "gldt", "glrt", "glsoat", "glcbt", "glimt", "glft", "glagent", "gloas", "glffct", "glptt", "glwt", "gr1348941"],
    String.raw`\b(?:glpat|gldt|glrt|glsoat|glcbt|glimt|glft|glagent|gloas|glffct|glptt|glwt)-[A-Za-z0-9_.-]{20,80}|\bGR1348941[A-Za-z0-9_-]{20}\b`,
  ),
  rule("atlassian_token", ["atatt", "atctt", "atoat", "atbb"], String.raw`\b(?:ATATT|ATCTT|ATOAT)3[A-Za-z0-9_=-]{150,300}|\bATBB[A-Za-z0-9_=.-]{28,40}\b`),
  rule("bitbucket_token", ["bbdc-"], String.raw`\bBBDC-[A-Za-z0-9+/@_-]{40,50}`),
  rule("sourcegraph_token", ["sgp_"], String.raw`\bsgp_(?:local_|[a-f0-9]{16}_)?[a-f0-9]{40}\b`),
  rule("buildkite_token", ["bkua_"], String.raw`\bbkua_[a-f0-9]{40}\b`),
  rule("circleci_token", ["ccipat_"], String.raw`\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\b`),
  rule("postman_key", ["pmak-"], String.raw`\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b`),
  // Package registries.
  rule("npm_token", ["npm_"], String.raw`\bnpm_[A-Za-z0-9]{36}\b`),
  rule("pypi_token", ["pypi-age"], String.raw`\bpypi-AgE[A-Za-z0-9_-]{50,400}`),
  rule("rubygems_key", ["rubygems_"], String.raw`\brubygems_[a-f0-9]{48}\b`),
  rule("nuget_key", ["oy2"], String.raw`\boy2[a-z0-9]{43}\b`, { pick: random("nuget_key") }),
  rule("clojars_token", ["clojars_"], String.raw`\bCLOJARS_[a-z0-9]{60}\b`),
  rule("readme_key", ["rdme_"], String.raw`\brdme_[a-z0-9]{70}\b`),
  // AI providers. Anthropic and OpenRouter before OpenAI: all start with "sk-".
  rule("anthropic_key", ["sk-ant-"], String.raw`\bsk-ant-[A-Za-z0-9_-]{20,250}`),
  rule("openrouter_key", ["sk-or-v1-"], String.raw`\bsk-or-v1-[a-f0-9]{64}\b`),
  rule("openai_key", ["sk-"], String.raw`\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,250}`),
  rule("openai_key", ["sk-"], String.raw`\bsk-[A-Za-z0-9_-]{20,250}`, {
    pick: (m) => (/[a-z]/.test(m[0]) && /[A-Z]/.test(m[0]) && /\d/.test(m[0].slice(3)) ? defaultHit("openai_key", m) : null),
  }),
  rule("huggingface_token", ["hf_", "api_org_"], String.raw`\bhf_[A-Za-z0-9]{34}\b|\bapi_org_[A-Za-z0-9]{34}\b`),
  rule("groq_key", ["gsk_"], String.raw`\bgsk_[A-Za-z0-9]{52}\b`),
  rule("replicate_token", ["r8_"], String.raw`\br8_[A-Za-z0-9]{37}\b`),
  rule("perplexity_key", ["pplx-"], String.raw`\bpplx-[A-Za-z0-9]{48}\b`),
  rule("xai_key", ["xai-"], String.raw`\bxai-[A-Za-z0-9]{70,90}\b`),
  rule("langsmith_key", ["lsv2_"], String.raw`\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b`),
  // Chat and mail.
  rule("slack_token", ["xox", "xoxe.xox", "xapp"], String.raw`\b(?:xox[abposre]|xoxe\.xox[bp]|xapp)-[0-9A-Za-z-]{10,250}`),
  rule("slack_webhook", ["hooks.slack.com/"], String.raw`hooks\.slack\.com/(?:services|workflows|triggers)/(?<s>[A-Za-z0-9+/_-]{20,200})`),
  rule("discord_webhook", ["discord"], String.raw`discord(?:app)?\.com/api/webhooks/\d{5,30}/(?<s>[A-Za-z0-9_-]{60,100})`),
  rule("discord_token", [], String.raw`\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])`, {
    pick: random("discord_token"),
  }),
  // The bot id before ":AA" is 8-10 digits, standing alone or right after "/bot" in an API URL.
  rule("telegram_bot_token", [":aa"], `:AA[0-9A-Za-z_-]{33}(?![0-9A-Za-z_-])`, {
    pick: (m, text) => {
      const id = /(?:(?<![A-Za-z0-9_])|(?<=bot))\d{8,10}$/.exec(text.slice(Math.max(0, m.index - 13), m.index));
      return id ? { kind: "telegram_bot_token", start: m.index - id[0].length, end: m.index + m[0].length } : null;
    },
  }),
  rule("twilio_key", ["sk"], String.raw`\bSK[0-9a-fA-F]{32}\b`),
  rule("sendgrid_key", ["sg."], String.raw`\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])`),
  rule("mailgun_key", ["key-"], String.raw`\bkey-[0-9a-f]{32}\b`),
  rule("mailgun_key", [], String.raw`\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b`),
  rule("mailchimp_key", ["-us"], String.raw`\b[0-9a-f]{32}-us\d{1,2}\b`, { back: 32 }),
  // Payments and commerce.
  rule(
    "stripe_key",
    ["sk_live", "sk_test", "sk_prod", "rk_live", "rk_test", "rk_prod"],
    String.raw`\b(?:sk_live|sk_test|sk_prod|rk_live|rk_test|rk_prod)_[0-9a-zA-Z]{16,247}\b`,
  ),
  rule("stripe_webhook_secret", ["whsec_"], String.raw`\bwhsec_[A-Za-z0-9+/]{24,64}\b`),
  rule("shopify_token", ["shp"], String.raw`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`),
  rule("square_token", ["sq0"], String.raw`\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,60}\b`),
  rule("shippo_token", ["shippo_"], String.raw`\bshippo_(?:live|test)_[a-f0-9]{40}\b`),
  rule("easypost_key", ["ezak", "eztk"], String.raw`\b(?:EZAK|EZTK)[a-zA-Z0-9]{54}\b`),
  rule("flutterwave_key", ["flwseck"], String.raw`\bFLWSECK(?:_TEST)?-[a-h0-9]{32}-X\b`),
  // Observability and productivity.
  rule("grafana_token", ["glc_", "glsa_"], String.raw`\bglc_[A-Za-z0-9+/]{32,400}={0,2}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b`),
  rule("sentry_token", ["sntry"], String.raw`\bsntry[su]_[A-Za-z0-9+/=_-]{40,400}`),
  rule("newrelic_key", ["nrak", "nrii", "nrjs", "nraa"], String.raw`\b(?:NRAK|NRII|NRJS|NRAA)-[A-Za-z0-9]{20,42}\b`),
  rule("dynatrace_token", ["dt0c01."], String.raw`\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b`),
  rule("linear_key", ["lin_"], String.raw`\blin_(?:api|oauth)_[A-Za-z0-9]{40,64}\b`),
  rule("notion_token", ["ntn_", "secret_"], String.raw`\bntn_[0-9]{11}[A-Za-z0-9]{32,40}\b|\bsecret_[A-Za-z0-9]{43}\b`, { pick: random("notion_token") }),
  // "pat" starts too many words (path, pattern) to anchor on: one pass over the text is cheaper.
  rule("airtable_token", [], String.raw`\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b`),
  rule("contentful_token", ["cfpat-"], String.raw`\bCFPAT-[A-Za-z0-9_-]{43}\b`),
  rule("typeform_token", ["tfp_"], String.raw`\btfp_[A-Za-z0-9_.=-]{59}\b`),
  rule("mapbox_token", ["sk.eyj"], String.raw`\bsk\.eyJ[A-Za-z0-9_-]{20,400}\.[A-Za-z0-9_-]{20,400}`),
  rule("prefect_key", ["pnu_"], String.raw`\bpnu_[A-Za-z0-9]{36}\b`),
  rule("infracost_key", ["ico-"], String.raw`\bico-[A-Za-z0-9]{32}\b`, { pick: random("infracost_key") }),
  rule("scalingo_token", ["tk-us-"], String.raw`\btk-us-[A-Za-z0-9_-]{48}\b`),
  // jwt.io's sample token (HS256 over "your-256-bit-secret") is in every JWT library's docs and tests.
  rule("jwt", ["eyj"], String.raw`\beyJ[A-Za-z0-9_-]{8,4000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{8,4000}`, {
    pick: (m) => (m[0].endsWith(".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c") ? null : defaultHit("jwt", m)),
  }),
];
