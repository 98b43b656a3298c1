/**
 * Names that say their value is a secret (`PGPASSWORD`, `api_key`,
 * `clientSecret`, `X-Api-Key`), and the names that merely mention one
 * (`token_url`, `password_policy`, `max_tokens`, `public_key`).
 */
import type { Tier } from "./checks.ts";

/** Last words that make a name about a secret rather than the secret itself. */
const NOT_THE_SECRET = new Set([
  "url",
  "uri",
  "urls",
  "endpoint",
  "host",
  "path",
  "paths",
  "file",
  "files",
  "dir",
  "directory",
  "type",
  "types",
  "name",
  "names",
  "id",
  "ids",
  "len",
  "length",
  "count",
  "size",
  "min",
  "max",
  "limit",
  "limits",
  "ttl",
  "expiry",
  "expires",
  "expiration",
  "expire",
  "expiresat",
  "policy",
  "prompt",
  "label",
  "field",
  "fields",
  "header",
  "headers",
  "hint",
  "env",
  "var",
  "enabled",
  "disabled",
  "required",
  "rotation",
  "format",
  "mode",
  "version",
  "provider",
  "manager",
  "store",
  "source",
  "ref",
  "location",
  "arn",
  "algorithm",
  "alg",
  "method",
  "scheme",
  "usage",
  "index",
  "pattern",
  "regex",
  "description",
  "desc",
  "title",
  "message",
  "msg",
  "error",
  "text",
  "prefix",
  "suffix",
  "hash",
  "hashed",
  "digest",
  "salt",
  "rounds",
  "reset",
  "confirm",
  "confirmation",
  "changed",
  "changedat",
  "updatedat",
  "createdat",
  "at",
  "version",
  "kind",
  "class",
  "count",
  "budget",
  "estimate",
  "estimator",
  "counter",
  "fingerprint",
  "regexp",
  "validator",
  "validation",
  "strength",
  "input",
  "button",
  "form",
  "dialog",
  "page",
  "view",
  "screen",
  "helper",
  "handler",
  "service",
  "client",
  "module",
  "store",
  "context",
  "provider",
  "check",
  "checker",
  "set",
  "get",
  "list",
  "map",
  "cache",
  // File names: `password.toml:12:19` in a stack trace is a place, not an assignment.
  "toml",
  "yaml",
  "yml",
  "json",
  "md",
  "txt",
  "ts",
  "tsx",
  "js",
  "mjs",
  "py",
  "go",
  "rs",
  "rb",
  "java",
  "ini",
  "cfg",
  "conf",
  "sh",
  "log",
  "csv",
  "xml",
  "html",
  "lock",
  "pem",
  "der",
  "crt",
  "gpg",
  "enc",
  "bak",
  "tmp",
  // Code about tokens: TOKEN_STRINGS, tokenStart, secretKind.
  "string",
  "strings",
  "chars",
  "characters",
  "re",
  "matcher",
  "parser",
  "lexer",
  "kinds",
  "start",
  "end",
  "pos",
  "position",
  "offset",
  "full",
  "stream",
  "buffer",
  "node",
  "nodes",
  "flags",
  "flag",
  "option",
  "options",
  "result",
  "results",
  "schema",
]);

/** First words that make a name about something other than a secret value. */
const NOT_A_SECRET_FIRST = new Set([
  "max",
  "min",
  "num",
  "total",
  "is",
  "has",
  "use",
  "enable",
  "enabled",
  "require",
  "requires",
  "show",
  "hide",
  "public",
  "pub",
  "publishable",
  "idem",
  "idempotency",
  "cache",
  "sort",
  "partition",
  "primary",
  "foreign",
  "routing",
  "object",
  "lookup",
  "dedupe",
  "dedup",
  "unique",
  "row",
  "next",
  "prev",
  "previous",
  "continuation",
  "page",
  "pagination",
  "cursor",
  "csrf",
  "xsrf",
  "input",
  "output",
  "forgot",
  "reset",
  "new",
  "old",
  "confirm",
  "validate",
  "check",
  "verify",
  "hash",
  "hashed",
]);

const PASSWORD = /^(?:\w*passw(?:or)?d|\w*passphrase|\w*pwd|dbpass|\w*password\d*)$/;
const TOKEN = /^\w*(?:token|secret|apikey|accesskey|secretkey|privatekey|authkey|credentials?|creds?|authtoken|authorization)$/;
const PAIRS = new Set([
  "api_key",
  "access_key",
  "secret_key",
  "private_key",
  "client_secret",
  "account_key",
  "auth_key",
  "master_key",
  "signing_key",
  "encryption_key",
  "shared_key",
  "app_key",
  "license_key",
  "consumer_secret",
  "webhook_secret",
  "session_key",
  "sas_token",
  "service_key",
  "admin_key",
  "deploy_key",
  "write_key",
  "secret_access",
  "access_token",
]);

/** The words of a name, lower-cased: `AWS_SECRET_ACCESS_KEY`, `awsSecretAccessKey`, `x-api-key` all split alike. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Names repeat across a text (`key`, `token`, `password`): their tiers are remembered, up to a bound. */
const tiers = new Map<string, Tier | null>();

/** How strong a value assigned to `name` must look to be a secret, or null when the name is not a secret's. */
export function nameTier(name: string): Tier | null {
  let t = tiers.get(name);
  if (t === undefined) {
    if (tiers.size >= 4096) tiers.clear();
    tiers.set(name, (t = tierOf(name)));
  }
  return t;
}

function tierOf(name: string): Tier | null {
  const w = words(name);
  if (w.length === 0 || w.length > 8) return null;
  const last = w[w.length - 1]!;
  // Vault AppRole's secret_id is the credential itself, though it ends in "id".
  if (last === "id" && w[w.length - 2] === "secret") return "token";
  if (NOT_THE_SECRET.has(last) || NOT_A_SECRET_FIRST.has(w[0]!) || w.includes("publishable") || w.includes("public")) return null;
  if (w.length === 1 && (last === "pass" || last === "pw")) return "short_password";
  // `pass` and `pw` name a password only at the end (SMTP_PASS, db_pw), not inside (STENCIL_PASS_DEPTH_FAIL).
  if (last === "pass" || last === "pw" || w.some((x) => PASSWORD.test(x))) return "password";
  if (w.some((x) => TOKEN.test(x) || x === "auth")) return "token";
  for (let i = 0; i + 1 < w.length; i++) if (PAIRS.has(`${w[i]}_${w[i + 1]}`)) return "token";
  if (last === "key" && w.length > 1) return "key";
  return null;
}

/** The marker kind of an assignment: AWS's secret key and session token by name, every other one `assignment`. */
export function kindForName(name: string): string {
  const joined = words(name).join("_");
  if (/secret_?access_?key|aws_secret(?:_key)?$/.test(joined)) return "aws_secret_key";
  if (/^aws_(?:session|security)_token$/.test(joined)) return "aws_session_token";
  return "assignment";
}
