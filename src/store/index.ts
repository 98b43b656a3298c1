/** The face of the store layer: the interfaces, the one way to open a store, and the local files it keeps. */
export type { BackupCounts, CaptureCursors, CheckResult, Memory, ObjectBody, RestoreResult, Store, Tokens, WorkTrace } from "./types.ts";
export { type OpenStoreOptions, migrateStoreAhead, openStore, restoreStore } from "./open.ts";
export type { MigrationAhead } from "./sqlite/migrate-ahead.ts";
// Named without loading an engine, so the CLI and doctor can check them before a store is opened (issue 14, item 3).
export { DB_FILE, dataDirPaths } from "./sqlite/paths.ts";
