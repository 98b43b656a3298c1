/**
 * Issue 31: README.md and every page of docs/ link only to what exists: each
 * relative link names a file of the repository, and each `#anchor` a heading
 * of the page it points to (GitHub's anchors: lower case, punctuation
 * dropped, spaces as hyphens).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");

/** README.md, CONTRIBUTING.md and every Markdown page under docs/. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, "docs"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".md"))
    .map((e) => join(e.parentPath, e.name));
  return [join(ROOT, "README.md"), join(ROOT, "CONTRIBUTING.md"), ...docs];
}

/** A heading's anchor as GitHub makes it. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/[^\p{L}\p{N} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a Markdown file's headings (outside code blocks). */
function anchors(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

/** The relative links of a Markdown file (outside code blocks): [text](target). */
function links(file: string): string[] {
  const text = readFileSync(file, "utf8")
    .replace(/```[\s\S]*?```/g, "")
    .replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t));
}

describe("issue 31: the documentation's links", () => {
  test("anchors are made as GitHub makes them", () => {
    expect(anchorOf("Tenants: who sees what")).toBe("tenants-who-sees-what");
    expect(anchorOf("MCP, HTTP and the viewer")).toBe("mcp-http-and-the-viewer");
    expect(anchorOf("Map of `src/`")).toBe("map-of-src");
  });

  test("every relative link of README.md, CONTRIBUTING.md and docs/ names a file that exists, and a heading there", () => {
    const broken: string[] = [];
    for (const page of pages()) {
      for (const target of links(page)) {
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const file = path === "" ? page : resolve(dirname(page), path);
        const at = `${relative(ROOT, page)} -> ${target}`;
        if (!existsSync(file)) broken.push(`${at}: no such file`);
        else if (anchor !== undefined && file.endsWith(".md") && !anchors(file).has(anchor)) broken.push(`${at}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });
});
