/**
 * Redaction on every door that stores text (DESIGN.md 7.2): an engine runs a
 * write's validated input through these before it writes, so `append`,
 * `remember`, `POST /v1/turns`, fact values, link URLs, titles and notes and
 * every string in `meta` are scanned the same way whichever door they came
 * through. Redaction is on unless the store was opened with it off (config
 * `redact: false`) or an append asks `redact: false`; a turn stored without
 * it says so in its meta (`redaction: "off"`), so nobody later mistakes it
 * for scanned text. Facts and links have no per-call opt-out.
 *
 * Names are never redacted: a session name, fact key, idempotency key or
 * object name is the identity of what it names, and a marker in its place
 * would merge two sessions or make two writes one. A name holding a secret
 * shape is refused, naming the field, and nothing is written (issue 29
 * item 9). Capture derives its names itself and makes them safe first
 * (src/project.ts, src/capture/sources.ts).
 */
import { invalid } from "../errors.ts";
import type { AppendInput, FactSetInput, LinkAddInput, ObjectPutMeta } from "../schema/ops.ts";
import { redact, redactValue, secretInName } from "../redact/redact.ts";

/** An input as it will be written, and how many secrets were taken out of it. */
export interface RedactedInput<T> {
  input: T;
  redacted: number;
  /**
   * Nothing was added or replaced, only zerodb's own meta keys dropped
   * (append): the input is what was parsed, less those keys, so its schema
   * passes it again and need not be run twice.
   */
  unchanged?: boolean;
}

/** The meta keys zerodb sets itself: a caller's own values for them are replaced. */
const COUNT = "redacted";
const OFF = "redaction";

/** Throws invalid_input naming `field` when a name holds a secret shape; the message never repeats the name. */
export function refuseSecretName(field: string, name: string | undefined): void {
  if (name === undefined) return;
  const kind = secretInName(name);
  if (kind !== undefined) {
    throw invalid(field, `holds what looks like a secret (${kind}); names are stored as given, never redacted: choose one without it`);
  }
}

/** Redacts each entry's content and meta strings; counts go to meta.redacted (added to a count a capture client sent). */
export function redactAppend(input: AppendInput, storeOn: boolean): RedactedInput<AppendInput> {
  const on = storeOn && input.redact !== false;
  if (on) {
    refuseSecretName("session", input.session);
    for (const [i, e] of input.entries.entries()) refuseSecretName(`entries.${i}.idem_key`, e.idem_key);
  }
  let total = 0;
  let replaced = false;
  const entries = input.entries.map((entry) => {
    const { [OFF]: _off, ...kept } = (entry.meta ?? {}) as Record<string, unknown>;
    if (!on) return { ...entry, meta: { ...kept, [OFF]: "off" } };
    const content = redact(entry.content);
    if (content.text !== entry.content) replaced = true;
    const meta = redactValue(kept);
    const found = content.redactions + meta.redactions;
    total += found;
    const metaOut = meta.value as Record<string, unknown>;
    // A remote capture redacts before it sends and reports its count; this door's count is added to it.
    const before = typeof kept[COUNT] === "number" && Number.isSafeInteger(kept[COUNT]) && (kept[COUNT] as number) > 0 ? (kept[COUNT] as number) : 0;
    if (COUNT in metaOut) delete metaOut[COUNT];
    if (before + found > 0) metaOut[COUNT] = before + found;
    const hasMeta = entry.meta !== undefined || Object.keys(metaOut).length > 0;
    return { ...entry, content: content.text, ...(hasMeta ? { meta: metaOut } : {}) };
  });
  const { redact: _flag, ...rest } = input;
  return { input: { ...rest, entries }, redacted: total, unchanged: on && total === 0 && !replaced };
}

/** Redacts every string in a fact's value. */
export function redactFact(input: FactSetInput, storeOn: boolean): RedactedInput<FactSetInput> {
  if (!storeOn) return { input, redacted: 0 };
  refuseSecretName("key", input.key);
  refuseSecretName("idem_key", input.idem_key);
  const r = redactValue(input.value);
  return { input: { ...input, value: r.value }, redacted: r.redactions };
}

/** Redacts a link's URL (credentials in it), title and note. */
export function redactLink(input: LinkAddInput, storeOn: boolean): RedactedInput<LinkAddInput> {
  if (!storeOn) return { input, redacted: 0 };
  refuseSecretName("idem_key", input.idem_key);
  let redacted = 0;
  const one = (s: string) => {
    const r = redact(s);
    redacted += r.redactions;
    return r.text;
  };
  const out: LinkAddInput = { ...input, url: one(input.url) };
  if (input.title !== undefined) out.title = one(input.title);
  if (input.note !== undefined) out.note = one(input.note);
  return { input: out, redacted };
}

/** Refuses an object put whose name or idempotency key holds a secret shape (its bytes are stored as given: objects are not scanned). */
export function checkObjectMeta(meta: ObjectPutMeta, storeOn: boolean): ObjectPutMeta {
  if (storeOn) {
    refuseSecretName("name", meta.name);
    refuseSecretName("idem_key", meta.idem_key);
  }
  return meta;
}

/** A write's result, with the count of secrets taken out when there were any. */
export function withRedacted<T extends object>(result: T, redacted: number): T & { redacted?: number } {
  return redacted > 0 ? { ...result, redacted } : result;
}
