/**
 * Secrets never enter the store (DESIGN.md 7.2): `<private>` spans are
 * removed and secrets are replaced by `[redacted:<kind>]` before anything is
 * stored. The rules (src/redact/) are a secret scanner's: providers' own
 * token formats, secret-named assignments in every config syntax with an
 * entropy check, credentials in URLs, headers and command lines, private
 * keys and card numbers. Names, users and hosts around a secret are kept.
 */
import { RULES } from "./redact/rules.ts";
import { scan } from "./redact/scan.ts";
import { redactJson } from "./redact/value.ts";

const PRIVATE = /<private>[\s\S]*?(?:<\/private>|$)/gi;

/** The outcome of redacting one text. */
export interface Redacted {
  text: string;
  /** How many spans were removed or replaced. */
  redactions: number;
  /** The kinds found, each once. */
  kinds: string[];
}

/** Removes `<private>` spans and replaces secrets with `[redacted:<kind>]`; a marker already there is kept and not counted. */
export function redact(text: string): Redacted {
  let count = 0;
  const kinds = new Set<string>();
  const open = text.search(/<private>/i);
  if (open >= 0) {
    text =
      text.slice(0, open) +
      text.slice(open).replace(PRIVATE, () => {
        count++;
        kinds.add("private");
        return "";
      });
  }
  const hits = scan(text, RULES);
  if (hits.length === 0) return { text, redactions: count, kinds: [...kinds] };
  const parts: string[] = [];
  let at = 0;
  for (const h of hits) {
    parts.push(text.slice(at, h.start), `[redacted:${h.kind}]`);
    kinds.add(h.kind);
    at = h.end;
  }
  parts.push(text.slice(at));
  return { text: parts.join(""), redactions: count + hits.length, kinds: [...kinds] };
}

/** The outcome of redacting a JSON value. */
export interface RedactedValue {
  value: unknown;
  redactions: number;
  kinds: string[];
}

/**
 * Redacts every string in a JSON value (objects and arrays, at any depth),
 * returning a new value and leaving the input untouched. Keys are kept; a key
 * that names a secret (`password`, `aws_secret_access_key`) makes its string
 * value a secret when the value passes the same placeholder and entropy checks
 * as `password = "…"` in text.
 */
export function redactValue(value: unknown): RedactedValue {
  return redactJson(value, redact);
}
