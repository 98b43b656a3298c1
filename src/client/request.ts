/**
 * The HTTP client's one way to talk to a zerodb server: bearer token, JSON
 * in and out, and the server's `{"error": {code, message, field?}}` turned
 * back into the same ZeroDbError a local store would have thrown (D3).
 */
import { CODES, type ErrorCode, ZeroDbError } from "../errors.ts";

/** Where the server is and how to authenticate. */
export interface ServerOptions {
  /** The server's base URL, http or https. */
  url: string;
  token: string;
  /** The fetch to use (tests pass an in-process one). */
  fetch?: (req: Request) => Promise<Response>;
}

/** A query parameter's value: an array is the parameter repeated, in order (`?q=a&q=b`). */
export type QueryValue = string | number | boolean | readonly (string | number | boolean)[] | undefined;

/** One request: a path under the base URL, query parameters, and a JSON or raw body. */
export interface Call {
  method: "GET" | "HEAD" | "POST" | "PUT";
  path: string;
  query?: Record<string, QueryValue>;
  json?: unknown;
  body?: RequestInit["body"];
  headers?: Record<string, string>;
}

/** Sends requests to one server. */
export interface Requester {
  /** The response of a call that succeeded (2xx); a ZeroDbError otherwise. */
  send(call: Call): Promise<Response>;
  /** A call whose answer is JSON. */
  json<T>(call: Call): Promise<T>;
}

/** Checks a server URL: http or https, no credentials in it. */
export function serverUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ZeroDbError("invalid_input", `url: ${JSON.stringify(url)} is not a URL such as http://127.0.0.1:7077`, { field: "url" });
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new ZeroDbError("invalid_input", "url: must be http or https", { field: "url" });
  if (u.username || u.password) throw new ZeroDbError("invalid_input", "url: must not hold credentials; the token authenticates", { field: "url" });
  return u;
}

/** The ZeroDbError a failed response stands for. */
export async function responseError(res: Response, base: string): Promise<ZeroDbError> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const e = (body as { error?: { code?: unknown; message?: unknown; field?: unknown } } | undefined)?.error;
  if (e && typeof e.code === "string" && Object.hasOwn(CODES, e.code) && typeof e.message === "string") {
    return new ZeroDbError(e.code as ErrorCode, e.message, typeof e.field === "string" ? { field: e.field } : {});
  }
  // Not a zerodb answer (a proxy, or a HEAD with no body): keep what the status says.
  const byStatus = (Object.entries(CODES) as [ErrorCode, { status: number }][]).find(([, v]) => v.status === res.status)?.[0];
  const code: ErrorCode = byStatus && byStatus !== "internal" && byStatus !== "corrupt" && byStatus !== "incompatible" ? byStatus : "unavailable";
  return new ZeroDbError(code, `the server at ${base} answered HTTP ${res.status}`);
}

/** A requester for one server. */
export function createRequester(opts: ServerOptions): Requester {
  const base = serverUrl(opts.url);
  const origin = base.href.replace(/\/+$/, "");
  const doFetch = opts.fetch ?? ((req: Request) => fetch(req));
  const send = async (call: Call): Promise<Response> => {
    const url = new URL(origin + call.path);
    for (const [k, v] of Object.entries(call.query ?? {})) {
      if (Array.isArray(v)) for (const one of v) url.searchParams.append(k, String(one));
      else if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${opts.token}`, ...call.headers };
    let body = call.body;
    if (call.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(call.json);
    }
    // Redirects are not followed: the token must not travel to another address.
    const req = new Request(url.href, { method: call.method, headers, body, redirect: "manual" });
    let res: Response;
    try {
      res = await doFetch(req);
    } catch (err) {
      throw new ZeroDbError("unavailable", `cannot reach the zerodb server at ${origin}: is \`zerodb serve\` running there?`, { cause: err });
    }
    if (res.status >= 200 && res.status < 300) return res;
    throw await responseError(res, origin);
  };
  return {
    send,
    json: async <T>(call: Call) => {
      const res = await send(call);
      try {
        return (await res.json()) as T;
      } catch (err) {
        throw new ZeroDbError("unavailable", `the server at ${origin} sent an answer that is not JSON`, { cause: err });
      }
    },
  };
}
