/** Tape records as exported and imported (JSONL, one record a line). */
import { z } from "zod";
import { Role } from "./common.ts";

const Base = {
  lsn: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  tenant: z.string().min(1).max(64),
  ts: z.string(),
  idem_key: z.string().optional(),
  /** Hex digest of the operation, kept so idempotency survives an export (I3). */
  op_hash: z.string().regex(/^[0-9a-f]{64}$/).optional(),
};

/** A record whose content was forgotten: its LSN and idem key stay reserved. */
const Forgotten = z.strictObject({
  ...Base,
  kind: z.enum(["turn", "fact", "link", "object"]),
  forgotten_by: z.number().int().min(1),
});

const TurnRecord = z.strictObject({
  ...Base,
  kind: z.literal("turn"),
  session: z.string(),
  role: Role,
  content: z.string(),
  meta: z.record(z.string(), z.unknown()),
});

const FactRecord = z.strictObject({ ...Base, kind: z.literal("fact"), key: z.string(), value: z.unknown() });

const ForgetRecord = z.strictObject({
  ...Base,
  kind: z.literal("forget"),
  selector: z.record(z.string(), z.unknown()),
  hidden: z.number().int().min(0),
});

const LinkRecord = z.strictObject({
  ...Base,
  kind: z.literal("link"),
  url: z.string(),
  title: z.string().nullable(),
  note: z.string().nullable(),
});

const ObjectRecord = z.strictObject({
  ...Base,
  kind: z.literal("object"),
  object: z.string(),
  size: z.number().int().min(0),
  type: z.string(),
  name: z.string().nullable(),
});

/** One exported tape record. */
export const TapeRecord = z.union([Forgotten, TurnRecord, FactRecord, ForgetRecord, LinkRecord, ObjectRecord]);
export type TapeRecord = z.infer<typeof TapeRecord>;

const BY_KIND = { turn: TurnRecord, fact: FactRecord, forget: ForgetRecord, link: LinkRecord, object: ObjectRecord } as const;

/**
 * The schema a raw record must match, picked by its shape, so an error names
 * the offending field rather than "no union member matched".
 */
export function tapeRecordSchema(raw: unknown): z.ZodType<TapeRecord> {
  if (raw && typeof raw === "object" && "forgotten_by" in raw) return Forgotten;
  const kind = (raw as { kind?: unknown } | null)?.kind;
  return typeof kind === "string" && kind in BY_KIND ? BY_KIND[kind as keyof typeof BY_KIND] : TapeRecord;
}
