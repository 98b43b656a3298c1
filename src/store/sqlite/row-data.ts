/** A row's payload (src/store/rows.ts) as SQLite keeps it. */
import type { RowPayload } from "../rows.ts";

/** The payload with `data` as JSON text; a fact's is its value itself, which is what the fact reads give back (facts.ts). */
export function sqlitePayload(p: RowPayload): Omit<RowPayload, "data"> & { data: string | null } {
  const data = p.data === null ? null : JSON.stringify(p.kind === "fact" ? p.data.value : p.data);
  return { ...p, data };
}
