/** @jsxImportSource hono/jsx */
/** The overview (projects and sessions, newest first), a session as a chat paged by LSN, and a turn by its LSN. */
import type { Hono } from "hono";
import { ZeroDbError } from "../../../errors.ts";
import { AsOfField, AsOfNotice } from "../as-of.tsx";
import { Chat, TurnView } from "../chat.tsx";
import { Layout, size } from "../layout.tsx";
import { allSessions, findTurn, projects } from "../lookup.ts";
import { type ViewerEnv, frame, href, intParam, required, textParam } from "../page.ts";
import { sessionMarkdownOf } from "../session-markdown.ts";

/** Turns on one page of a session. */
export const SESSION_PAGE = 200;

/** Registers /ui, /ui/session and /ui/turn/:lsn. */
export function sessionPages(ui: Hono<ViewerEnv>): void {
  ui.get("/", async (c) => {
    const [{ sessions, truncated }, stats] = await Promise.all([allSessions(c.var.memory), c.var.memory.stats()]);
    return c.html(
      <Layout {...frame(c, "Sessions")}>
        <h1>Projects and sessions</h1>
        <p class="muted">
          {stats.sessions} sessions, {stats.turns.count} turns ({size(stats.turns.bytes)}), {stats.facts.count} facts, {stats.objects.count} objects,{" "}
          {stats.links.count} links.
        </p>
        {truncated && <p class="error">Only the first {sessions.length} sessions by name are shown.</p>}
        {sessions.length === 0 && <p>No sessions yet.</p>}
        {projects(sessions).map((p) => (
          <section>
            <h2>{p.name === "" ? "(no project)" : p.name}</h2>
            <p class="muted">
              {p.sessions.length} sessions, {p.turns} turns, {size(p.bytes)}
              {p.name !== "" && (
                <>
                  {" "}
                  · <a href={href("/ui/context", { project: p.name })}>SessionStart context</a>
                </>
              )}
            </p>
            <table>
              <thead>
                <tr>
                  <th>session</th>
                  <th class="num">turns</th>
                  <th class="num">size</th>
                  <th class="num">last LSN</th>
                </tr>
              </thead>
              <tbody>
                {p.sessions.map((s) => (
                  <tr>
                    <td>
                      <a href={href("/ui/session", { s: s.name })}>{s.name}</a>
                    </td>
                    <td class="num">{s.turns}</td>
                    <td class="num">{size(s.bytes)}</td>
                    <td class="num">{s.last_lsn}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        ))}
      </Layout>,
    );
  });

  ui.get("/session", async (c) => {
    const name = required(c, "s");
    const after = intParam(c, "after") ?? 0;
    const asOf = textParam(c, "as_of");
    const page = await c.var.memory.read({ session: name, after, limit: SESSION_PAGE, ...(asOf !== undefined ? { as_of: asOf } : {}) });
    if (after === 0 && page.turns.length === 0)
      throw new ZeroDbError("not_found", asOf === undefined ? "no such session" : `no turns in this session as of ${asOf}`);
    return c.html(
      <Layout {...frame(c, name)}>
        <h1>{name}</h1>
        <p>
          <a href={href("/ui/search", { session: name })}>Search this session</a> ·{" "}
          <a href={href("/ui/forget", { kind: "session", value: name })}>Forget this session…</a> ·{" "}
          <a href={href("/ui/session.md", { s: name, as_of: asOf })} download>
            Download as Markdown
          </a>
        </p>
        <form method="get" action="/ui/session" aria-label="As of">
          <input type="hidden" name="s" value={name} />
          <AsOfField value={asOf} />
          <button type="submit">Show</button>
        </form>
        <AsOfNotice value={asOf} now={href("/ui/session", { s: name })} />
        {after > 0 && (
          <p class="pager">
            <a href={href("/ui/session", { s: name, as_of: asOf })}>First page</a>
            <span class="muted">turns after LSN {after}</span>
          </p>
        )}
        <Chat turns={page.turns} openAt={intParam(c, "at")} />
        {page.turns.length === 0 && <p>No more turns.</p>}
        <p class="pager">{page.next !== null && <a href={href("/ui/session", { s: name, after: page.next, as_of: asOf })}>Next {SESSION_PAGE} turns</a>}</p>
      </Layout>,
    );
  });

  // The session as Markdown (DESIGN.md section 17), as `zerodb export --format markdown` writes it.
  ui.get("/session.md", async (c) => {
    const name = required(c, "s");
    const md = await sessionMarkdownOf(c.var.memory, name, textParam(c, "as_of"));
    if (md === undefined) throw new ZeroDbError("not_found", "no such session");
    const file = `${
      name
        .replace(/[^A-Za-z0-9._-]+/g, "-")
        .replace(/^[-.]+/, "")
        .slice(0, 100) || "session"
    }.md`;
    return c.body(md, 200, { "content-type": "text/markdown; charset=utf-8", "content-disposition": `attachment; filename="${file}"` });
  });

  ui.get("/turn/:lsn{[0-9]+}", async (c) => {
    const lsn = Number(c.req.param("lsn"));
    const turn = Number.isSafeInteger(lsn) ? await findTurn(c.var.memory, lsn) : undefined;
    if (!turn) throw new ZeroDbError("not_found", `no turn with LSN ${c.req.param("lsn")}`);
    return c.html(
      <Layout {...frame(c, `Turn ${lsn}`)}>
        <h1>Turn {lsn}</h1>
        <p>
          In <a href={`${href("/ui/session", { s: turn.session, after: lsn - 1, at: lsn })}#t${lsn}`}>{turn.session}</a> (
          <a href={href("/ui/session", { s: turn.session })}>from its start</a>) ·{" "}
          <a href={href("/ui/forget", { kind: "turn", value: lsn })}>Forget this turn…</a>
        </p>
        <TurnView turn={turn} open whole />
        <details>
          <summary>meta</summary>
          <pre>{JSON.stringify(turn.meta, null, 2)}</pre>
        </details>
      </Layout>,
    );
  });
}
