/** Building rules: a regex source, its case flag, and the anchors it starts at. */
import type { Hit, Rule } from "./types.ts";

/** Options of a rule: case-insensitivity, a judge of each match, how far before its anchor a match starts. */
export interface RuleOptions {
  i?: boolean;
  pick?: (m: RegExpExecArray, text: string) => Hit | null;
  back?: number;
}

/**
 * A rule. `anchors` are the lower-case literals its matches start with (the
 * scanner runs the regex only where one stands); [] runs it over the whole
 * text. They are written out, not derived at load time (a hook process is
 * short-lived and cold); test/security/redact.test.ts checks each list
 * against the literal start of its regex.
 */
export function rule(kind: string, anchors: string[], source: string, opts: RuleOptions = {}): Rule {
  return { kind, source, flags: opts.i ? "i" : "", ...(opts.pick ? { pick: opts.pick } : {}), anchors, back: opts.back ?? 0 };
}
