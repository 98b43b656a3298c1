/**
 * A JSON (optionally JSONC: comments and trailing commas) parse tree that
 * keeps the position of every node and comma, so a harness config can be
 * edited in place and everything zerodb does not touch keeps its exact bytes
 * (DESIGN.md 7.1). jsonc-parser's `modify` is not used: it reformats
 * neighbours.
 */
import { printParseErrorCode, visit } from "jsonc-parser";

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

/**
 * Parses JSON, or JSONC when `jsonc` is set, with jsonc-parser's scanner
 * (VS Code's own): its visitor reports every token's offset, from which the
 * node spans and comma positions are built. The first error throws.
 */
export function parseJson(text: string, opts: { jsonc: boolean }): JDoc {
  let root: JNode | undefined;
  let hasComments = false;
  const open: (JObject | JArray)[] = [];
  let key: { key: string; start: number; keyEnd: number } | undefined;

  const fail = (what: string, line: number, column: number): never => {
    throw new JsonSyntaxError(`${what} at line ${line + 1}, column ${column + 1}`);
  };
  const attach = (node: JNode): void => {
    const parent = open.at(-1);
    if (parent === undefined) root = node;
    else if (parent.kind === "object") {
      parent.members.push({ ...key!, end: node.end, value: node });
      parent.commas.push(-1);
    } else {
      parent.items.push(node);
      parent.commas.push(-1);
    }
  };
  // The key each open container was found under, restored when it closes.
  const keys: (typeof key)[] = [];
  const begin = (node: JObject | JArray, line: number, column: number): void => {
    if (open.length >= MAX_DEPTH) fail("nesting too deep", line, column);
    open.push(node);
    keys.push(key);
  };
  const end = (offset: number): void => {
    const node = open.pop()!;
    node.end = offset + 1;
    key = keys.pop();
    attach(node);
  };

  visit(
    // A byte-order mark read as the one space it takes, so every offset stays the text's own.
    text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text,
    {
      onObjectBegin: (offset, _length, line, column) => begin({ kind: "object", start: offset, end: 0, members: [], commas: [] }, line, column),
      onArrayBegin: (offset, _length, line, column) => begin({ kind: "array", start: offset, end: 0, items: [], commas: [] }, line, column),
      onObjectEnd: end,
      onArrayEnd: end,
      onObjectProperty: (property, offset, length) => {
        key = { key: property, start: offset, keyEnd: offset + length };
      },
      onLiteralValue: (value: string | number | boolean | null, offset, length) => attach({ kind: "scalar", start: offset, end: offset + length, value }),
      onSeparator: (character, offset) => {
        const c = open.at(-1);
        if (character === "," && c) c.commas[c.commas.length - 1] = offset;
      },
      onComment: () => {
        hasComments = true;
      },
      // "PropertyNameExpected" -> "property name expected"
      onError: (error, _offset, _length, line, column) =>
        fail(
          printParseErrorCode(error)
            .replace(/\B([A-Z])/g, " $1")
            .toLowerCase(),
          line,
          column,
        ),
    },
    { disallowComments: !opts.jsonc, allowTrailingComma: opts.jsonc, allowEmptyContent: false },
  );
  // jsonc-parser's scanner takes more as whitespace (vertical tab, no-break space) than JSON does.
  if (!opts.jsonc) {
    try {
      JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch (err) {
      throw new JsonSyntaxError(err instanceof Error ? err.message : String(err));
    }
  }
  if (root === undefined) return fail("value expected", 0, 0);
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
