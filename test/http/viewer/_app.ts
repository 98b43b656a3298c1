/** An in-process viewer over a temp SQLite store, and a tiny browser: a cookie jar, Host and Origin as a browser sends them. */
import { join } from "node:path";
import { createApp } from "../../../src/http/app.ts";
import { createViewer } from "../../../src/http/viewer/state.ts";
import { openSqliteStore } from "../../../src/store/sqlite/store.ts";
import { tempDir } from "../../helpers.ts";

/** The origin the in-process requests claim. */
export const ORIGIN = "http://127.0.0.1:7077";

/** A store, its app and viewer, disposed together. */
export function viewerApp() {
  const dir = tempDir();
  const store = openSqliteStore(join(dir.path, "data"));
  const viewer = createViewer({ store });
  const app = createApp({ store, viewer });
  return {
    store,
    viewer,
    app,
    [Symbol.dispose]() {
      store.close();
      dir[Symbol.dispose]();
    },
  };
}

/** A browser of one app: keeps its session cookie, sends Host and (on POST) Origin. */
export function browser(app: ReturnType<typeof createApp>) {
  let cookie = "";
  const request = async (path: string, init: RequestInit & { form?: Record<string, string> } = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has("host")) headers.set("host", new URL(ORIGIN).host);
    if (cookie !== "") headers.set("cookie", cookie);
    let body = init.body;
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded");
      if (!headers.has("origin")) headers.set("origin", ORIGIN);
      body = new URLSearchParams(init.form).toString();
    }
    const res = await app.request(`${ORIGIN}${path}`, { ...init, headers, body, method: init.method ?? (init.form ? "POST" : "GET") });
    const set = res.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0]!.endsWith("=") ? "" : set.split(";")[0]!;
    return res;
  };
  return {
    request,
    cookie: () => cookie,
    /** Logs in with a token; returns the CSRF token of the session's pages. */
    async login(token: string): Promise<string> {
      const res = await request("/ui/login", { form: { token } });
      if (res.status !== 303) throw new Error(`login answered ${res.status}`);
      return csrfOf(await (await request("/ui/forget")).text());
    },
  };
}

/** The CSRF token in a page's forms. */
export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error("no CSRF field in the page");
  return m[1]!;
}

/** One conversation in `proj/alpha`, its last reply holding markup that must show as text. */

export async function seed(memory: {
  append: (i: { session: string; entries: { role: "user" | "assistant" | "tool"; content: string; meta?: Record<string, unknown> }[] }) => Promise<unknown>;
}) {
  await memory.append({
    session: "proj/alpha",
    entries: [
      { role: "user", content: "how do we deploy the rocket?" },
      { role: "assistant", content: "running the deploy script", meta: { tools: ["Bash"] } },
      { role: "tool", content: "deploy ok" },
      { role: "assistant", content: 'done <script>window.pwned=1</script> "><img src=x onerror=alert(1)>' },
    ],
  });
}
