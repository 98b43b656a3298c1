/**
 * The seal of issue 16 (DESIGN.md 12): no file outside `src/store/<engine>/`
 * imports from an engine's folder, except the store's face (`src/store/open.ts`
 * and `src/store/index.ts`), and no engine imports another. Doors reach an
 * engine only through the interfaces of `src/store/types.ts`, so a second
 * engine is a new folder, not edits across the tree.
 *
 * And issue 31: no import circle anywhere under src/, so every module sits on
 * one floor and can be read, tested and moved with only what lies below it.
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

/** Every .ts and .tsx file under src, as paths relative to the repository. */
function sources(): string[] {
  return readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
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

/**
 * The import graph of src: each file to the source files it names. Type-only
 * imports count: they vanish at run time, so they cannot break module
 * initialisation, but they still tie one module's meaning to another's, and a
 * circle of types is the same tangle of floors as a circle of values, one
 * edit away from a real one (dropping `type` from an import). Dynamic
 * `import()` counts too: a lazy load upward is still an arrow upward.
 */
function importGraph(files: readonly string[], read: (file: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = specifiers(read(file)).map((spec) => relative(ROOT, resolve(ROOT, dirname(file), spec)));
    graph.set(file, [...new Set(targets.filter((t) => known.has(t)))].sort());
  }
  return graph;
}

/** The strongly connected components of a graph with more than one file or a file importing itself (Tarjan). */
function tangles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      part.push(w);
    } while (w !== v);
    if (part.length > 1 || graph.get(v)?.includes(v)) out.push(part.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest circle through the first file of each tangle, as `a -> b -> a`. */
function cycles(graph: Map<string, string[]>): string[] {
  return tangles(graph).map((part) => {
    const start = part[0]!;
    const inside = new Set(part);
    const from = new Map<string, string>();
    const queue = [start];
    search: for (let i = 0; i < queue.length; i++) {
      for (const w of graph.get(queue[i]!) ?? []) {
        if (!inside.has(w) || from.has(w)) continue;
        from.set(w, queue[i]!);
        if (w === start) break search;
        queue.push(w);
      }
    }
    const path = [start];
    for (let v = from.get(start)!; v !== start; v = from.get(v)!) path.unshift(v);
    path.unshift(start);
    const rest = part.filter((f) => !path.includes(f));
    return path.join(" -> ") + (rest.length > 0 ? ` (its tangle also holds ${rest.join(", ")})` : "");
  });
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

describe("no import circles (issue 31)", () => {
  test("the cycle finder names a circle in order, and only circles", () => {
    const files = ["src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts", "src/e.ts"];
    const text: Record<string, string> = {
      "src/a.ts": `import { b } from "./b.ts";`,
      "src/b.ts": `import type { C } from "./c.ts";`,
      "src/c.ts": `const a = await import("./a.ts");\nimport "./d.ts";`,
      "src/d.ts": `export { e } from "./e.ts";`,
      "src/e.ts": ``,
    };
    const graph = importGraph(files, (f) => text[f]!);
    expect(cycles(graph)).toEqual(["src/a.ts -> src/b.ts -> src/c.ts -> src/a.ts"]);
    text["src/e.ts"] = `import { d } from "./d.ts";`;
    expect(cycles(importGraph(files, (f) => text[f]!))).toEqual(["src/a.ts -> src/b.ts -> src/c.ts -> src/a.ts", "src/d.ts -> src/e.ts -> src/d.ts"]);
  });

  test("no file under src/ imports itself through others", () => {
    const graph = importGraph(sources(), (f) => readFileSync(join(ROOT, f), "utf8"));
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });
});
