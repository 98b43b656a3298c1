/**
 * A value made on first use and kept: schemas that most processes never
 * need (a hook's start pays for every zod schema it builds).
 */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
