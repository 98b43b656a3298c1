/** @jsxImportSource hono/jsx */
/**
 * Forget in three steps (DESIGN.md 13): a selector, its dry-run count with a
 * confirmation, then the result. Both POSTs pass the CSRF check; the
 * selector is validated by the API's own schema (ForgetInput).
 */
import type { Context, Hono } from "hono";
import { toZeroDbError } from "../../../errors.ts";
import { ForgetInput } from "../../../schema/ops.ts";
import { parseInput } from "../../../schema/parse.ts";
import { readForm } from "../form.ts";
import { checkCsrf } from "../guard.ts";
import { Csrf, ErrorBox, Layout } from "../layout.tsx";
import { type ViewerEnv, frame, textParam } from "../page.ts";

/** The selector fields a person can pick, with what each means. */
const KINDS = {
  session: "every turn of this session",
  session_prefix: "every turn of every session whose name starts with",
  turn: "the turn with LSN",
  fact: "every value of the fact key",
  fact_prefix: "every fact whose key starts with",
  object: "every reference to the object (sha256:…)",
  link: "the link with LSN",
  before: "everything older than (ISO 8601 time)",
} as const;
type Kind = keyof typeof KINDS;

function isKind(k: string | null | undefined): k is Kind {
  return k != null && Object.hasOwn(KINDS, k);
}

/** The forget input of a kind and value, validated by ForgetInput. */
function forgetInput(kind: string | null, value: string, dryRun: boolean) {
  const v = kind === "turn" || kind === "link" ? (/^\d+$/.test(value) ? Number(value) : value) : value;
  return parseInput(ForgetInput, { selector: isKind(kind) ? { [kind]: v } : {}, dry_run: dryRun });
}

/** The selector form, optionally filled. */
function SelectorForm(props: { csrf: string; kind?: string; value?: string }) {
  return (
    <form method="post" action="/ui/forget">
      <Csrf token={props.csrf} />
      <input type="hidden" name="step" value="preview" />
      <label>
        Forget{" "}
        <select name="kind">
          {Object.entries(KINDS).map(([k, label]) => (
            <option value={k} selected={k === props.kind}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        <input type="text" name="value" value={props.value ?? ""} size={40} aria-label="value" required />
      </label>
      <button type="submit">Count what would go</button>
    </form>
  );
}

async function post(c: Context<ViewerEnv>): Promise<Response> {
  const form = await readForm(c.req.raw);
  const refused = checkCsrf(form, c);
  if (refused) return refused;
  const kind = form.get("kind");
  const value = form.get("value") ?? "";
  const confirm = form.get("step") === "confirm";
  const csrf = c.var.session.csrf;
  try {
    const input = forgetInput(kind, value, !confirm);
    const result = await c.var.memory.forget(input);
    const what = `${isKind(kind) ? KINDS[kind] : kind} ${value}`;
    if (!confirm) {
      return c.html(
        <Layout {...frame(c, "Forget: confirm")}>
          <h1>Forget: confirm</h1>
          <p>
            This would forget <strong data-count={result.hidden}>{result.hidden}</strong> record(s): {what}.
          </p>
          {result.hidden === 0 ? (
            <p>Nothing matches: nothing to forget.</p>
          ) : (
            <form method="post" action="/ui/forget">
              <Csrf token={csrf} />
              <input type="hidden" name="step" value="confirm" />
              <input type="hidden" name="kind" value={kind ?? ""} />
              <input type="hidden" name="value" value={value} />
              <p>Forgetting hides these records at once and purges their content; it cannot be undone.</p>
              <button type="submit" class="danger">
                Forget {result.hidden} record(s)
              </button>{" "}
              <a href="/ui/forget">Cancel</a>
            </form>
          )}
        </Layout>,
      );
    }
    return c.html(
      <Layout {...frame(c, "Forgotten")}>
        <h1>Forgotten</h1>
        <p role="status">
          Forgot <strong data-count={result.hidden}>{result.hidden}</strong> record(s): {what}
          {result.lsn !== null ? ` (forget recorded at LSN ${result.lsn})` : ""}.
        </p>
        <p>
          <a href="/ui">Back to the sessions</a>
        </p>
      </Layout>,
    );
  } catch (err) {
    const e = toZeroDbError(err);
    if (e.code !== "invalid_input") throw e;
    return c.html(
      <Layout {...frame(c, "Forget")}>
        <h1>Forget</h1>
        <ErrorBox message={e.message} />
        <SelectorForm csrf={csrf} kind={kind ?? undefined} value={value} />
      </Layout>,
      400,
    );
  }
}

/** Registers /ui/forget. */
export function forgetPages(ui: Hono<ViewerEnv>): void {
  ui.get("/forget", (c) =>
    c.html(
      <Layout {...frame(c, "Forget")}>
        <h1>Forget</h1>
        <p>Pick what to forget; the next page counts what it would remove before anything is removed.</p>
        <SelectorForm csrf={c.var.session.csrf} kind={textParam(c, "kind")} value={textParam(c, "value")} />
      </Layout>,
    ),
  );
  ui.post("/forget", post);
}
