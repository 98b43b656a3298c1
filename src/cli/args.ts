/** The shared flags of DESIGN.md 6.3, accepted by every command. */
import type { ArgsDef } from "citty";

export const sharedArgs = {
  home: { type: "string", description: "zerodb's home directory (default: $ZERODB_HOME or the platform's data dir)", valueHint: "dir" },
  "data-dir": { type: "string", description: "where the store lives (default: <home>/data)", valueHint: "dir" },
  url: { type: "string", description: "talk to a zerodb server at this URL instead of opening the store", valueHint: "url" },
  tenant: { type: "string", description: "the tenant to act in (default: local; with --url, the token's)", valueHint: "name" },
  "token-file": { type: "string", description: "a file holding the token for --url", valueHint: "file" },
  config: { type: "string", description: "the config file (default: <home>/config.json)", valueHint: "file" },
  json: { type: "boolean", description: "print exactly one JSON document: the result" },
  quiet: { type: "boolean", alias: "q", description: "print nothing but errors (the exit code tells how it went; --json still prints its document)" },
  verbose: { type: "boolean", alias: "v", description: "print extra detail where a command has it (the store used, error codes and causes)" },
} as const satisfies ArgsDef;

/**
 * `--database postgres://...`: the commands that open a store (serve, token,
 * import, export, stats, doctor) can act on a team server's PostgreSQL
 * database directly (also ZERODB_DATABASE, config `database`).
 */
export const databaseArg = {
  database: {
    type: "string",
    description: "act on the store in this PostgreSQL database (postgres://user@host/db; also ZERODB_DATABASE, config database)",
    valueHint: "url",
  },
} as const satisfies ArgsDef;

/** The shared flags as parsed. */
export interface SharedFlags {
  home?: string;
  "data-dir"?: string;
  url?: string;
  tenant?: string;
  "token-file"?: string;
  config?: string;
  /** Only on the commands that take databaseArg. */
  database?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
}
