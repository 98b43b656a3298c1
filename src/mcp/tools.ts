/**
 * The table of MCP tools (DESIGN.md 6.2), in the order tools/list shows them.
 * Adding a tool is one import and one entry here.
 */
import type { ToolDef } from "./tool.ts";
import { forget, stats } from "./tools/admin.ts";
import { factGet, factList, factSet } from "./tools/facts.ts";
import { linkAdd, objectGet, objectPut } from "./tools/objects.ts";
import { recall } from "./tools/recall.ts";
import { remember } from "./tools/remember.ts";
import { search, sessions } from "./tools/search.ts";

/** Every tool `zerodb mcp` serves. */
export const TOOLS: readonly ToolDef[] = [remember, recall, search, sessions, factSet, factGet, factList, forget, objectPut, objectGet, linkAdd, stats];
