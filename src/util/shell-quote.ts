/** Quotes a word for a POSIX shell, or for cmd.exe when `platform` is win32: for hook commands and the fixes zerodb prints. */
export function shellQuote(word: string, platform: NodeJS.Platform = "linux"): string {
  if (/^[A-Za-z0-9_/.:@%+=,-]+$/.test(word)) return word;
  if (platform === "win32") return `"${word.replaceAll('"', '""')}"`;
  return `'${word.replaceAll("'", "'\\''")}'`;
}
