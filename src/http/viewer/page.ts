/** Shared helpers of the viewer's page routes. */
import type { Context } from "hono";
import { invalid } from "../../errors.ts";
import { wholeNumber } from "../../util/whole-number.ts";
import type { ViewerEnv } from "./guard.ts";
import type { Frame } from "./layout.tsx";

/** The viewer sub-app. */
export type { ViewerEnv };

/** The frame of a page for the request's session. */
export function frame(c: Context<ViewerEnv>, title: string): Frame {
  return { title, tenant: c.var.session.tenant, csrf: c.var.session.csrf };
}

/** A query parameter as a whole number, or undefined when absent or empty. */
export function intParam(c: Context<ViewerEnv>, name: string): number | undefined {
  const v = c.req.query(name);
  return v === undefined || v === "" ? undefined : wholeNumber(name, v);
}

/** A query parameter, or undefined when absent or empty. */
export function textParam(c: Context<ViewerEnv>, name: string): string | undefined {
  const v = c.req.query(name);
  return v === undefined || v === "" ? undefined : v;
}

/** A required query parameter. */
export function required(c: Context<ViewerEnv>, name: string): string {
  const v = textParam(c, name);
  if (v === undefined) throw invalid(name, "required");
  return v;
}

/** A URL with query parameters, leaving out empty ones. */
export function href(path: string, params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s === "" ? path : `${path}?${s}`;
}
