/** `GET /healthz`: liveness and version, no token needed (DESIGN.md 6.1). */
import { VERSION } from "../../version.ts";
import type { App } from "../env.ts";

/** Registers /healthz. */
export function healthRoutes(app: App): void {
  app.get("/healthz", (c) => c.json({ ok: true, version: VERSION }));
}
