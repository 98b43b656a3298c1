/**
 * Whether human output may carry ANSI colour: only on a terminal, and never
 * when NO_COLOR is set (https://no-color.org); FORCE_COLOR turns it on anywhere.
 */

/** True when `stream` may be written in colour. */
export function colorOn(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "" && force !== "0" && force !== "false") return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

/** Bold text when colour is on, the text itself otherwise. */
export function bold(text: string, on: boolean): string {
  return on ? `\u001b[1m${text}\u001b[22m` : text;
}
