/**
 * Shell words: quoting a word for the shell Claude Code runs hook commands
 * with (and for fixes doctor prints), and splitting a command line back into
 * words to find the program it runs.
 */

export { shellQuote } from "../util/shell-quote.ts";

/** Splits a POSIX shell command line into words ('single', "double" and backslash quoting). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      cur = (cur ?? "") + line.slice(i + 1, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      let j = i + 1;
      let s = "";
      for (; j < line.length && line[j] !== '"'; j++) s += line[j] === "\\" && /["\\$`]/.test(line[j + 1] ?? "") ? line[++j] : line[j];
      cur = (cur ?? "") + s;
      i = j;
    } else if (c === "\\" && i + 1 < line.length) cur = (cur ?? "") + line[++i];
    else if (/\s/.test(c)) {
      if (cur !== undefined) words.push(cur);
      cur = undefined;
    } else cur = (cur ?? "") + c;
  }
  if (cur !== undefined) words.push(cur);
  return words;
}

/** The program a hook command line runs: its first word after any `VAR=value` assignments. */
export function commandProgram(line: string): string | undefined {
  return shellWords(line).find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
}
