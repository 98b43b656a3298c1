/** @jsxImportSource hono/jsx */
/**
 * Capture status (DESIGN.md 13, 7.2). Under `zerodb ui` the viewer's user
 * owns this machine's transcripts: each one with its zerodb session, lines
 * captured and lines behind, as `zerodb capture status` shows them. A
 * server of tokens shows only the tenant's own capture cursors: a cursor's
 * path was written by the tenant and is never read from this machine's disk.
 */
import type { Hono } from "hono";
import type { Store } from "../../../store/types.ts";
import { Layout } from "../layout.tsx";
import { type ViewerEnv, frame, href } from "../page.ts";

function SessionLink(props: { name: string | null }) {
  return props.name === null ? <span class="muted">(not captured yet)</span> : <a href={href("/ui/session", { s: props.name })}>{props.name}</a>;
}

/** Registers /ui/capture. */
export function capturePages(ui: Hono<ViewerEnv>, store: Store): void {
  ui.get("/capture", async (c) => {
    const tenant = c.var.session.tenant;
    const local = c.var.viewer.localCapture;
    if (local) {
      const rows = await local(tenant);
      const behind = rows.reduce((n, r) => n + r.lines_behind, 0);
      return c.html(
        <Layout {...frame(c, "Capture")}>
          <h1>Capture status (this machine's harnesses)</h1>
          <p>
            {rows.length === 0
              ? "No Claude Code, Codex or Gemini CLI transcripts found."
              : behind > 0
                ? `${behind} line(s) behind: run zerodb capture sync.`
                : "All captured."}
          </p>
          <table>
            <thead>
              <tr>
                <th>zerodb session</th>
                <th>harness</th>
                <th>harness session</th>
                <th class="num">captured</th>
                <th class="num">behind</th>
                <th>transcript</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr>
                  <td>
                    <SessionLink name={r.capture_session} />
                  </td>
                  <td>{r.harness}</td>
                  <td>{r.source}</td>
                  <td class="num">{r.lines_captured}</td>
                  <td class="num">{r.lines_behind}</td>
                  <td>
                    {r.transcript}
                    {r.missing && <span class="muted"> (deleted)</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Layout>,
      );
    }
    const cursors = (await store.capture(tenant).cursors()).sort((a, b) => b.updated - a.updated);
    return c.html(
      <Layout {...frame(c, "Capture")}>
        <h1>Capture cursors</h1>
        <p class="muted">
          What capture has taken from each transcript into this tenant, latest first. Lines behind are known only on the machine that holds the transcripts
          (zerodb capture status there).
        </p>
        {cursors.length === 0 && <p>Nothing captured into this tenant yet.</p>}
        <table>
          <tbody>
            {cursors.map((r) => (
              <tr>
                <td>
                  <SessionLink name={r.session} />
                </td>
                <td>{r.source}</td>
                <td class="num">{r.position} lines</td>
                <td class="num">{new Date(r.updated).toISOString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Layout>,
    );
  });
}
