/** @jsxImportSource hono/jsx */
/** Search with the API's engine and filters (Memory.search, the SearchInput schema), hits highlighted from `matched`, each linking to its turn. */
import type { Hono } from "hono";
import { toZeroDbError } from "../../../errors.ts";
import { SearchInput } from "../../../schema/ops.ts";
import { parseInput } from "../../../schema/parse.ts";
import type { SearchResult } from "../../../schema/results.ts";
import { AsOfField, AsOfNotice } from "../as-of.tsx";
import { Highlighted } from "../highlight.tsx";
import { ErrorBox, Layout } from "../layout.tsx";
import { type ViewerEnv, frame, href, textParam } from "../page.ts";

const ROLES = ["", "user", "assistant", "tool", "system", "note"] as const;

/** Registers /ui/search. */
export function searchPages(ui: Hono<ViewerEnv>): void {
  ui.get("/search", async (c) => {
    const q = textParam(c, "q");
    const f = {
      session: textParam(c, "session"),
      prefix: textParam(c, "prefix"),
      role: textParam(c, "role"),
      limit: textParam(c, "limit"),
      all_words: c.req.query("all_words") === "1",
      include_noise: c.req.query("include_noise") === "1",
      as_of: textParam(c, "as_of"),
    };
    let result: SearchResult | undefined;
    let error: string | undefined;
    if (q !== undefined) {
      try {
        const input = parseInput(SearchInput, {
          query: q,
          ...(f.session !== undefined ? { session: f.session } : {}),
          ...(f.prefix !== undefined ? { prefix: f.prefix } : {}),
          ...(f.role !== undefined ? { role: f.role } : {}),
          ...(f.limit !== undefined ? { limit: Number(f.limit) } : {}),
          ...(f.all_words ? { all_words: true } : {}),
          ...(f.include_noise ? { include_noise: true } : {}),
          ...(f.as_of !== undefined ? { as_of: f.as_of } : {}),
        });
        result = await c.var.memory.search(input);
      } catch (err) {
        const e = toZeroDbError(err);
        if (e.code !== "invalid_input") throw e;
        error = e.message;
      }
    }
    return c.html(
      <Layout {...frame(c, q === undefined ? "Search" : `Search: ${q}`)}>
        <h1>Search</h1>
        <form method="get" action="/ui/search" aria-label="Search">
          <label>
            Words <input type="search" name="q" value={q ?? ""} size={40} />
          </label>
          <button type="submit">Search</button>
          <br />
          <label>
            Session <input type="text" name="session" value={f.session ?? ""} />
          </label>
          <label>
            Session prefix <input type="text" name="prefix" value={f.prefix ?? ""} />
          </label>
          <label>
            Role{" "}
            <select name="role">
              {ROLES.map((r) => (
                <option value={r} selected={r === (f.role ?? "")}>
                  {r === "" ? "any" : r}
                </option>
              ))}
            </select>
          </label>
          <label>
            <input type="checkbox" name="all_words" value="1" checked={f.all_words} /> every word
          </label>
          <label>
            <input type="checkbox" name="include_noise" value="1" checked={f.include_noise} /> include bookkeeping
          </label>
          <label>
            At most <input type="text" name="limit" value={f.limit ?? ""} size={4} inputmode="numeric" />
          </label>
          <AsOfField value={f.as_of} />
        </form>
        <AsOfNotice
          value={f.as_of}
          now={href("/ui/search", { ...f, as_of: undefined, all_words: f.all_words ? 1 : undefined, include_noise: f.include_noise ? 1 : undefined, q })}
        />
        {error !== undefined && <ErrorBox message={error} />}
        {result && (
          <section aria-label="Hits">
            <p class="muted">{result.hits.length} hits</p>
            {result.hits.map((h) => (
              <div class="hit">
                <div class="muted">
                  {h.kind === "turn" ? (
                    <>
                      <a href={`/ui/turn/${h.lsn}`}>LSN {h.lsn}</a> · {h.role} in{" "}
                      <a href={`${href("/ui/session", { s: h.session ?? "", after: h.lsn - 1, at: h.lsn, as_of: f.as_of })}#t${h.lsn}`}>{h.session}</a>
                      {h.follows !== undefined && (
                        <>
                          {" "}
                          · after the match <a href={`/ui/turn/${h.follows}`}>LSN {h.follows}</a>
                        </>
                      )}
                    </>
                  ) : (
                    <>
                      link LSN {h.lsn} ·{" "}
                      {/^https?:\/\//i.test(h.url ?? "") ? (
                        <a href={h.url} rel="noopener noreferrer">
                          {h.url}
                        </a>
                      ) : (
                        h.url
                      )}
                    </>
                  )}
                </div>
                <pre>
                  <Highlighted text={h.snippet} matched={h.matched} />
                </pre>
              </div>
            ))}
          </section>
        )}
      </Layout>,
    );
  });
}
