/** Tape records as exported and imported (JSONL, one record a line). */
import { once } from "../util/once.ts";
import type { z } from "zod";
import { zod } from "./zod.ts";

/**
 * Builds the schemas, once, on first use: only export and import read tapes,
 * and every other command (a capture hook's start above all) would pay for
 * building them when the store loads.
 */
function build() {
  const s = zod();
  // Required on first use, not imported: common.ts builds its schemas as it loads (issue 32).
  const { Lsn, Role } = require("./common.ts") as typeof import("./common.ts");
  const Hex256 = s.string().regex(/^[0-9a-f]{64}$/);

  const Base = {
    lsn: Lsn,
    tenant: s.string().min(1).max(64),
    ts: s.string(),
    idem_key: s.string().optional(),
    /** Hex digest of the operation, kept so idempotency survives an export (I3). */
    op_hash: Hex256.optional(),
  };

  /**
   * A record whose content was forgotten: its LSN, its kind, the forget that
   * hid it, and the digest of its idem key, which stays reserved (I3). Exports
   * of earlier releases carry the key and its op_hash instead; import turns
   * them into the digest and drops the hash (issue 14 item 4).
   */
  const Forgotten = s.strictObject({
    ...Base,
    kind: s.enum(["turn", "fact", "link", "object"]),
    forgotten_by: Lsn,
    /**
     * SHA-256, hex, of "zerodb forgotten idem_key", NUL, the tenant, NUL, the
     * key (idemDigest in src/store/hashes.ts): every engine that replays
     * an export (DESIGN.md 12) hashes a retried key the same way to find it.
     */
    idem_digest: Hex256.optional(),
  });

  const TurnRecord = s.strictObject({
    ...Base,
    kind: s.literal("turn"),
    session: s.string(),
    role: Role,
    content: s.string(),
    meta: s.record(s.string(), s.unknown()),
  });

  const FactRecord = s.strictObject({ ...Base, kind: s.literal("fact"), key: s.string(), value: s.unknown() });

  /**
   * A forget: how many records it hid and their LSNs as inclusive ranges, what
   * a replay needs and nothing that says what was forgotten. Exports of earlier
   * releases carry the selector instead (a session name, a fact key); import
   * takes the LSNs from the forgotten records and drops the selector.
   */
  const ForgetRecord = s
    .strictObject({
      ...Base,
      kind: s.literal("forget"),
      hidden: s.number().int().min(0),
      lsns: s.array(s.tuple([Lsn, Lsn])).optional(),
      selector: s.record(s.string(), s.unknown()).optional(),
    })
    .refine((r) => (r.lsns === undefined) !== (r.selector === undefined), { message: "needs exactly one of lsns and selector", path: ["lsns"] });

  const LinkRecord = s.strictObject({
    ...Base,
    kind: s.literal("link"),
    url: s.string(),
    title: s.string().nullable(),
    note: s.string().nullable(),
  });

  const ObjectRecord = s.strictObject({
    ...Base,
    kind: s.literal("object"),
    object: s.string(),
    size: s.number().int().min(0),
    type: s.string(),
    name: s.string().nullable(),
  });

  /** One exported tape record. */
  const TapeRecord = s.union([Forgotten, TurnRecord, FactRecord, ForgetRecord, LinkRecord, ObjectRecord]);
  const BY_KIND = { turn: TurnRecord, fact: FactRecord, forget: ForgetRecord, link: LinkRecord, object: ObjectRecord } as const;
  return { TapeRecord, Forgotten, BY_KIND };
}

const schemas = once(build);

/** One exported tape record. */
export type TapeRecord = z.infer<ReturnType<typeof build>["TapeRecord"]>;

/**
 * The schema a raw record must match, picked by its shape, so an error names
 * the offending field rather than "no union member matched".
 */
export function tapeRecordSchema(raw: unknown): z.ZodType<TapeRecord> {
  const { TapeRecord, Forgotten, BY_KIND } = schemas();
  if (raw && typeof raw === "object" && "forgotten_by" in raw) return Forgotten;
  const kind = (raw as { kind?: unknown } | null)?.kind;
  return typeof kind === "string" && kind in BY_KIND ? BY_KIND[kind as keyof typeof BY_KIND] : TapeRecord;
}
