/**
 * A JSON (optionally JSONC: comments and trailing commas) parser that keeps
 * the position of every node, so a harness config can be edited in place and
 * everything zerodb does not touch keeps its exact bytes (DESIGN.md 7.1).
 */

/** A parsed node with its span in the text: `text.slice(start, end)` is its source. */
export type JNode = JObject | JArray | JScalar;

/** An object: its members in source order and the positions of the commas after them. */
export interface JObject {
  kind: "object";
  start: number;
  end: number;
  members: JMember[];
  /** commas[i] is the position of the comma after members[i], or -1. */
  commas: number[];
}

/** One `"key": value` of an object. */
export interface JMember {
  key: string;
  /** Where the key's opening quote is. */
  start: number;
  /** Just after the key's closing quote. */
  keyEnd: number;
  /** Where the value ends. */
  end: number;
  value: JNode;
}

/** An array: its items and the commas after them. */
export interface JArray {
  kind: "array";
  start: number;
  end: number;
  items: JNode[];
  commas: number[];
}

/** A string, number, boolean or null. */
export interface JScalar {
  kind: "scalar";
  start: number;
  end: number;
  value: string | number | boolean | null;
}

/** A parsed document: the root node and whether it holds comments. */
export interface JDoc {
  text: string;
  root: JNode;
  hasComments: boolean;
}

/** The text is not valid JSON (or JSONC); the message names the line and column. */
export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonSyntaxError";
  }
}

/** How deep objects may nest before the parser refuses (protects the stack). */
const MAX_DEPTH = 256;
const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Parses JSON, or JSONC when `jsonc` is set. */
export function parseJson(text: string, opts: { jsonc: boolean }): JDoc {
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let hasComments = false;

  const fail = (what: string): never => {
    const before = text.slice(0, pos);
    const line = before.split("\n").length;
    const col = pos - before.lastIndexOf("\n");
    throw new JsonSyntaxError(`${what} at line ${line}, column ${col}`);
  };

  const skip = (): void => {
    for (;;) {
      const c = text[pos];
      if (c === " " || c === "\t" || c === "\n" || c === "\r") pos++;
      else if (c === "/" && opts.jsonc && text[pos + 1] === "/") {
        hasComments = true;
        const nl = text.indexOf("\n", pos);
        pos = nl < 0 ? text.length : nl;
      } else if (c === "/" && opts.jsonc && text[pos + 1] === "*") {
        hasComments = true;
        const close = text.indexOf("*/", pos + 2);
        if (close < 0) fail("unterminated comment");
        pos = close + 2;
      } else return;
    }
  };

  const string = (): string => {
    const start = pos;
    pos++;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (Number.isNaN(c)) fail("unterminated string");
      if (c === 0x22) break;
      if (c < 0x20) fail("control character in a string");
      pos += c === 0x5c ? 2 : 1;
    }
    pos++;
    try {
      return JSON.parse(text.slice(start, pos)) as string;
    } catch {
      pos = start;
      return fail("invalid string escape");
    }
  };

  const value = (depth: number): JNode => {
    if (depth > MAX_DEPTH) fail("nesting too deep");
    skip();
    const start = pos;
    const c = text[pos];
    if (c === "{") return object(depth);
    if (c === "[") return array(depth);
    if (c === '"') {
      const v = string();
      return { kind: "scalar", start, end: pos, value: v };
    }
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return { kind: "scalar", start, end: pos, value: v };
      }
    }
    NUMBER_RE.lastIndex = pos;
    const m = NUMBER_RE.exec(text);
    if (!m) return fail(c === undefined ? "unexpected end of file" : `unexpected '${c}'`);
    pos += m[0].length;
    return { kind: "scalar", start, end: pos, value: Number(m[0]) };
  };

  const object = (depth: number): JObject => {
    const node: JObject = { kind: "object", start: pos, end: 0, members: [], commas: [] };
    pos++;
    skip();
    if (text[pos] === "}") {
      node.end = ++pos;
      return node;
    }
    for (;;) {
      skip();
      if (text[pos] === "}" && opts.jsonc && node.members.length > 0) break;
      if (text[pos] !== '"') fail("expected a property name");
      const start = pos;
      const key = string();
      const keyEnd = pos;
      skip();
      if (text[pos] !== ":") fail("expected ':'");
      pos++;
      const v = value(depth + 1);
      node.members.push({ key, start, keyEnd, end: v.end, value: v });
      node.commas.push(-1);
      skip();
      if (text[pos] === ",") {
        node.commas[node.commas.length - 1] = pos++;
        continue;
      }
      if (text[pos] === "}") break;
      fail("expected ',' or '}'");
    }
    node.end = ++pos;
    return node;
  };

  const array = (depth: number): JArray => {
    const node: JArray = { kind: "array", start: pos, end: 0, items: [], commas: [] };
    pos++;
    skip();
    if (text[pos] === "]") {
      node.end = ++pos;
      return node;
    }
    for (;;) {
      skip();
      if (text[pos] === "]" && opts.jsonc && node.items.length > 0) break;
      node.items.push(value(depth + 1));
      node.commas.push(-1);
      skip();
      if (text[pos] === ",") {
        node.commas[node.commas.length - 1] = pos++;
        continue;
      }
      if (text[pos] === "]") break;
      fail("expected ',' or ']'");
    }
    node.end = ++pos;
    return node;
  };

  const root = value(0);
  skip();
  if (pos < text.length) fail("unexpected text after the end");
  return { text, root, hasComments };
}

/** The plain value of a node (the last of duplicate keys wins, as in JSON.parse). */
export function toValue(node: JNode): unknown {
  if (node.kind === "scalar") return node.value;
  if (node.kind === "array") return node.items.map(toValue);
  const out: Record<string, unknown> = {};
  for (const m of node.members) {
    // defineProperty so a key named __proto__ is data, as in JSON.parse.
    Object.defineProperty(out, m.key, { value: toValue(m.value), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
