/** @jsxImportSource hono/jsx */
/**
 * Doctor (DESIGN.md 13, 7.1): under `zerodb ui`, the checks `zerodb doctor`
 * makes, run on request. They read the home, its files and the harness
 * configs, and check the store in place; the write round trips run in a
 * scratch store that is deleted afterwards, so looking writes nothing to
 * the store. A session made from a token (any under `serve`) is a tenant's,
 * not this machine's user's: it is shown none of them, and told why.
 */
import type { Hono } from "hono";
import type { Check } from "../../../doctor/types.ts";
import { Layout } from "../layout.tsx";
import { type ViewerEnv, frame } from "../page.ts";

const MARK = { pass: "ok", warn: "warning", fail: "FAILED" } as const;

function CheckRow(props: { check: Check }) {
  const c = props.check;
  return (
    <tr data-check={c.name} data-status={c.status}>
      <th scope="row">{c.name}</th>
      <td class={`status status-${c.status}`}>{MARK[c.status]}</td>
      <td>
        {c.detail}
        {c.fix !== undefined && (
          <div>
            <span class="muted">fix: </span>
            <code>{c.fix}</code>
          </div>
        )}
      </td>
    </tr>
  );
}

/** Registers /ui/doctor. */
export function doctorPages(ui: Hono<ViewerEnv>): void {
  ui.get("/doctor", async (c) => {
    // Only the one-time link of `zerodb ui` is this machine's user; a token's session is a tenant's, even under `ui`.
    const run = c.var.session.token === undefined ? c.var.viewer.localDoctor : undefined;
    if (!run) {
      return c.html(
        <Layout {...frame(c, "Doctor")}>
          <h1>Doctor</h1>
          <p>
            The doctor's checks are not shown here. They look at the server machine's zerodb home, its file permissions, its agent harness configs and the whole
            store file: that is the operator's machine, not this tenant's, and what they say (paths, other harnesses, the store's health) is not this tenant's
            to read. The operator runs <code>zerodb doctor</code> on the server.
          </p>
          <p>
            What concerns this tenant: the server answered this page, the session's token is valid, and this tenant's capture cursors are on the{" "}
            <a href="/ui/capture">capture page</a>.
          </p>
        </Layout>,
      );
    }
    if (c.req.query("run") === undefined) {
      return c.html(
        <Layout {...frame(c, "Doctor")}>
          <h1>Doctor</h1>
          <p>
            The checks of <code>zerodb doctor</code> for this machine: the home and its files, the store, a write round trip in a scratch store (deleted
            afterwards: nothing is written to your store), the MCP server, the harness registrations, capture hooks and the server. They take a few seconds.
          </p>
          <form method="get" action="/ui/doctor">
            <input type="hidden" name="run" value="1" />
            <button type="submit">Run the checks</button>
          </form>
        </Layout>,
      );
    }
    const report = await run();
    const failed = report.checks.filter((x) => x.status === "fail").length;
    const warned = report.checks.filter((x) => x.status === "warn").length;
    return c.html(
      <Layout {...frame(c, "Doctor")}>
        <h1>Doctor</h1>
        <p role="status" data-ok={String(report.ok)}>
          {report.ok ? `All checks passed${warned > 0 ? ` (${warned} warning${warned > 1 ? "s" : ""})` : ""}.` : `${failed} check(s) failed.`}
        </p>
        <table class="checks">
          <thead>
            <tr>
              <th scope="col">check</th>
              <th scope="col">result</th>
              <th scope="col">detail</th>
            </tr>
          </thead>
          <tbody>
            {report.checks.map((x) => (
              <CheckRow check={x} />
            ))}
          </tbody>
        </table>
        <form method="get" action="/ui/doctor">
          <input type="hidden" name="run" value="1" />
          <button type="submit">Run again</button>
        </form>
      </Layout>,
    );
  });
}
