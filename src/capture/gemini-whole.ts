/**
 * A Gemini CLI tool result told whole (DESIGN.md 14, HARNESSES.md "Gemini
 * CLI"). For a long shell (or MCP) output Gemini gives the model a cut copy,
 * `functionResponse.response.output` (over 40,000 characters, by default:
 * `Output too large. Showing first 8,000 and last 32,000 characters. For full
 * output see: <file>`, the head, `... [N characters omitted] ...`, the tail),
 * and records what the user saw, the whole output, in the call's
 * `resultDisplay`. The whole one is the record; of the cut copy only what the
 * whole one does not hold is kept (the notice, the wrapper and marker lines,
 * `Exit Code: 2`), so its head and tail are not stored twice.
 *
 * `resultDisplay` is a string, or terminal output (lines of styled tokens,
 * `AnsiOutput` in gemini-cli's terminalSerializer.ts), or an object for other
 * tools (a file diff, a todo list, a grep summary): those show what the
 * call's arguments and output already carry, so they are not used.
 */

/** The text of a `resultDisplay` that can be a tool's whole output, or undefined. */
export function displayText(display: unknown): string | undefined {
  if (typeof display === "string") return display;
  if (!Array.isArray(display) || display.length === 0) return undefined;
  const lines: string[] = [];
  for (const line of display) {
    if (!Array.isArray(line)) return undefined;
    let text = "";
    for (const token of line) {
      if (typeof token !== "object" || token === null || typeof (token as { text?: unknown }).text !== "string") return undefined;
      text += (token as { text: string }).text;
    }
    // A terminal line is padded to the screen's width.
    lines.push(text.trimEnd());
  }
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.join("\n");
}

/** A label such as `Output: ` before the start of the whole output (shell.ts writes `Output: <output>`). */
const LABEL = /^[A-Z][A-Za-z ]{0,40}: /;
/** Shorter than this, a line after a label is kept whole (`Exit Code: 2` says something of its own). */
const QUOTED_MIN = 32;

/**
 * The result to store for a call whose model got `output` and whose user saw
 * `display`: the output itself unless the display holds more; then the
 * display, followed by the lines of the output it does not hold.
 */
export function wholeResult(output: string, display: string | undefined): { text: string; whole: boolean } {
  if (display === undefined || display.length <= output.length) return { text: output, whole: false };
  // Lines compared without trailing blanks (a terminal pads them): most lines of the head and tail are whole
  // lines of the display, found in the set; only the few others are looked for inside it (a cut line is part of one).
  const shown = new Set(display.split("\n").map((l) => l.trimEnd()));
  const rest: string[] = [];
  for (const line of output.split("\n")) {
    if (shown.has(line.trimEnd()) || display.includes(line)) continue;
    const label = LABEL.exec(line)?.[0];
    const quoted = label === undefined ? "" : line.slice(label.length);
    rest.push(label !== undefined && quoted.length >= QUOTED_MIN && display.startsWith(quoted) ? label.trimEnd() : line);
  }
  if (rest.length === 0) return { text: display, whole: true };
  return { text: `${display}\n\n[given to the model, besides the output above]\n${rest.join("\n")}`, whole: true };
}
