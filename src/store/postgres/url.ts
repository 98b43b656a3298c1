/** The database URL as messages may show it: never its password (I10). */

/** The URL with any password replaced by `***` (and a `password` query parameter too). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    for (const k of [...u.searchParams.keys()]) if (/pass|secret|token/i.test(k)) u.searchParams.set(k, "***");
    return u.toString();
  } catch {
    // Not a URL we can parse: show nothing of it rather than risk a secret.
    return "postgres://(unparsable URL)";
  }
}
