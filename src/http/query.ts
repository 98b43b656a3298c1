/**
 * Query strings into operation inputs, strictly (DESIGN.md I6): numbers are
 * whole decimal numbers ("12abc", "-1", "1e3" are invalid_input), a parameter
 * given twice (unless it repeats into an array field) or unknown is refused,
 * and percent-encoding must decode to valid UTF-8. The result is validated
 * with the operation's zod schema (D3).
 */
import type { z } from "zod";
import { ZeroDbError, invalid } from "../errors.ts";
import { parseInput } from "../schema/parse.ts";
import { wholeNumber } from "../util/whole-number.ts";

/** One query parameter: the input field it fills (when named differently) and whether it is a number. */
export interface QueryParam {
  field?: string;
  /** The array field that the parameter's later repeats fill, in order (`?q=a&q=b`: query "a", queries ["b"]); without it a repeat is refused. */
  repeats?: string;
  int?: boolean;
  bool?: boolean;
}

/** Decodes one application/x-www-form-urlencoded component, refusing invalid UTF-8. */
function decode(raw: string, field: string): string {
  try {
    return decodeURIComponent(raw.replaceAll("+", " "));
  } catch {
    throw invalid(field, "is not valid percent-encoded UTF-8");
  }
}

/** `true`/`1` or `false`/`0`. */
function bool(value: string, field: string): boolean {
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  throw invalid(field, "must be true or false");
}

/** Parses a request's query string with `params`, then validates it with `schema`. */
export function queryInput<S extends z.ZodType>(url: string, schema: S, params: Record<string, QueryParam> = {}): z.output<S> {
  const search = new URL(url).search.slice(1);
  const input: Record<string, unknown> = {};
  const nameOf = new Map(Object.entries(params).map(([name, p]) => [p.field ?? name, name]));
  for (const pair of search === "" ? [] : search.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = decode(eq < 0 ? pair : pair.slice(0, eq), "query");
    // A pair with no name ("?=x") has no field to name: the query string is the field (I6).
    if (name === "") throw invalid("query", "a parameter has no name");
    const value = decode(eq < 0 ? "" : pair.slice(eq + 1), name);
    const param = Object.hasOwn(params, name) ? params[name] : undefined;
    if (!param) throw invalid(name, "unknown query parameter");
    const field = param.field ?? name;
    const again = Object.hasOwn(input, field);
    if (again && param.repeats === undefined) throw invalid(name, "given more than once");
    const parsed = param.int ? wholeNumber(name, value) : param.bool ? bool(value, name) : value;
    if (again) ((input[param.repeats!] ??= []) as unknown[]).push(parsed);
    else input[field] = parsed;
  }
  try {
    return parseInput(schema, input);
  } catch (err) {
    // Name the parameter as the caller wrote it (`q`, not `query`).
    if (err instanceof ZeroDbError && err.field !== undefined && nameOf.has(err.field)) {
      const name = nameOf.get(err.field)!;
      if (name !== err.field) throw new ZeroDbError(err.code, err.message.replace(err.field, name), { field: name });
    }
    throw err;
  }
}
