/**
 * What may differ between two tenants' answers to the same request without
 * revealing anything (I5): their own names, the LSNs and times of their own
 * writes (one counter and one clock serve the whole store). Everything else,
 * the bytes on disk of `stats` included, must be byte for byte the same.
 */

/** Keys whose values are the caller's own LSNs or times. */
const OWN = new Set(["lsn", "first_lsn", "last_lsn", "ts", "created"]);

/** A JSON value with the caller's own LSNs, times and name replaced by placeholders. */
export function normalizeJson(value: unknown, tenants: string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => normalizeJson(v, tenants));
  if (typeof value === "string") return normalizeText(value, tenants);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (OWN.has(k) && v !== null) out[k] = `<${k}>`;
    else if (k === "next" && typeof v === "number") out[k] = "<next>";
    else if (k === "tenant") out[k] = "<tenant>";
    else out[k] = normalizeJson(v, tenants);
  }
  return out;
}

/** A text (a tool's rendering, an error message) with the same placeholders. */
export function normalizeText(text: string, tenants: string[]): string {
  let t = text;
  for (const name of tenants) t = t.replaceAll(new RegExp(`\\b${name}\\b`, "g"), "<tenant>");
  return t
    .replace(/\blsn \d+(–\d+)?/g, "lsn <n>")
    .replace(/\bafter=\d+/g, "after=<n>")
    .replace(/#\d+/g, "#<n>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>");
}
