/**
 * Secrets never enter the store (DESIGN.md 7.2): `<private>` spans are
 * removed and well-known secret shapes are replaced by `[redacted:<kind>]`
 * before an entry is stored. Used by capture and by MCP `remember`.
 */

/** A secret shape: what it is called, and how to find it. */
interface Rule {
  kind: string;
  re: RegExp;
  /** Replaces one match; by default the whole match becomes the marker. */
  replace?: (marker: string, ...groups: string[]) => string;
}

const RULES: Rule[] = [
  // PEM blocks, terminated or running to the end of the text.
  { kind: "private_key", re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g },
  { kind: "aws_access_key", re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  { kind: "github_token", re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
  { kind: "anthropic_key", re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: "openai_key", re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: "slack_token", re: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { kind: "google_api_key", re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: "stripe_key", re: /\b[rs]k_(?:live|test)_[0-9a-zA-Z]{16,}\b/g },
  { kind: "npm_token", re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: "jwt", re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: "bearer", re: /\b(Bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/g, replace: (m, prefix) => `${prefix}${m}` },
  // user:password@ in a URL keeps the user and the host.
  { kind: "url_password", re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]+(@)/gi, replace: (m, head, at) => `${head}${m}${at}` },
  // password=..., api_key: "...", client_secret = ...: keeps the name, hides the value.
  {
    kind: "assignment",
    re: /\b((?:[A-Za-z0-9_]*_)?(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key|private[_-]?key)\b["']?\s*[:=]\s*)(["']?)([^\s"'`]{4,})\2/gi,
    replace: (m, head, quote) => `${head}${quote}${m}${quote}`,
  },
];

const PRIVATE = /<private>[\s\S]*?(?:<\/private>|$)/gi;

/** The outcome of redacting one text. */
export interface Redacted {
  text: string;
  /** How many spans were removed or replaced. */
  redactions: number;
  /** The kinds found, each once. */
  kinds: string[];
}

/** Removes `<private>` spans and replaces secret shapes with `[redacted:<kind>]`. */
export function redact(text: string): Redacted {
  let count = 0;
  const kinds = new Set<string>();
  let out = text.replace(PRIVATE, () => {
    count++;
    kinds.add("private");
    return "";
  });
  for (const rule of RULES) {
    const marker = `[redacted:${rule.kind}]`;
    out = out.replace(rule.re, (...args: unknown[]) => {
      const groups = args.slice(1).filter((g): g is string => typeof g === "string");
      // A value that is already a marker is not counted again.
      if (groups.some((g) => g.startsWith("[redacted:"))) return args[0] as string;
      count++;
      kinds.add(rule.kind);
      return rule.replace ? rule.replace(marker, ...groups) : marker;
    });
  }
  return { text: out, redactions: count, kinds: [...kinds] };
}
