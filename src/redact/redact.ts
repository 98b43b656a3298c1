/**
 * Secrets never enter the store (DESIGN.md 7.2): `<private>` spans are
 * removed and secrets are replaced by `[redacted:<kind>]` before anything is
 * stored. The rules (src/redact/) are a secret scanner's: providers' own
 * token formats, secret-named assignments in every config syntax with an
 * entropy check, credentials in URLs, headers and command lines, private
 * keys and card numbers. Names, users and hosts around a secret are kept.
 */
import { type Escaped, escapedViews } from "./escapes.ts";
import { findAll, settle } from "./find.ts";
import { RULES } from "./rules.ts";
import type { Hit } from "./types.ts";
import { redactJson } from "./value.ts";

const PRIVATE = /<private>[\s\S]*?(?:<\/private>|$)/gi;
/** A `<private>` tag; one literal is cheaper to look for than an alternation (a pass over every captured byte). */
const PRIVATE_OPEN = /<private>/i;

/** The outcome of redacting one text. */
export interface Redacted {
  text: string;
  /** How many spans were removed or replaced. */
  redactions: number;
  /** The kinds found, each once. */
  kinds: string[];
}

/**
 * Removes `<private>` spans and replaces secrets with `[redacted:<kind>]`; a
 * marker already there is kept and not counted. Escaped text (`\n`, `\"`,
 * `\u003d`, and the same escaped again) is scanned as what it decodes to,
 * and the markers keep its escaping valid.
 */
export function redact(text: string): Redacted {
  let count = 0;
  const kinds = new Set<string>();
  let escaped = escapedViews(text);
  // In the text as written, or in what it decodes to (`\u003cprivate\u003e`, the way JSON encoders write `<`).
  if (PRIVATE_OPEN.test(text) || escaped.views.some((v) => PRIVATE_OPEN.test(v.text))) {
    const spans = privateSpans(text, escaped);
    if (spans.length > 0) {
      count += spans.length;
      kinds.add("private");
      text = replaceSpans(text, spans, () => "");
      escaped = escapedViews(text);
    }
  }
  const hits = findAll(text, RULES, escaped);
  if (hits.length === 0) return { text, redactions: count, kinds: [...kinds] };
  for (const h of hits) kinds.add(h.kind);
  return { text: replaceSpans(text, hits, (h) => `[redacted:${h.kind}]`), redactions: count + hits.length, kinds: [...kinds] };
}

/** The `<private>` spans of a text, as written and in each level of escaping it decodes to. */
function privateSpans(text: string, { views }: Escaped): Hit[] {
  const found = (t: string) => [...t.matchAll(PRIVATE)].map((m) => ({ kind: "private", start: m.index, end: m.index + m[0].length }));
  const spans = found(text);
  if (views.length === 0) return spans;
  for (const v of views) for (const h of found(v.text)) spans.push({ kind: h.kind, start: v.at[h.start]!, end: v.at[h.end]! });
  return settle(spans, views);
}

/** `text` with each (sorted, disjoint) span replaced. */
function replaceSpans(text: string, spans: Hit[], by: (h: Hit) => string): string {
  const parts: string[] = [];
  let at = 0;
  for (const h of spans) {
    parts.push(text.slice(at, h.start), by(h));
    at = h.end;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/**
 * The kind of the first secret shape in a name (a session name, fact key,
 * idempotency key or object name), or undefined when it holds none; a marker
 * already there is no secret. A name is an identity: redacting it would make
 * two names one, so the doors refuse such a name rather than change it.
 */
export function secretInName(name: string): string | undefined {
  if (PRIVATE_OPEN.test(name) || /\\u003cprivate/i.test(name)) return "private";
  // Each segment between `/` is read as a line of its own: `deploy/password=…` is an assignment, not a file's path.
  return findAll(name.replaceAll("/", "\n"), RULES)[0]?.kind;
}

/**
 * A name zerodb derives itself (a directory's base name, a transcript's
 * id) with every secret shape in it replaced by its marker: the same name
 * always gives the same result, and the caller keeps the name's identity by
 * a digest beside it (DESIGN.md 7.2: the path hash of a project session).
 */
export function redactName(name: string): string {
  return secretInName(name) === undefined ? name : redact(name).text;
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
  return redactJson(value, redactShort);
}

/** Strings up to this length have their redaction kept (redactShort). */
const SHORT_MAX = 256;
/** How many kept redactions before the cache starts over (a bound on its memory, about 1 MiB). */
const SHORT_KEEP = 4096;
const shortResults = new Map<string, Redacted>();

/**
 * `redact`, kept by text for short strings: a transcript's meta repeats its
 * values line after line (types, kinds, tool names, a message id over its
 * blocks, a parent's uuid), and each string redacted costs a scan with its
 * setup and the unanchored rules' regexes (issue 32: meta was a fifth of a
 * 64-entry hook run). Redaction is a pure function of the text, so a kept
 * result is the one it would compute again; callers only read it.
 */
function redactShort(text: string): Redacted {
  if (text.length > SHORT_MAX) return redact(text);
  let r = shortResults.get(text);
  if (r === undefined) {
    if (shortResults.size >= SHORT_KEEP) shortResults.clear();
    r = redact(text);
    shortResults.set(text, r);
  }
  return r;
}
