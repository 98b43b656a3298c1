/**
 * The Memory interface over HTTP (DESIGN.md 6.1): what the CLI, MCP and
 * capture use in remote mode. Inputs are validated here with the same zod
 * schemas first, so a bad input fails the same way, without a round trip,
 * and the server validates again (D3).
 */
import { ZeroDbError } from "../errors.ts";
import * as In from "../schema/ops.ts";
import { parseInput } from "../schema/parse.ts";
import type * as Out from "../schema/results.ts";
import type { Memory } from "../store/types.ts";
import { objectMethods } from "./objects.ts";
import { type QueryValue, type Requester, type ServerOptions, createRequester, serverUrl } from "./request.ts";

/** The path of a fact (or of its history): each segment percent-encoded, '/' kept (the route takes the rest of the path). */
export function factPath(key: string, base = "/v1/facts/"): string {
  return `${base}${key.split("/").map(encodeURIComponent).join("/")}`;
}

/** The tenant a token acts in, asked of the server. */
export async function whoami(requester: Requester): Promise<string> {
  return (await requester.json<{ tenant: string }>({ method: "GET", path: "/v1/whoami" })).tenant;
}

/** A Memory for a tenant whose token `requester` holds. */
export function httpMemory(requester: Requester, tenant: string): Memory {
  const get = <T>(path: string, query: Record<string, QueryValue> = {}) => requester.json<T>({ method: "GET", path, query });
  return {
    tenant,
    append: async (i) => requester.json<Out.AppendResult>({ method: "POST", path: "/v1/turns", json: parseInput(In.AppendInput, i) }),
    read: async (i) => get<Out.ReadResult>("/v1/turns", parseInput(In.ReadInput, i)),
    sessions: async (i) => get<Out.SessionsResult>("/v1/sessions", parseInput(In.SessionsInput, i ?? {})),
    search: async (i) => {
      // Several phrasings travel as `q` repeated: the server takes the first as query, the rest as queries.
      const { query, queries, ...rest } = parseInput(In.SearchInput, i);
      return get<Out.SearchResult>("/v1/search", { q: [query, ...(queries ?? [])], ...rest });
    },
    factSet: async (i) => {
      const { key, ...body } = parseInput(In.FactSetInput, i);
      return requester.json<Out.WriteResult>({ method: "PUT", path: factPath(key), json: body });
    },
    factGet: async (i) => {
      const { key, ...query } = parseInput(In.FactGetInput, i);
      return get<Out.Fact>(factPath(key), query);
    },
    factList: async (i) => get<Out.FactListResult>("/v1/facts", parseInput(In.FactListInput, i ?? {})),
    factHistory: async (i) => {
      const { key, ...query } = parseInput(In.FactHistoryInput, i);
      return get<Out.FactHistoryResult>(factPath(key, "/v1/fact-history/"), query);
    },
    linkList: async (i) => get<Out.LinkListResult>("/v1/links", parseInput(In.LinkListInput, i ?? {})),
    activity: async (i) => get<Out.ActivityResult>("/v1/activity", parseInput(In.ActivityInput, i ?? {})),
    forget: async (i) => requester.json<Out.ForgetResult>({ method: "POST", path: "/v1/forget", json: parseInput(In.ForgetInput, i) }),
    stats: async (i) => {
      parseInput(In.StatsInput, i ?? {});
      return get<Out.StatsResult>("/v1/stats");
    },
    diff: async (i) => get<Out.DiffResult>("/v1/diff", parseInput(In.DiffInput, i)),
    ...objectMethods(requester),
  };
}

/**
 * Connects to a server: asks it who the token is (so a bad token fails here,
 * clearly) and, when `tenant` is given, checks the token acts in that tenant.
 */
export async function connectHttpMemory(opts: ServerOptions & { tenant?: string }): Promise<Memory> {
  const requester = createRequester(opts);
  let tenant: string;
  try {
    tenant = await whoami(requester);
  } catch (err) {
    // Said from the caller's side: which token, not which header.
    if (err instanceof ZeroDbError && err.code === "unauthorized") {
      throw new ZeroDbError("unauthorized", `the server at ${serverUrl(opts.url).origin} refused the token: it is wrong or revoked`, { cause: err });
    }
    throw err;
  }
  if (opts.tenant !== undefined && opts.tenant !== tenant) {
    throw new ZeroDbError("unauthorized", `tenant: the token acts in tenant ${tenant}, not ${opts.tenant}`, { field: "tenant" });
  }
  return httpMemory(requester, tenant);
}
