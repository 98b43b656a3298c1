/**
 * The JSON Claude Code writes to a hook's stdin (HARNESSES.md "Claude Code
 * hooks"). Parsed tolerantly: unknown fields pass through, since every
 * version adds some; only what capture relies on is required.
 */
import { isPlainObject } from "../util/json.ts";
import { once } from "../util/once.ts";
import type { z } from "zod";
import { invalid } from "../errors.ts";
import { parseInput } from "../schema/parse.ts";
import { zod } from "../schema/zod.ts";

/** One hook invocation's input: unknown fields pass through. */
function build() {
  const s = zod();
  return s.looseObject({
    session_id: s.string().min(1).max(1024),
    transcript_path: s.string().min(1).max(4096),
    cwd: s.string().min(1).max(4096),
    hook_event_name: s.string().min(1).max(64),
    source: s.string().optional(),
    reason: s.string().optional(),
    agent_id: s.string().optional(),
    agent_transcript_path: s.string().optional(),
  });
}
/** One hook invocation's input, as the schema gives it. */
export type HookEvent = z.output<ReturnType<typeof build>>;

/** The required strings of a hook event and their longest length (in UTF-16 code units, as zod's max counts): the schema's rules, for plainlyGoodEvent. */
const REQUIRED = [
  ["session_id", 1024],
  ["transcript_path", 4096],
  ["cwd", 4096],
  ["hook_event_name", 64],
] as const;
const OPTIONAL = ["source", "reason", "agent_id", "agent_transcript_path"] as const;

/**
 * The schema of a hook event, built on first use: a hook whose input is good
 * (nearly every one) never needs it, and building it costs a hook's start.
 */
export const hookEventSchema = once(build);

/**
 * Parses the hook's stdin; a ZeroDbError names what is wrong (never the input
 * itself, which may hold secrets). Input that plainly fits is taken as is;
 * anything else goes to the schema, which accepts or names the field.
 */
export function parseHookEvent(text: string): HookEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid("stdin", "the hook input is not JSON");
  }
  if (plainlyGoodEvent(raw)) return raw;
  return parseInput(hookEventSchema(), raw, "hook input");
}

/** True only when the schema accepts `v` unchanged. */
export function plainlyGoodEvent(v: unknown): v is HookEvent {
  if (!isPlainObject(v)) return false;
  const o = v;
  for (const [key, max] of REQUIRED) {
    const s = o[key];
    if (typeof s !== "string" || s.length < 1 || s.length > max) return false;
  }
  return OPTIONAL.every((key) => o[key] === undefined || typeof o[key] === "string");
}
