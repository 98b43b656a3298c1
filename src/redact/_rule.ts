/** Building rules: every regex gets the flags the scanner needs (`g` to walk, `d` for group spans). */
import type { Hit, Rule } from "./types.ts";

/** A rule from a regex source; `i` adds case-insensitivity. */
export function rule(kind: string, source: string, opts: { i?: boolean; pick?: (m: RegExpExecArray, text: string) => Hit | null } = {}): Rule {
  return { kind, re: new RegExp(source, opts.i ? "gdi" : "gd"), ...(opts.pick ? { pick: opts.pick } : {}) };
}
