/** @jsxImportSource hono/jsx */
/**
 * Facts by key, paged, each value as JSON; a fact's page has its current
 * value and every earlier value still on the tape (fact_history), newest
 * first, each with a stable URL of its own.
 */
import type { Context, Hono } from "hono";
import { notFound } from "../../../errors.ts";
import { TURN_PREVIEW_CHARS } from "../chat.tsx";
import { AsOfField, AsOfNotice } from "../as-of.tsx";
import { Layout } from "../layout.tsx";
import { type ViewerEnv, frame, href, intParam, required, textParam } from "../page.ts";

/** Facts on one page. */
const FACT_PAGE = 200;
/** Past values on one page of a fact's history (each cut to TURN_PREVIEW_CHARS). */
const HISTORY_PAGE = 50;

/** A fact's value as JSON, cut on a list (a value may be 1 MiB) with a link to all of it (`lsn`: a past value's). */
function Value(props: { value: unknown; fact?: string; lsn?: number }) {
  const json = JSON.stringify(props.value, null, 2);
  const cut = props.fact !== undefined && json.length > TURN_PREVIEW_CHARS;
  return (
    <>
      <pre>{cut ? json.slice(0, TURN_PREVIEW_CHARS).toWellFormed() : json}</pre>
      {cut && (
        <p class="muted">
          … <a href={href("/ui/fact", { key: props.fact, lsn: props.lsn })}>the whole value</a>
        </p>
      )}
    </>
  );
}

/** When a value was set, to the minute (UTC). */
function when(ts: string): string {
  return `${ts.slice(0, 16).replace("T", " ")} UTC`;
}

/** Registers /ui/facts and /ui/fact. */
export function factPages(ui: Hono<ViewerEnv>): void {
  ui.get("/facts", async (c) => {
    const prefix = textParam(c, "prefix");
    const after = textParam(c, "after");
    const asOf = textParam(c, "as_of");
    const page = await c.var.memory.factList({
      limit: FACT_PAGE,
      ...(prefix !== undefined ? { prefix } : {}),
      ...(after !== undefined ? { after } : {}),
      ...(asOf !== undefined ? { as_of: asOf } : {}),
    });
    return c.html(
      <Layout {...frame(c, "Facts")}>
        <h1>Facts</h1>
        <form method="get" action="/ui/facts">
          <label>
            Key prefix <input type="text" name="prefix" value={prefix ?? ""} />
          </label>
          <AsOfField value={asOf} />
          <button type="submit">Filter</button>
        </form>
        <AsOfNotice value={asOf} now={href("/ui/facts", { prefix })} />
        {page.facts.length === 0 && <p>No facts{after !== undefined ? " after this key" : ""}.</p>}
        <table>
          <tbody>
            {page.facts.map((f) => (
              <tr>
                <th scope="row">
                  <a href={href("/ui/fact", asOf === undefined ? { key: f.key } : { key: f.key, lsn: f.lsn })}>{f.key}</a>
                </th>
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
        <p class="pager">{page.next !== null && <a href={href("/ui/facts", { prefix, after: page.next, as_of: asOf })}>Next facts</a>}</p>
      </Layout>,
    );
  });
  ui.get("/fact", async (c) => {
    const key = required(c, "key");
    const lsn = intParam(c, "lsn");
    if (lsn !== undefined) return pastValue(c, key, lsn);
    const f = await c.var.memory.factGet({ key });
    const before = intParam(c, "before");
    // The first page starts below the current value, which is shown whole above it.
    const history = await c.var.memory.factHistory({ key, limit: HISTORY_PAGE, before: before ?? f.lsn });
    return c.html(
      <Layout {...frame(c, f.key)}>
        <h1>{f.key}</h1>
        <p class="muted">
          LSN {f.lsn} · <a href={href("/ui/forget", { kind: "fact", value: f.key })}>forget every value…</a>
        </p>
        <Value value={f.value} />
        <h2 id="history">Earlier values</h2>
        {history.values.length === 0 ? (
          <p>{before === undefined ? "None: this is the only value the tape holds." : "No earlier values."}</p>
        ) : (
          <table aria-labelledby="history">
            <thead>
              <tr>
                <th scope="col">set</th>
                <th scope="col">value</th>
              </tr>
            </thead>
            <tbody>
              {history.values.map((v) => (
                <tr data-lsn={v.lsn}>
                  <td class="num">
                    <a href={href("/ui/fact", { key: f.key, lsn: v.lsn })}>LSN {v.lsn}</a>
                    <div class="muted">{when(v.ts)}</div>
                  </td>
                  <td>
                    <Value value={v.value} fact={f.key} lsn={v.lsn} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p class="pager">{history.next !== null && <a href={href("/ui/fact", { key: f.key, before: history.next })}>Older values</a>}</p>
      </Layout>,
    );
  });
}

/** One value a fact had, whole, by the LSN that set it; not_found when the key never had it (or it was forgotten). */
async function pastValue(c: Context<ViewerEnv>, key: string, lsn: number) {
  const { values } = await c.var.memory.factHistory({ key, before: lsn + 1, limit: 1 });
  const v = values[0];
  if (v === undefined || v.lsn !== lsn) throw notFound(`no value of fact ${JSON.stringify(key)} at LSN ${lsn}`, "lsn");
  return c.html(
    <Layout {...frame(c, `${key} at LSN ${lsn}`)}>
      <h1>{key}</h1>
      <p class="muted">
        The value set at LSN {v.lsn} ({when(v.ts)}) · <a href={href("/ui/fact", { key })}>the current value and its history</a>
      </p>
      <Value value={v.value} />
    </Layout>,
  );
}
