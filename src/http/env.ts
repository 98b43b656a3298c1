/** The types the HTTP layer shares: the app's context variables and its options. */
import type { Hono } from "hono";
import type { Memory, Store } from "../store/types.ts";
import type { Viewer } from "./viewer/state.ts";

/** Hono's environment for zerodb: the authenticated tenant's Memory rides on the context. */
export interface HttpEnv {
  Variables: { memory: Memory };
}

/** The zerodb Hono app. */
export type App = Hono<HttpEnv>;

/** Registers a group of routes on the app (one file per group, under routes/). */
export type RouteGroup = (app: App) => void;

/** What createApp needs: the store, and where to write log lines (stderr in `serve`). */
export interface AppOptions {
  store: Store;
  /** One line per request and one per internal error; never bodies, never tokens. */
  log?: (line: string) => void;
  /** The viewer's sessions and login links (DESIGN.md 13); one of its own when absent. */
  viewer?: Viewer;
}
