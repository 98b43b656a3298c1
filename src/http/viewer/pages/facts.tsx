/** @jsxImportSource hono/jsx */
/** Facts by key, paged, each value as JSON. */
import type { Hono } from "hono";
import { TURN_PREVIEW_CHARS } from "../chat.tsx";
import { Layout } from "../layout.tsx";
import { type ViewerEnv, frame, href, required, textParam } from "../page.ts";

/** Facts on one page. */
const FACT_PAGE = 200;

/** A fact's value as JSON, cut on the list (a value may be 1 MiB) with a link to all of it. */
function Value(props: { value: unknown; fact?: string }) {
  const json = JSON.stringify(props.value, null, 2);
  const cut = props.fact !== undefined && json.length > TURN_PREVIEW_CHARS;
  return (
    <>
      <pre>{cut ? json.slice(0, TURN_PREVIEW_CHARS).toWellFormed() : json}</pre>
      {cut && (
        <p class="muted">
          … <a href={href("/ui/fact", { key: props.fact })}>the whole value</a>
        </p>
      )}
    </>
  );
}

/** Registers /ui/facts and /ui/fact. */
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
                  <Value value={f.value} fact={f.key} />
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
  ui.get("/fact", async (c) => {
    const f = await c.var.memory.factGet({ key: required(c, "key") });
    return c.html(
      <Layout {...frame(c, f.key)}>
        <h1>{f.key}</h1>
        <p class="muted">
          LSN {f.lsn} · <a href={href("/ui/forget", { kind: "fact", value: f.key })}>forget…</a>
        </p>
        <Value value={f.value} />
      </Layout>,
    );
  });
}
