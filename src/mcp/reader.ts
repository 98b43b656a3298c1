/**
 * The retrieval hint of a spill notice names the harness's own file-reading
 * tool (DESIGN.md section 9). The harness is known from the clientInfo of
 * its `initialize` request.
 */
import { DEFAULT_HINT } from "../spill/spill.ts";

/** Client name patterns and the sentence for each, most specific first. */
const HINTS: [RegExp, string][] = [
  [/claude/i, "Open that file with the Read tool (give it an offset and limit to page through a large file) to see the part left out here."],
  [/gemini/i, "Open that file with the read_file tool (give it an offset and limit to page through a large file) to see the part left out here."],
  [/codex/i, "Read that file with a shell command such as sed -n '1,400p' on that path to see the part left out here."],
  [/opencode/i, "Open that file with the read tool to see the part left out here."],
  [/cursor|windsurf|visual studio code|vscode|copilot/i, "Open that file with the read_file tool to see the part left out here."],
];

/** The one-sentence hint for a client, by the name it gave in `initialize`. */
export function readHint(clientName: string | undefined): string {
  if (clientName) for (const [re, hint] of HINTS) if (re.test(clientName)) return hint;
  return DEFAULT_HINT;
}
