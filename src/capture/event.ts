/**
 * The JSON Claude Code writes to a hook's stdin (HARNESSES.md "Claude Code
 * hooks"). Parsed tolerantly: unknown fields pass through, since every
 * version adds some; only what capture relies on is required.
 */
import { z } from "zod";
import { invalid } from "../errors.ts";
import { parseInput } from "../schema/parse.ts";

/** One hook invocation's input. */
export const HookEvent = z.looseObject({
  session_id: z.string().min(1).max(1024),
  transcript_path: z.string().min(1).max(4096),
  cwd: z.string().min(1).max(4096),
  hook_event_name: z.string().min(1).max(64),
  source: z.string().optional(),
  reason: z.string().optional(),
  agent_id: z.string().optional(),
  agent_transcript_path: z.string().optional(),
});
export type HookEvent = z.output<typeof HookEvent>;

/** Parses the hook's stdin; a ZeroDbError names what is wrong (never the input itself, which may hold secrets). */
export function parseHookEvent(text: string): HookEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid("stdin", "the hook input is not JSON");
  }
  return parseInput(HookEvent, raw, "hook input");
}
