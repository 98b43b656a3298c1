/** @jsxImportSource hono/jsx */
/**
 * A turn as a chat message (DESIGN.md 13): prompts and replies open, tool
 * calls and results, system text and notes folded in `<details>`, a
 * subagent's turns (meta.isSidechain) indented; a run of bookkeeping turns
 * (what search leaves out by default) folded as one.
 */
import type { Turn } from "../../schema/results.ts";
import { SearchClass, turnClass } from "../../search/search-class.ts";

/**
 * Characters of a turn a session page shows: a page of 200 turns stays
 * bounded (under about 2 MB of text) however big the turns are; the turn's
 * own page shows all of it.
 */
export const TURN_PREVIEW_CHARS = 8192;

/**
 * The start of a text on one line, cut to `max` characters: a folded turn's
 * summary. Line breaks become spaces, so a captured call's summary shows its
 * input after its tool (`[tool_use Read] {"file_path": …}`), not the tag alone.
 */
export function oneLine(text: string, max = 120): string {
  const line = text
    .slice(0, max * 4)
    .replace(/\s+/g, " ")
    .trim();
  return line.length > max ? `${line.slice(0, max).toWellFormed()}…` : line;
}

/** The tool names a turn's meta lists (capture records them as meta.tools). */
function tools(meta: Record<string, unknown>): string[] {
  return Array.isArray(meta.tools) ? meta.tools.filter((t): t is string => typeof t === "string") : [];
}

/** The images capture stored for a turn (meta.images[].object, DESIGN.md 8): digests only, served by /ui/object for this tenant. */
export function turnImages(meta: Record<string, unknown>): string[] {
  if (!Array.isArray(meta.images)) return [];
  return meta.images
    .map((i) => (typeof i === "object" && i !== null ? (i as { object?: unknown }).object : undefined))
    .filter((o): o is string => typeof o === "string" && /^sha256:[0-9a-f]{64}$/.test(o));
}

/** Whether a turn is folded: anything that is not a person's prompt or the model's plain reply. */
export function folded(turn: Turn): boolean {
  if (turn.role === "tool" || turn.role === "system" || turn.role === "note") return true;
  return tools(turn.meta).length > 0 || turn.meta.isMeta === true;
}

/** One turn (`open`: never folded; `whole`: never cut), with its LSN as its anchor and a link to its own page. */
export function TurnView(props: { turn: Turn; open?: boolean; whole?: boolean }) {
  const t = props.turn;
  const cut = !props.whole && t.content.length > TURN_PREVIEW_CHARS;
  const body = (
    <>
      <pre>{cut ? t.content.slice(0, TURN_PREVIEW_CHARS).toWellFormed() : t.content}</pre>
      {cut && (
        <p class="muted">
          … {t.content.length - TURN_PREVIEW_CHARS} more characters: <a href={`/ui/turn/${t.lsn}`}>the whole turn</a>
        </p>
      )}
      {turnImages(t.meta).map((o) => (
        <a href={`/ui/object/${o}`}>
          <img class="thumb" src={`/ui/object/${o}`} alt={`attached to turn ${t.lsn} (${o.slice(0, 19)}…)`} loading="lazy" />
        </a>
      ))}
    </>
  );
  const names = tools(t.meta);
  const label = t.role === "assistant" && names.length > 0 ? `tool call: ${names.join(", ")}` : t.role === "tool" ? "tool result" : t.role;
  const cls = `turn ${t.role}${t.meta.isSidechain === true ? " sub" : ""}`;
  return (
    <article class={cls} id={`t${t.lsn}`}>
      <div class="who">
        <strong>{label}</strong>
        {t.meta.isSidechain === true && <span>subagent</span>}
        <a href={`/ui/turn/${t.lsn}`}>LSN {t.lsn}</a>
        <time datetime={t.ts}>{t.ts}</time>
      </div>
      {folded(t) && !props.open ? (
        <details>
          <summary>{oneLine(t.content) || "(empty)"}</summary>
          {body}
        </details>
      ) : (
        body
      )}
    </article>
  );
}

/** Whether search leaves a turn out by default (DESIGN.md 11, "Noise"): harness bookkeeping, zerodb's own calls, results and context. */
export function isNoise(turn: Turn): boolean {
  return turnClass(turn.role, turn.meta) === SearchClass.noise;
}

/** A session's turns in order, each run of consecutive noise turns as one group. */
export function chatRuns(turns: Turn[]): ({ noise: false; turn: Turn } | { noise: true; turns: Turn[] })[] {
  const out: ({ noise: false; turn: Turn } | { noise: true; turns: Turn[] })[] = [];
  for (const turn of turns) {
    const last = out.at(-1);
    if (!isNoise(turn)) out.push({ noise: false, turn });
    else if (last?.noise) last.turns.push(turn);
    else out.push({ noise: true, turns: [turn] });
  }
  return out;
}

/**
 * A page of a session as a chat: what was said in the open, each run of
 * bookkeeping folded under one line so a captured session reads as its
 * conversation (every turn is still there, a click away). `openAt`: the
 * LSN a link landed on (a search hit's or a turn page's `at=`), so the run
 * holding it is open and the linked turn shows.
 */
export function Chat(props: { turns: Turn[]; openAt?: number }) {
  return (
    <>
      {chatRuns(props.turns).map((run) =>
        run.noise ? (
          <details class="noise" open={props.openAt !== undefined && run.turns.some((t) => t.lsn === props.openAt)}>
            <summary>
              {run.turns.length === 1 ? "1 bookkeeping turn" : `${run.turns.length} bookkeeping turns`} (harness metadata, zerodb's own context and calls) · LSN{" "}
              {run.turns.length === 1 ? run.turns[0]!.lsn : `${run.turns[0]!.lsn}–${run.turns.at(-1)!.lsn}`}
            </summary>
            {run.turns.map((t) => (
              <TurnView turn={t} />
            ))}
          </details>
        ) : (
          <TurnView turn={run.turn} />
        ),
      )}
    </>
  );
}
