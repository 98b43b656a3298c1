/** Facts by key, paged, each value as JSON. */
import type { Hono } from "hono";
import { Layout } from "../layout.tsx";
import { type ViewerEnv, frame, href, textParam } from "../page.ts";

/** Facts on one page. */
const FACT_PAGE = 200;

/** Registers /ui/facts. */
export function factPages(ui: Hono<ViewerEnv>): void {
  ui.get("/facts", async (c) => {
    const prefix = textParam(c, "prefix");
    const after = textParam(c, "after");
    const page = await c.var.memory.factList({ limit: FACT_PAGE, ...(prefix !== undefined ? { prefix } : {}), ...(after !== undefined ? { after } : {}) });
    return c.html(
      <Layout {...frame(c, "Facts")}>
        <h1>Facts</h1>
        <form method="get" action="/ui/facts">
          <label>
            Key prefix <input type="text" name="prefix" value={prefix ?? ""} />
          </label>
          <button type="submit">Filter</button>
        </form>
        {page.facts.length === 0 && <p>No facts{after !== undefined ? " after this key" : ""}.</p>}
        <table>
          <tbody>
            {page.facts.map((f) => (
              <tr>
                <th scope="row">{f.key}</th>
                <td>
                  <pre>{JSON.stringify(f.value, null, 2)}</pre>
                </td>
                <td class="num">
                  LSN {f.lsn} · <a href={href("/ui/forget", { kind: "fact", value: f.key })}>forget…</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p class="pager">{page.next !== null && <a href={href("/ui/facts", { prefix, after: page.next })}>Next facts</a>}</p>
      </Layout>,
    );
  });
}
