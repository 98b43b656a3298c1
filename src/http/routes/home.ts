/**
 * `GET /`: a short page saying what this server is, for someone who opens
 * the URL `zerodb serve` printed. No token, and nothing from any tenant's
 * data: only the version and where the API and docs are. A web viewer can
 * replace this one route later.
 */
import { VERSION } from "../../version.ts";
import type { App } from "../env.ts";

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>zerodb</title></head>
<body>
<h1>zerodb ${VERSION}</h1>
<p>This is a zerodb server: the HTTP API of a local-first memory database for AI agents.</p>
<ul>
<li><code>GET /healthz</code>: is it up (no token needed).</li>
<li><code>/v1/…</code>: the API (turns, sessions, search, facts, forget, objects, links, stats), each call with <code>Authorization: Bearer &lt;token&gt;</code>.
A token belongs to one tenant; create one on the server's machine with <code>zerodb token create --tenant NAME</code>.</li>
<li>The local CLI and MCP server use tenant <code>local</code>; point the CLI here with <code>--url</code> and <code>--token-file</code>.</li>
</ul>
<p>See the README's "HTTP server" section for every route.</p>
</body></html>
`;

/** Registers GET /. */
export function homeRoutes(app: App): void {
  app.get("/", (c) => c.html(PAGE));
}
