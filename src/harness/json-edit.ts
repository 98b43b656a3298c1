/**
 * In-place edits of JSON and JSONC config files: set or remove one path and
 * keep every other byte, comment and indentation of the file (DESIGN.md 7.1:
 * "keeps every unrelated entry and setting"). Each edit is checked by parsing
 * the result; when a textual edit cannot be proven right, a comment-free file
 * is re-serialized in its own indentation style instead.
 */
import { type JArray, type JNode, type JObject, parseJson, toValue } from "./jsonc.ts";

/** One step of a path: an object key or an array index. */
export type PathStep = string | number;

/** The edit is impossible (a path runs through a non-container) or unsafe. */
export class JsonEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonEditError";
  }
}

/** The value at a path of a parsed value, or undefined. */
export function getPath(value: unknown, path: readonly PathStep[]): unknown {
  let cur = value;
  for (const step of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = Object.hasOwn(cur as object, step) ? (cur as Record<PathStep, unknown>)[step] : undefined;
  }
  return cur;
}

/**
 * Sets `path` to `value` (or removes it when `value` is undefined) in JSON
 * text; an empty text is a new file. Returns the new text.
 */
export function editJson(text: string, path: readonly PathStep[], value: unknown, opts: { jsonc: boolean }): string {
  if (text.trim() === "") {
    if (value === undefined) return text;
    return `${JSON.stringify(build(path, value), null, 2)}\n`;
  }
  const doc = parseJson(text, opts);
  // The editor first: it refuses a path through a non-container before the values are touched.
  const edited = new TextEditor(text, doc.root).edit(path, value);
  if (edited === text) return text;
  const expected = applyToValue(toValue(doc.root), path, value);
  try {
    if (Bun.deepEquals(toValue(parseJson(edited, opts).root), expected, true)) return edited;
  } catch {
    // fall through to the re-serialization below
  }
  if (doc.hasComments) throw new JsonEditError("the file's comments make this edit unsafe; edit it by hand");
  const style = layout(text);
  const out = JSON.stringify(expected, null, style.unit).replaceAll("\n", style.eol);
  return /\r?\n$/.test(text) ? out + style.eol : out;
}

/** The nested value a missing path holds: objects for keys, one-element arrays for indexes. */
function build(path: readonly PathStep[], value: unknown): unknown {
  let out = value;
  for (let i = path.length - 1; i >= 0; i--) out = typeof path[i] === "number" ? [out] : { [path[i] as string]: out };
  return out;
}

/** The same edit on plain values: what the text must parse to afterwards. */
function applyToValue(root: unknown, path: readonly PathStep[], value: unknown): unknown {
  if (path.length === 0) return value;
  let cur = root as Record<PathStep, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const step = path[i]!;
    if (cur[step] === undefined) {
      if (value === undefined) return root;
      cur[step] = build(path.slice(i + 1), value);
      return root;
    }
    cur = cur[step] as Record<PathStep, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(cur) && typeof last === "number") cur.splice(last, 1);
    else delete cur[last];
  } else cur[last] = value;
  return root;
}

/** The file's line ending and indentation unit. */
function layout(text: string): { eol: string; unit: string } {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const m = /^([ \t]+)\S/m.exec(text);
  return { eol, unit: m ? (m[1]!.startsWith("\t") ? "\t" : m[1]!) : "  " };
}

/** An entry of a container, seen the same way for object members and array items. */
interface Entry {
  start: number;
  end: number;
}

/** Computes one textual edit of a parsed document. */
class TextEditor {
  private readonly eol: string;
  private readonly unit: string;

  constructor(
    private readonly text: string,
    private readonly root: JNode,
  ) {
    ({ eol: this.eol, unit: this.unit } = layout(text));
  }

  edit(path: readonly PathStep[], value: unknown): string {
    if (path.length === 0) throw new JsonEditError("an edit needs a path");
    let node = this.root;
    for (let i = 0; i < path.length; i++) {
      const step = path[i]!;
      const where = path.slice(0, i).join(".") || "the top level";
      if (node.kind === "object" && typeof step === "string") {
        let index = -1;
        for (let j = node.members.length - 1; j >= 0 && index < 0; j--) if (node.members[j]!.key === step) index = j;
        if (index < 0) return value === undefined ? this.text : this.insert(node, JSON.stringify(step), build(path.slice(i + 1), value));
        if (i === path.length - 1)
          return value === undefined ? this.remove(node, index) : this.replace(node.members[index]!.value, node.members[index]!.start, node, value);
        node = node.members[index]!.value;
      } else if (node.kind === "array" && typeof step === "number") {
        if (step === node.items.length) return value === undefined ? this.text : this.insert(node, undefined, build(path.slice(i + 1), value));
        if (step > node.items.length) throw new JsonEditError(`${where} has no item ${step}`);
        if (i === path.length - 1) return value === undefined ? this.remove(node, step) : this.replace(node.items[step]!, node.items[step]!.start, node, value);
        node = node.items[step]!;
      } else {
        throw new JsonEditError(`${where} is not ${typeof step === "string" ? "an object" : "an array"}`);
      }
    }
    throw new JsonEditError("unreachable: the loop returns at the last step");
  }

  private lineStart(pos: number): number {
    return this.text.lastIndexOf("\n", pos - 1) + 1;
  }

  private indentAt(pos: number): string {
    const start = this.lineStart(pos);
    return /^[ \t]*/.exec(this.text.slice(start, pos))![0];
  }

  private startsLine(pos: number): boolean {
    return this.text.slice(this.lineStart(pos), pos).trim() === "";
  }

  /** Where the line ending before `pos`'s line begins (the \r of \r\n included). */
  private eolBefore(pos: number): number {
    const ls = this.lineStart(pos);
    if (ls === 0) return 0;
    return this.text[ls - 2] === "\r" ? ls - 2 : ls - 1;
  }

  private multiline(node: JNode): boolean {
    return this.text.slice(node.start, node.end).includes("\n");
  }

  private render(value: unknown, indent: string, pretty: boolean): string {
    return pretty
      ? JSON.stringify(value, null, this.unit)
          .split("\n")
          .join(this.eol + indent)
      : JSON.stringify(value);
  }

  private colon(container: JObject, pretty: boolean): string {
    const m = container.members[0] ?? (this.root.kind === "object" ? this.root.members[0] : undefined);
    const sep = m ? this.text.slice(m.keyEnd, m.value.start) : "";
    return /^[ \t]*:[ \t]*$/.test(sep) ? sep : pretty ? ": " : ":";
  }

  /** Applies non-overlapping edits; of two at one position, the one listed first ends up first. */
  private splice(edits: { at: number; to: number; text: string }[]): string {
    let out = this.text;
    const order = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.at - a.e.at || b.i - a.i);
    for (const { e } of order) out = out.slice(0, e.at) + e.text + out.slice(e.to);
    return out;
  }

  private entries(c: JObject | JArray): Entry[] {
    return c.kind === "object" ? c.members : c.items;
  }

  private replace(node: JNode, entryStart: number, container: JObject | JArray, value: unknown): string {
    const pretty = this.multiline(container) || this.multiline(node);
    return this.splice([{ at: node.start, to: node.end, text: this.render(value, this.indentAt(entryStart), pretty) }]);
  }

  /** Appends an entry (`key` is the JSON-quoted key for objects) at the end of a container. */
  private insert(c: JObject | JArray, key: string | undefined, value: unknown): string {
    const entries = this.entries(c);
    // A one-line (minified) file stays one line; an empty container in a pretty file opens up.
    const pretty = this.multiline(c) || (entries.length === 0 && (c === this.root || this.multiline(this.root)));
    const head = key === undefined ? "" : key + (c.kind === "object" ? this.colon(c, pretty) : "");
    const entryText = (indent: string) => head + this.render(value, indent, pretty);
    const n = entries.length;
    if (n === 0) {
      const close = c.end - 1;
      const base = this.indentAt(c.start);
      if (!this.multiline(c)) {
        const open = this.text[c.start]!;
        const body = pretty ? `${this.eol}${base}${this.unit}${entryText(base + this.unit)}${this.eol}${base}` : entryText("");
        return this.splice([{ at: c.start, to: c.end, text: `${open}${body}${this.text[close]}` }]);
      }
      if (this.startsLine(close)) {
        const indent = this.indentAt(close) + this.unit;
        return this.splice([{ at: this.lineStart(close), to: this.lineStart(close), text: `${indent}${entryText(indent)}${this.eol}` }]);
      }
      const indent = base + this.unit;
      return this.splice([{ at: close, to: close, text: `${this.eol}${indent}${entryText(indent)}${this.eol}${base}` }]);
    }
    const last = entries[n - 1]!;
    const comma = c.commas[n - 1]!;
    const anchor = comma >= 0 ? comma + 1 : last.end;
    const edits: { at: number; to: number; text: string }[] = [];
    if (comma < 0) edits.push({ at: last.end, to: last.end, text: "," });
    if (!this.multiline(c)) {
      const spaced = c.commas[0]! >= 0 && this.text[c.commas[0]! + 1] === " " ? " " : "";
      edits.push({ at: anchor, to: anchor, text: spaced + entryText("") });
      return this.splice(edits);
    }
    const indent = this.startsLine(last.start) ? this.indentAt(last.start) : this.indentAt(c.start) + this.unit;
    // After a comment that ends the last entry's line, so the comment stays with its entry.
    let at = anchor;
    const nl = this.text.indexOf("\n", anchor);
    if (nl >= 0 && nl < c.end) {
      const rest = this.text.slice(anchor, nl).replace(/\r$/, "").trim();
      if (rest === "" || rest.startsWith("//") || /^\/\*.*\*\/$/.test(rest)) at = this.text[nl - 1] === "\r" ? nl - 1 : nl;
    }
    // A file that ends its entries with a trailing comma (JSONC) gets one after ours too.
    edits.push({ at, to: at, text: `${this.eol}${indent}${entryText(indent)}${comma >= 0 ? "," : ""}` });
    return this.splice(edits);
  }

  /** Removes entry `i` and its separator, leaving the neighbours' bytes as they were. */
  private remove(c: JObject | JArray, i: number): string {
    const entries = this.entries(c);
    const n = entries.length;
    const e = entries[i]!;
    if (n === 1) {
      const inner = this.text.slice(c.start + 1, e.start) + this.text.slice(c.commas[0]! >= 0 ? c.commas[0]! + 1 : e.end, c.end - 1);
      if (inner.trim() === "") return this.splice([{ at: c.start + 1, to: c.end - 1, text: "" }]);
      const from = this.startsLine(e.start) ? this.eolBefore(e.start) : e.start;
      return this.splice([{ at: from, to: c.commas[0]! >= 0 ? c.commas[0]! + 1 : e.end, text: "" }]);
    }
    if (i < n - 1) {
      if (this.startsLine(e.start)) return this.splice([{ at: this.eolBefore(e.start), to: c.commas[i]! + 1, text: "" }]);
      return this.splice([{ at: e.start, to: entries[i + 1]!.start, text: "" }]);
    }
    const prevComma = c.commas[i - 1]!;
    const from = this.startsLine(e.start) ? this.eolBefore(e.start) : prevComma + 1;
    if (c.commas[i]! >= 0) return this.splice([{ at: from, to: c.commas[i]! + 1, text: "" }]);
    return this.splice([
      { at: prevComma, to: prevComma + 1, text: "" },
      { at: from, to: e.end, text: "" },
    ]);
  }
}
