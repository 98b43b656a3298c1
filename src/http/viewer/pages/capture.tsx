/** @jsxImportSource hono/jsx */
/**
 * Capture status (DESIGN.md 13, 7.2). Under `zerodb ui` the viewer's user
 * (the one-time link's session) owns this machine's transcripts: a line per
 * harness (Claude Code, Codex, Gemini CLI, opencode) with what it has captured, what
 * is behind and what needs a look, then each transcript with its zerodb
 * session, lines captured and lines behind, as `zerodb capture status`
 * shows them. A session of a token (every one under `serve`) sees only the
 * tenant's own capture cursors: a cursor's path was written by the tenant
 * and is never read from this machine's disk.
 */
import type { Hono } from "hono";
import type { Format } from "../../../capture/sources.ts";
import type { StatusRow } from "../../../capture/sync.ts";
import type { Store } from "../../../store/types.ts";
import { Layout } from "../layout.tsx";
import { type ViewerEnv, frame, href } from "../page.ts";

function SessionLink(props: { name: string | null }) {
  return props.name === null ? <span class="muted">(not captured yet)</span> : <a href={href("/ui/session", { s: props.name })}>{props.name}</a>;
}

/** Every harness capture reads, in the order the page lists them (a Record: a new format must be named here). */
const LABELS: Record<Format, string> = { "claude-code": "Claude Code", codex: "Codex", gemini: "Gemini CLI", opencode: "opencode" };
const HARNESSES = Object.entries(LABELS) as [Format, string][];

/** What needs a look in one harness's rows, or "" when nothing does. */
function warnings(rows: StatusRow[]): string {
  const out: string[] = [];
  const behind = rows.filter((r) => r.lines_behind > 0);
  if (behind.length > 0) out.push(`${behind.length} transcript(s) behind: run zerodb capture sync`);
  const missing = rows.filter((r) => r.missing).length;
  if (missing > 0) out.push(`${missing} transcript(s) deleted by the harness (what was captured stays)`);
  const never = rows.filter((r) => r.capture_session === null).length;
  if (never > 0) out.push(`${never} transcript(s) not captured yet`);
  return out.join("; ");
}

/** One line per harness: transcripts, lines captured and behind, and warnings. */
function HarnessSummary(props: { rows: StatusRow[] }) {
  return (
    <table aria-labelledby="per-harness">
      <thead>
        <tr>
          <th scope="col">harness</th>
          <th scope="col" class="num">
            transcripts
          </th>
          <th scope="col" class="num">
            lines captured
          </th>
          <th scope="col" class="num">
            lines behind
          </th>
          <th scope="col">status</th>
        </tr>
      </thead>
      <tbody>
        {HARNESSES.map(([format, label]) => {
          const rows = props.rows.filter((r) => r.harness === format);
          const warn = warnings(rows);
          return (
            <tr data-harness={format}>
              <th scope="row">{label}</th>
              <td class="num">{rows.length}</td>
              <td class="num">{rows.reduce((n, r) => n + r.lines_captured, 0)}</td>
              <td class="num">{rows.reduce((n, r) => n + r.lines_behind, 0)}</td>
              <td class={warn === "" ? "" : "status-warn"}>{rows.length === 0 ? "no transcripts on this machine" : warn === "" ? "all captured" : warn}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Registers /ui/capture. */
export function capturePages(ui: Hono<ViewerEnv>, store: Store): void {
  ui.get("/capture", async (c) => {
    const tenant = c.var.session.tenant;
    // Only the one-time link of `zerodb ui` is this machine's user; a token's session is a tenant's, even under `ui`.
    const local = c.var.session.token === undefined ? c.var.viewer.localCapture : undefined;
    if (local) {
      const rows = await local(tenant);
      const behind = rows.reduce((n, r) => n + r.lines_behind, 0);
      // This machine's sync with a team server (DESIGN.md 16), from the store and its journal: never the network.
      const { syncStatus } = await import("../../../sync/status.ts");
      const sync = await syncStatus(store, tenant);
      return c.html(
        <Layout {...frame(c, "Capture")}>
          <h1>Capture status (this machine's harnesses)</h1>
          <p>
            {rows.length === 0
              ? `No ${HARNESSES.map(([, label]) => label).join(", ")} transcripts found.`
              : behind > 0
                ? `${behind} line(s) behind: run zerodb capture sync.`
                : "All captured."}
          </p>
          {sync && (
            <p data-sync>
              Sync: {sync.last_sync ? `last synced ${sync.last_sync}` : "never synced to the end (a sync was interrupted)"} with {sync.url} (tenant{" "}
              {sync.tenant}); {sync.waiting} record(s) waiting to be pushed{sync.waiting > 0 ? ": run zerodb sync." : "."}
            </p>
          )}
          <h2 id="per-harness">Per harness</h2>
          <HarnessSummary rows={rows} />
          <p class="muted">
            Whether each harness's capture hook is installed: the <a href="/ui/doctor">doctor</a> page.
          </p>
          <h2>Transcripts</h2>
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
