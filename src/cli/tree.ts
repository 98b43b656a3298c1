/**
 * The shape of the command table (`command-table.ts`), apart from the table: help
 * and completion walk a tree of this shape, and the table's own completion
 * command is handed the table, so neither imports the table upward.
 */
import type { CommandDef } from "citty";

/** Loads one command. */
// biome-ignore lint/suspicious/noExplicitAny: each command's args type differs, and citty's CommandDef is invariant in it
export type Loader = () => Promise<CommandDef<any>>;
/** A command group: names to commands or further groups. */
export interface CommandTree {
  [name: string]: Loader | CommandTree;
}

/** Commands left out of help and completion: run by harnesses, not people. */
export const HIDDEN: ReadonlySet<string> = new Set(["hook"]);
