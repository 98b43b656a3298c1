/** @jsxImportSource hono/jsx */
/**
 * Links (DESIGN.md 13): the tenant's live links newest first, paged by LSN,
 * filtered by a URL prefix. A link is shown as the text it was saved with;
 * the viewer never fetches it (D1), and following it sends no referrer.
 */
import type { Hono } from "hono";
import { Layout } from "../layout.tsx";
import { type ViewerEnv, frame, href, intParam, textParam } from "../page.ts";

/** Links on one page. */
const LINK_PAGE = 100;

/** Registers /ui/links. */
export function linkPages(ui: Hono<ViewerEnv>): void {
  ui.get("/links", async (c) => {
    const prefix = textParam(c, "prefix");
    const before = intParam(c, "before");
    const page = await c.var.memory.linkList({ limit: LINK_PAGE, ...(prefix !== undefined ? { prefix } : {}), ...(before !== undefined ? { before } : {}) });
    return c.html(
      <Layout {...frame(c, "Links")}>
        <h1>Links</h1>
        <p class="muted">Saved links, newest first. zerodb never fetches them.</p>
        <form method="get" action="/ui/links">
          <label>
            URL prefix <input type="text" name="prefix" value={prefix ?? ""} placeholder="https://example.com/" />
          </label>
          <button type="submit">Filter</button>
        </form>
        {page.links.length === 0 && <p>No links{before !== undefined ? " before this one" : prefix !== undefined ? " with this prefix" : ""}.</p>}
        {page.links.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">link</th>
                <th scope="col">note</th>
                <th scope="col" class="num">
                  saved
                </th>
              </tr>
            </thead>
            <tbody>
              {page.links.map((l) => (
                <tr data-lsn={l.lsn}>
                  <td>
                    <div>{l.title ?? <span class="muted">(no title)</span>}</div>
                    <a href={l.url} rel="noreferrer noopener nofollow" referrerpolicy="no-referrer">
                      {l.url}
                    </a>
                  </td>
                  <td>{l.note ?? ""}</td>
                  <td class="num">
                    {l.ts.slice(0, 16).replace("T", " ")} · LSN {l.lsn} · <a href={href("/ui/forget", { kind: "link", value: l.lsn })}>forget…</a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p class="pager">{page.next !== null && <a href={href("/ui/links", { prefix, before: page.next })}>Older links</a>}</p>
      </Layout>,
    );
  });
}
