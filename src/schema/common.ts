import { z } from "zod";
import { IDEM_KEY_MAX_BYTES, JSON_MAX_DEPTH, PAGE_MAX } from "../limits.ts";
import { ROLES, nameProblem, utf8Bytes } from "./names.ts";
import { tenantSchema } from "./tenant.ts";

/**
 * A string that is valid UTF-8 (no lone surrogates) of at most `max` bytes;
 * going over is `too_large` (DESIGN.md section 3).
 */
export function utf8String(opts: { min?: number; max: number; what?: string }) {
  return z.string().superRefine((s, ctx) => {
    if (!s.isWellFormed()) {
      ctx.addIssue({ code: "custom", message: "must be valid UTF-8 (it holds a lone surrogate)" });
      return;
    }
    const bytes = utf8Bytes(s);
    if (opts.min !== undefined && bytes < opts.min) {
      ctx.addIssue({ code: "custom", message: `must be at least ${opts.min} byte${opts.min === 1 ? "" : "s"}` });
    } else if (bytes > opts.max) {
      ctx.addIssue({
        code: "custom",
        message: `is ${bytes} bytes, over the limit of ${opts.max}`,
        params: { tooLarge: true },
      });
    }
  });
}

/** A session name or fact key: 1–255 bytes, no control chars, no empty/./.. segment. */
export const Name = z.string().superRefine((s, ctx) => {
  const problem = nameProblem(s);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/** A name prefix for listings: like a name but may end with '/' and may be empty. */
export const Prefix = z.string().superRefine((s, ctx) => {
  if (s === "") return;
  const problem = nameProblem(s.endsWith("/") ? s.slice(0, -1) : s);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/**
 * Refuses U+0000 in a name, key or cursor: PostgreSQL's text cannot hold it
 * (DESIGN.md 12), and a name one engine refuses is refused by every engine,
 * with the same error. Text a user stores (content, values, meta, link text)
 * keeps its NULs instead (src/store/postgres/nul.ts).
 */
export function refuseNul(s: string, ctx: z.RefinementCtx): void {
  if (s.includes("\u0000")) ctx.addIssue({ code: "custom", message: "must not contain U+0000 (NUL)" });
}

/** An idempotency key: 1–255 bytes, no NUL. */
export const IdemKey = utf8String({ min: 1, max: IDEM_KEY_MAX_BYTES }).superRefine(refuseNul);

/** A name cursor (the `next` of a listing's previous page): at most 1,024 characters, no NUL (no name holds one). */
export const NameCursor = z.string().max(1024).superRefine(refuseNul);

/** A log sequence number: a positive safe integer. */
export const Lsn = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** An `after` cursor over LSNs: 0 means from the start. */
export const AfterLsn = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** A page size: 1..PAGE_MAX; larger is invalid_input (DESIGN.md section 3). */
export const Limit = z.number().int().min(1).max(PAGE_MAX);

/** The roles a turn may have. */
export const Role = z.enum(ROLES);

/** An object digest: `sha256:` and 64 lowercase hex digits. */
export const Digest = z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be sha256: followed by 64 lowercase hex digits");

/**
 * Where `value` stops being plain JSON (a non-finite number, undefined, a
 * function, a lone surrogate...), as a path, or undefined when it is JSON.
 * Nesting past JSON_MAX_DEPTH is reported at the value itself (path []), and
 * found before anything deeper is walked, so a value a million levels deep
 * costs no more than one at the limit (issue 9).
 */
export function jsonProblem(value: unknown, path: (string | number)[] = [], depth = 0): { path: (string | number)[]; message: string } | undefined {
  if (typeof value === "object" && value !== null && depth >= JSON_MAX_DEPTH) {
    return { path: [], message: `nests deeper than ${JSON_MAX_DEPTH} levels` };
  }
  switch (typeof value) {
    case "string":
      return value.isWellFormed() ? undefined : { path, message: "must be valid UTF-8" };
    case "number":
      return Number.isFinite(value) ? undefined : { path, message: "numbers must be finite" };
    case "boolean":
      return undefined;
    case "object": {
      if (value === null) return undefined;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const p = jsonProblem(value[i], [...path, i], depth + 1);
          if (p) return p;
        }
        return undefined;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return { path, message: "must be a plain JSON value" };
      for (const [k, v] of Object.entries(value)) {
        if (!k.isWellFormed()) return { path: [...path, k], message: "keys must be valid UTF-8" };
        const p = jsonProblem(v, [...path, k], depth + 1);
        if (p) return p;
      }
      return undefined;
    }
    default:
      return { path, message: "must be a JSON value" };
  }
}

/** Any JSON value whose serialization is at most `max` bytes. */
export function jsonValue(max: number, opts: { object?: boolean } = {}) {
  return z.unknown().superRefine((v, ctx) => {
    if (v === undefined) {
      ctx.addIssue({ code: "custom", message: "required" });
      return;
    }
    if (opts.object && (typeof v !== "object" || v === null || Array.isArray(v))) {
      ctx.addIssue({ code: "custom", message: "must be a JSON object" });
      return;
    }
    const problem = jsonProblem(v);
    if (problem) {
      ctx.addIssue({ code: "custom", message: problem.message, path: problem.path });
      return;
    }
    const bytes = utf8Bytes(JSON.stringify(v));
    if (bytes > max) {
      ctx.addIssue({ code: "custom", message: `is ${bytes} bytes serialized, over the limit of ${max}`, params: { tooLarge: true } });
    }
  });
}

/** A tenant name (the rule: tenant.ts). */
export const Tenant = tenantSchema();

// The tenant and name rules live apart so the config file, the CLI and a capture hook check them without building every schema here.
export { checkTenant } from "./tenant.ts";
export { isPlainFactGet, nameProblem, utf8Bytes } from "./names.ts";
