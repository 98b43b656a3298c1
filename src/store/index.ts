export type { CheckResult, Memory, Store } from "./types.ts";
export { openSqliteStore, checkTenant } from "./sqlite/store.ts";
