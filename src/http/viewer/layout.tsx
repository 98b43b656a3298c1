/** @jsxImportSource hono/jsx */
/** The page frame every viewer page shares: head, navigation, logout; Hono's JSX escapes every text and attribute. */
import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import { VERSION } from "../../version.ts";

/** What a page needs from its session to draw the frame. */
export interface Frame {
  title: string;
  /** Absent on the login page: no navigation, no logout. */
  tenant?: string;
  csrf?: string;
}

/** A hidden field carrying the session's CSRF token. */
export function Csrf(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

/** The whole document. */
export function Layout(props: Frame & { children?: Child }) {
  return (
    <>
      {raw("<!doctype html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="same-origin" />
          <title>{`${props.title} · zerodb`}</title>
          <link rel="stylesheet" href="/ui/app.css" />
        </head>
        <body>
          <header>
            <span class="brand">zerodb</span>
            {props.tenant !== undefined && (
              <>
                <nav aria-label="Viewer">
                  <a href="/ui">Sessions</a>
                  <a href="/ui/search">Search</a>
                  <a href="/ui/facts">Facts</a>
                  <a href="/ui/links">Links</a>
                  <a href="/ui/objects">Objects</a>
                  <a href="/ui/stats">Stats</a>
                  <a href="/ui/capture">Capture</a>
                  <a href="/ui/doctor">Doctor</a>
                  <a href="/ui/forget">Forget</a>
                </nav>
                <span class="muted">tenant {props.tenant}</span>
                <form class="inline" method="post" action="/ui/logout">
                  <Csrf token={props.csrf ?? ""} />
                  <button type="submit">Log out</button>
                </form>
              </>
            )}
          </header>
          <main>{props.children}</main>
          <footer class="muted">zerodb {VERSION}</footer>
        </body>
      </html>
    </>
  );
}

/** An error shown inside a page. */
export function ErrorBox(props: { message: string }) {
  return (
    <p class="error" role="alert">
      {props.message}
    </p>
  );
}

/** Bytes as B, KiB, MiB. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
