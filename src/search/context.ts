/**
 * Stage 3 of a search, the same on every engine (DESIGN.md 11): a turn is
 * read in its conversation. The best turns' neighbours are scored too; a turn
 * gains from a neighbour that matches better than it does; and the turns
 * that answer a matching prompt or tool call (its first and closing
 * replies, its result) rank close below it, as hits of their own even when
 * they hold none of the query's words, since that is where the answer to
 * what was asked usually is: `pprof heap` finds the profile the command
 * printed, not only the command. Notes the user remembered stand alone: no
 * turn answers them. A message its harness changed in place is found once,
 * as it now reads.
 */
import { SearchClass } from "./search-class.ts";

/** The best turns whose conversation neighbours are read. */
export const CONTEXT_TOP = 12;
/** Turns on each side of a turn that count as its neighbours. */
export const NEIGHBOURS = 3;
/** Turns read after a matching turn, to find its answer: its neighbours and a few more. */
export const AFTER = 8;
/** How much of its best neighbour's score a turn holding query words gains. */
const CONTEXT_WEIGHT = 0.5;
/**
 * What a turn gains, as a share of the query's weight, for each share of it
 * that its session's matching turns hold together (sessionShares): the
 * answer lies in the conversation about the question's subject, while a turn
 * that holds a few of its words by chance sits in one about something else.
 * Measured on the real set's tune queries (docs/decisions/search.md,
 * 2026-12-03).
 */
const SESSION_WEIGHT = 0.2;
/** An answer's score, at least, as a share of the turn it answers: below that turn, above weaker matches. */
const ANSWER_WEIGHT = 0.8;

/** A scored row: its own score (zero when it holds no query word), which words it holds, its search class. */
export interface Scored {
  lsn: number;
  own: number;
  held: boolean[];
  cls: number;
  /** A version of a message its harness wrote again under one id (versionOf). */
  version?: Version;
  /** The tool calls a tool call makes or a tool result answers, by the ids its harness gave them (toolIdsOf). */
  toolIds?: readonly string[];
  /** A turn's session. */
  session?: string;
}

/** Which message a turn is a version of (its session and `meta.message_id`), and whether it holds that message whole as changed. */
export interface Version {
  key: string;
  whole: boolean;
}

/**
 * A turn's message version, from its session and meta: Gemini CLI writes a
 * message again under its id as it changes (src/capture/gemini-versions.ts),
 * and a version marked `rewrite: "changed"` holds the message whole as it
 * now reads. Undefined for a turn that names no message id.
 */
export function versionOf(session: string | null, meta: unknown): Version | undefined {
  const m = meta as { message_id?: unknown; rewrite?: unknown } | null | undefined;
  if (session === null || typeof m?.message_id !== "string") return undefined;
  return { key: `${session}\u0000${m.message_id}`, whole: m.rewrite === "changed" };
}

/** The tool_use ids capture noted in a turn's meta (`meta.tool_use_ids`): a tool call's, or those its result answers. */
export function toolIdsOf(meta: unknown): string[] | undefined {
  const ids = (meta as { tool_use_ids?: unknown } | null | undefined)?.tool_use_ids;
  if (!Array.isArray(ids)) return undefined;
  const out = ids.filter((x): x is string => typeof x === "string" && x !== "");
  return out.length > 0 ? out : undefined;
}

/**
 * Whether a matching turn of this class is read in its conversation. A note
 * the user remembered stands alone: its neighbours neither lift it nor
 * answer it, so they are not read (a search that finds only notes, as a
 * `remember`ed fact is found, costs no more than finding them). A compaction
 * summary is no turn of the conversation either: it neither lifts nor is
 * answered by the turns around it.
 */
export function readsConversation(cls: number): boolean {
  return cls !== SearchClass.note && cls !== SearchClass.summary;
}

/** Turns that begin something else: no turn after them answers the match before them. */
const NEW_TOPIC: ReadonlySet<number> = new Set([SearchClass.prompt, SearchClass.note]);
/** Matching turns that a later turn answers: a prompt, a tool call. */
const EXCHANGE: ReadonlySet<number> = new Set([SearchClass.prompt, SearchClass.tool_call]);

/**
 * The turns that answer a matching prompt or tool call, among the AFTER turns
 * after it up to the next prompt or note: a tool call's result (the one
 * answering its tool_use id when both name ids: an agent that makes several
 * calls at once gets their results after all of them, in any order); a
 * prompt's first reply and the reply that closes the exchange (after the
 * tool calls it made).
 */
function answersOf<T extends Scored>(r: T, after: number[], scored: Map<number, T>): number[] {
  let first: number | undefined;
  let last: number | undefined;
  for (const lsn of after) {
    const t = scored.get(lsn);
    if (!t || NEW_TOPIC.has(t.cls)) break;
    if (r.cls === SearchClass.tool_call) {
      if (t.cls === SearchClass.tool_result && answersCall(r.toolIds, t.toolIds)) return [lsn];
      continue;
    }
    if (t.cls === SearchClass.reply) {
      first ??= lsn;
      last = lsn;
    }
  }
  return [...new Set([first, last])].filter((x): x is number => x !== undefined);
}

/** Whether a tool result answers a tool call: the same id, or either names none (a harness that gives no ids). */
function answersCall(call: readonly string[] | undefined, result: readonly string[] | undefined): boolean {
  if (call === undefined || result === undefined) return true;
  return result.some((id) => call.includes(id));
}

/**
 * Each session's share of the query's weight (its terms' `weights`) that the
 * session's matching turns read (the pool, deeper windows, the best turns'
 * neighbours) hold together. Notes and summaries stand alone: they do not
 * count for their session, and their own share is what they gain from
 * (readsConversation).
 */
function sessionShares(scored: ReadonlyMap<number, Scored>, weights: readonly number[]): Map<string, number> {
  const held = new Map<string, boolean[]>();
  for (const r of scored.values()) {
    if (r.own <= 0 || r.session === undefined || !readsConversation(r.cls)) continue;
    let h = held.get(r.session);
    if (!h) held.set(r.session, (h = weights.map(() => false)));
    for (let i = 0; i < h.length; i++) if (r.held[i]) h[i] = true;
  }
  const out = new Map<string, number>();
  for (const [session, h] of held) out.set(session, heldShare(h, weights));
  return out;
}

/** The share of the query's weight held. */
function heldShare(held: readonly boolean[], weights: readonly number[]): number {
  let all = 0;
  let some = 0;
  for (let i = 0; i < weights.length; i++) {
    all += weights[i]!;
    if (held[i]) some += weights[i]!;
  }
  return all > 0 ? some / all : 0;
}

/** A turn's neighbours in its session, nearest first on each side. */
export interface Near {
  before: number[];
  after: number[];
}

/** A ranked row: its final score, and the matching turn it follows when it holds no query word itself. */
export interface Ranked<T extends Scored> {
  r: T;
  s: number;
  follows?: number;
}

/**
 * The final ranking: `scored` holds every row read (the pool and the
 * neighbours of `top`), `near` the neighbours of each of `top`. With
 * `saidAfter` (the query asks what the user said after something:
 * query.ts asksWhatUserSaidAfter) the first prompt after each top turn
 * answers it too: `what did I type after compacting` is answered by the
 * prompt after the compaction, which holds none of its words.
 */
export function rankInContext<T extends Scored>(
  scored: Map<number, T>,
  near: Map<number, Near>,
  opts: { top: T[]; limit: number; allWords: boolean; saidAfter?: boolean; weights: readonly number[] },
): Ranked<T>[] {
  const context = new Map<number, number>();
  const lift = (lsn: number, by: number) => context.set(lsn, Math.max(context.get(lsn) ?? 0, by));
  /** Each turn that answers a match: the match giving it the best score. */
  const follows = new Map<number, { of: number; s: number }>();
  const follow = (lsn: number, of: number, s: number) => {
    const known = follows.get(lsn);
    if (!known || known.s < s) follows.set(lsn, { of, s });
  };
  for (const r of opts.top) {
    const n = near.get(r.lsn) ?? { before: [], after: [] };
    for (const lsn of [...n.before, ...n.after.slice(0, NEIGHBOURS)]) {
      const other = scored.get(lsn);
      if (!other || !readsConversation(other.cls)) continue;
      // What a neighbour adds beyond the turn's own match: two turns saying the same lift neither.
      lift(lsn, r.own - other.own);
      lift(r.lsn, other.own - r.own);
    }
    if (opts.saidAfter) {
      // What the user said after the match is the next prompt: level with the match, ahead of it (newer) on a tie.
      const next = n.after.find((lsn) => scored.get(lsn)?.cls === SearchClass.prompt);
      if (next !== undefined) follow(next, r.lsn, r.own);
    }
    if (!EXCHANGE.has(r.cls)) continue;
    for (const lsn of answersOf(r, n.after, scored)) follow(lsn, r.lsn, ANSWER_WEIGHT * r.own);
  }
  // A message changed in place is found once, as it now reads: an earlier version is no hit when a later whole one was read.
  const latest = new Map<string, number>();
  for (const r of scored.values()) if (r.version?.whole && r.lsn > (latest.get(r.version.key) ?? -1)) latest.set(r.version.key, r.lsn);
  const sessions = sessionShares(scored, opts.weights);
  const weight = opts.weights.reduce((s, w) => s + w, 0);
  // A note or a summary stands alone: its own share is its session's.
  const inSession = (r: T) =>
    SESSION_WEIGHT * weight * (r.session !== undefined && readsConversation(r.cls) ? (sessions.get(r.session) ?? 0) : heldShare(r.held, opts.weights));
  const out: Ranked<T>[] = [];
  for (const r of scored.values()) {
    if (opts.allWords && !r.held.every(Boolean)) continue;
    if (r.version && (latest.get(r.version.key) ?? -1) > r.lsn) continue;
    if (r.own > 0) {
      const f = follows.get(r.lsn);
      out.push({ r, s: Math.max(r.own + CONTEXT_WEIGHT * (context.get(r.lsn) ?? 0), f ? f.s : 0) + inSession(r) });
    } else {
      const f = follows.get(r.lsn);
      if (f) out.push({ r, s: f.s + inSession(r), follows: f.of });
    }
  }
  return out.sort((a, b) => b.s - a.s || b.r.lsn - a.r.lsn).slice(0, opts.limit);
}
