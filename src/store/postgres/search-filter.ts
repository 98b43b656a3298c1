/**
 * The SQL conditions of a PostgreSQL search (search.ts): the caller's
 * filters as a WHERE clause with positional parameters, and what "a row
 * holds a term" means in the word index or, for a word the stems miss, the
 * trigram index.
 */
import { SearchClass } from "../../search/search-class.ts";
import type { Term } from "../../search/query.ts";
import type { SearchInput } from "../../schema/ops.ts";
import { prefixEnd } from "../ranges.ts";
import { encodeText } from "./nul.ts";
import { termQuery } from "./words.ts";
import { boundOf } from "../as-of.ts";

/** Positional parameters for one statement. */
export class Params {
  readonly values: unknown[] = [];
  /** Adds a value; its placeholder. */
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/** The WHERE conditions every candidate meets: the tenant, live, the caller's filters, no noise unless asked. */
export function filterSql(p: Params, tenant: string, input: SearchInput): string {
  const where = [`t.tenant = ${p.add(tenant)}`, "t.forgotten_by IS NULL", "t.text IS NOT NULL"];
  if (input.include_noise !== true) where.push(`t.sclass <> ${p.add(SearchClass.noise)}`);
  if (input.session !== undefined) where.push(`t.kind = 'turn' AND t.subject = ${p.add(input.session)}`);
  if (input.prefix) {
    const end = prefixEnd(input.prefix);
    where.push(`t.kind = 'turn' AND t.subject >= ${p.add(input.prefix)}${end === null ? "" : ` AND t.subject < ${p.add(end)}`}`);
  }
  if (input.role !== undefined) where.push(`t.kind = 'turn' AND t.data->>'role' = ${p.add(input.role)}`);
  // as_of (DESIGN.md section 17): only what the tape held at that LSN.
  const upto = boundOf(input);
  if (upto !== undefined) where.push(`t.lsn <= ${p.add(upto)}`);
  return where.join(" AND ");
}

/** A LIKE pattern that matches `s` anywhere in a row's text as stored (NUL's encoding, nul.ts), its wildcards escaped. */
export function anywhere(s: string): string {
  return `%${encodeText(s).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Whether the trigram index can look for a term: one token of three characters or more. */
export function trigramFits(term: Term): boolean {
  const one = term.alternatives[0]!;
  return term.kind !== "phrase" && one.tokens.length === 1 && one.tokens[0]!.length >= 3;
}

/** The condition under which a row holds a term: the word index, or for a one-token term the trigram index. */
export function holds(p: Params, term: Term, trigram: boolean): string {
  const words = `t.words @@ ${p.add(termQuery(term))}::tsquery`;
  if (!trigram || !trigramFits(term)) return words;
  return `(${words} OR t.text ILIKE ${p.add(anywhere(term.alternatives[0]!.tokens[0]!))})`;
}
