/** Reading a command's input from stdin the way people expect: a hint on a terminal, a limit enforced while reading. */
import { isatty } from "node:tty";
import { isZeroDbError, tooLarge } from "../errors.ts";
import { readLimited } from "../http/body.ts";
import { ui } from "./log.ts";

/** On a terminal, says on stderr what the command waits for, so it never sits there silently (issue 17, item 4). */
export function hintIfTerminal(what: string, instead: string): void {
  if (!isatty(0)) return;
  const end = process.platform === "win32" ? "Ctrl-Z then Enter" : "Ctrl-D";
  ui.info(`zerodb: reading ${what} from stdin; type it and end with ${end} (or ${instead})`);
}

/**
 * All of stdin, refused with too_large as soon as it passes `max` bytes:
 * 200 MB piped in is refused after the first 4 MiB, not after reading it
 * whole. The HTTP door's limited reader does the counting (one copy of that
 * loop); its error names the body, so it is renamed to the CLI's field here.
 */
export async function readStdin(field: string, max: number): Promise<Uint8Array> {
  try {
    return await readLimited(Bun.stdin.stream() as ReadableStream<Uint8Array>, max);
  } catch (err) {
    if (isZeroDbError(err) && err.code === "too_large") {
      throw tooLarge(field, `more than ${max} bytes on stdin (the limit is ${max / 1048576} MiB); stopped reading there`);
    }
    throw err;
  }
}
