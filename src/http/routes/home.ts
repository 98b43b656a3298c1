/**
 * `GET /`: the viewer's login page (DESIGN.md 13), saying what this server
 * is. No tenant's data: a browser with a session is sent on to /ui.
 */
import type { App } from "../env.ts";
import { type ViewerRoutesOptions, viewerHome, viewerRoutes } from "../viewer/routes.tsx";

/** Registers GET / and the viewer under /ui. */
export function homeRoutes(app: App, opts: ViewerRoutesOptions): void {
  app.route("/", viewerHome(opts));
  app.route("/ui", viewerRoutes(opts));
}
