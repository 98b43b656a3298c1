/** Building rules: every regex gets the flags the scanner needs (`g` to walk, `d` for group spans) and its anchors. */
import { anchorsOf } from "./anchors.ts";
import type { Hit, Rule } from "./types.ts";

/** Options of a rule: case-insensitivity, a judge of each match, anchors when the regex's own start is not literal. */
export interface RuleOptions {
  i?: boolean;
  pick?: (m: RegExpExecArray, text: string) => Hit | null;
  anchors?: string[];
  back?: number;
}

/** A rule from a regex source. */
export function rule(kind: string, source: string, opts: RuleOptions = {}): Rule {
  return {
    kind,
    re: new RegExp(source, opts.i ? "gdi" : "gd"),
    ...(opts.pick ? { pick: opts.pick } : {}),
    anchors: opts.anchors ?? anchorsOf(source) ?? [],
    back: opts.back ?? 0,
  };
}
