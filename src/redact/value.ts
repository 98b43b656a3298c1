/**
 * Redaction of a JSON value: every string is redacted as text, and a string
 * under a key that names a secret is judged as that key's assignment.
 */
import { judge } from "./assignment.ts";

/** What redacting one text returns (the shape of `redact`). */
interface TextResult {
  text: string;
  redactions: number;
  kinds: string[];
}

/** Walks a JSON value without recursion (deep values must not overflow the stack), building a redacted copy. */
export function redactJson(value: unknown, redactText: (text: string) => TextResult): { value: unknown; redactions: number; kinds: string[] } {
  let redactions = 0;
  const kinds = new Set<string>();
  const one = (s: string, key: string | undefined): string => {
    if (key !== undefined && !s.startsWith("[redacted:")) {
      // The whole string is the value of the key: `{"password": "hunter2xyz"}`.
      const hit = judge(key, { value: s, at: 0, bare: false, next: "" });
      if (hit && hit.start === 0 && hit.end === s.length) {
        redactions++;
        kinds.add(hit.kind);
        return `[redacted:${hit.kind}]`;
      }
    }
    const r = redactText(s);
    redactions += r.redactions;
    for (const k of r.kinds) kinds.add(k);
    return r.text;
  };
  // defineProperty for "__proto__", not assignment: a "__proto__" key from JSON.parse stays a plain key.
  // Any other key is assigned (defineProperty on every key cost a tenth of capture's time).
  const put = (dst: Record<string | number, unknown>, slot: string | number, v: unknown) => {
    if (slot === "__proto__") Object.defineProperty(dst, slot, { value: v, enumerable: true, writable: true, configurable: true });
    else dst[slot] = v;
  };
  const root: { v: unknown } = { v: undefined };
  // Each job copies `src` into `dst[slot]`; containers push their children.
  const jobs: { src: unknown; dst: Record<string | number, unknown>; slot: string | number; key?: string }[] = [
    { src: value, dst: root as unknown as Record<string, unknown>, slot: "v" },
  ];
  while (jobs.length > 0) {
    const { src, dst, slot, key } = jobs.pop()!;
    if (typeof src === "string") put(dst, slot, one(src, key));
    else if (Array.isArray(src)) {
      const copy: unknown[] = new Array(src.length);
      put(dst, slot, copy);
      for (let i = src.length - 1; i >= 0; i--) jobs.push({ src: src[i], dst: copy as unknown as Record<number, unknown>, slot: i, key });
    } else if (src !== null && typeof src === "object") {
      const copy: Record<string, unknown> = {};
      put(dst, slot, copy);
      const entries = Object.entries(src);
      for (const [k] of entries) put(copy, k, undefined);
      for (let i = entries.length - 1; i >= 0; i--) jobs.push({ src: entries[i]![1], dst: copy, slot: entries[i]![0], key: entries[i]![0] });
    } else put(dst, slot, src);
  }
  return { value: root.v, redactions, kinds: [...kinds] };
}
