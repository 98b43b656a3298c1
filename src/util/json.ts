/** JSON with sorted object keys, so equal values serialize equally (idempotency hashes). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** A JSON object: an object that is neither null nor an array. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An object as JSON.parse makes it: isObject, with Object's own prototype (no class instance, no null-prototype record). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return isObject(v) && Object.getPrototypeOf(v) === Object.prototype;
}
