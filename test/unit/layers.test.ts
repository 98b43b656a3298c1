/**
 * The seal of issue 16 (DESIGN.md 12): no file outside `src/store/<engine>/`
 * imports from an engine's folder, except the store's face (`src/store/open.ts`
 * and `src/store/index.ts`), and no engine imports another. Doors reach an
 * engine only through the interfaces of `src/store/types.ts`, so a second
 * engine is a new folder, not edits across the tree.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");
const SRC = join(ROOT, "src");
const STORE = join(SRC, "store");

/** The files that may open an engine: the face of the store layer. */
const FACE = new Set(["src/store/open.ts", "src/store/index.ts"]);

/** The engine folders: every directory directly under src/store. */
const ENGINES = readdirSync(STORE).filter((n) => statSync(join(STORE, n)).isDirectory());

/** Every .ts file under src, as paths relative to the repository. */
function sources(): string[] {
  return readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** The relative module specifiers of a file: static imports, re-exports, import types and dynamic imports. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g)) out.push(m[1]!);
  return out;
}

/** The engine folder a repository path lies in, or undefined. */
function engineOf(path: string): string | undefined {
  const m = /^src\/store\/([^/]+)\//.exec(path);
  return m && ENGINES.includes(m[1]!) ? m[1] : undefined;
}

/** Every import of an engine's folder from a file outside it, as `file -> target`. */
function crossings(): string[] {
  const out: string[] = [];
  for (const file of sources()) {
    const own = engineOf(file);
    for (const spec of specifiers(readFileSync(join(ROOT, file), "utf8"))) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), spec));
      const engine = engineOf(target);
      if (engine === undefined || engine === own) continue;
      if (own === undefined && FACE.has(file)) continue;
      out.push(`${file} -> ${target}`);
    }
  }
  return out;
}

describe("the engine is sealed (issue 16)", () => {
  test("there is an engine to seal, and the scan sees imports", () => {
    expect(ENGINES).toContain("sqlite");
    expect(
      specifiers(
        `import a from "./x.ts";\nexport { b } from "../y.ts";\nconst c = await import("../store/sqlite/store.ts");\nimport type { D } from "./d.ts";`,
      ),
    ).toEqual(["./x.ts", "../y.ts", "../store/sqlite/store.ts", "./d.ts"]);
  });

  test("no file outside src/store/<engine>/ (but the face) imports an engine", () => {
    expect(crossings()).toEqual([]);
  });
});
