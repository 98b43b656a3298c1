/** Reading a command's input from stdin the way people expect: a hint on a terminal, a limit enforced while reading. */
import { isatty } from "node:tty";
import { tooLarge } from "../errors.ts";
import { readLimited } from "../util/read-limited.ts";
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
 * whole (util/read-limited.ts does the counting, for the HTTP door too).
 */
export function readStdin(field: string, max: number): Promise<Uint8Array> {
  return readLimited(Bun.stdin.stream() as ReadableStream<Uint8Array>, {
    max,
    over: () => tooLarge(field, `more than ${max} bytes on stdin (the limit is ${max / 1048576} MiB); stopped reading there`),
  });
}
