/** Text as a regular expression that matches it literally (escapes only syntax characters, so it is valid with the `u` flag too). */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
