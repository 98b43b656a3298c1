/**
 * TOML (https://toml.io/en/v1.0.0) for Codex's config.toml. Reading values is
 * smol-toml's job (readToml), a full TOML 1.0 parser, so settings compare as
 * values. Editing in place needs what no parser keeps: where each statement
 * is. scanToml cuts the file into statements (table headers, key/value pairs,
 * blank or comment lines) with their spans, so everything zerodb does not
 * edit keeps its bytes, comments included.
 */
import { parse } from "smol-toml";

/** One statement of the file; `text.slice(start, end)` includes its line ending. */
export interface TomlItem {
  kind: "header" | "kv" | "blank" | "comment";
  start: number;
  end: number;
  /** header: the table's key path; kv: the (dotted) key. */
  path: string[];
  /** header: true for an array of tables `[[...]]`. */
  array: boolean;
}

/** The file is not TOML this parser understands; the message names the line. */
export class TomlSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TomlSyntaxError";
  }
}

const BARE = /[A-Za-z0-9_-]/;
const ESCAPES: Record<string, string> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", e: "\u001b", '"': '"', "\\": "\\" };

/** Cuts TOML text into statements. */
export function scanToml(text: string): TomlItem[] {
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const items: TomlItem[] = [];
  const fail = (what: string): never => {
    throw new TomlSyntaxError(`${what} at line ${text.slice(0, pos).split("\n").length}`);
  };
  const ws = () => {
    while (text[pos] === " " || text[pos] === "\t") pos++;
  };
  const wsNl = () => {
    for (;;) {
      ws();
      if (text[pos] === "#") while (pos < text.length && text[pos] !== "\n") pos++;
      else if (text[pos] === "\n" || (text[pos] === "\r" && text[pos + 1] === "\n")) pos += text[pos] === "\r" ? 2 : 1;
      else return;
    }
  };
  const lineEnd = () => {
    ws();
    if (text[pos] === "#") while (pos < text.length && text[pos] !== "\n") pos++;
    if (text[pos] === "\r" && text[pos + 1] === "\n") pos += 2;
    else if (text[pos] === "\n") pos++;
    else if (pos < text.length) fail(`unexpected '${text[pos]}'`);
  };

  const basic = (multi: boolean): string => {
    let out = "";
    for (;;) {
      if (pos >= text.length) fail("unterminated string");
      if (multi ? text.startsWith('"""', pos) && text[pos + 3] !== '"' : text[pos] === '"') break;
      const c = text[pos]!;
      if (c === "\n" && !multi) fail("newline in a string");
      if (c !== "\\") {
        out += c;
        pos++;
        continue;
      }
      const e = text[pos + 1]!;
      if (multi && /[ \t\r\n]/.test(e)) {
        // A line-ending backslash trims the newline and leading whitespace that follow.
        pos++;
        while (/[ \t\r\n]/.test(text[pos] ?? "")) pos++;
      } else if (e === "u" || e === "U") {
        const n = e === "u" ? 4 : 8;
        const hex = text.slice(pos + 2, pos + 2 + n);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) fail("bad unicode escape");
        out += String.fromCodePoint(Number.parseInt(hex, 16));
        pos += 2 + n;
      } else if (e in ESCAPES) {
        out += ESCAPES[e];
        pos += 2;
      } else fail("bad escape");
    }
    pos += multi ? 3 : 1;
    return out;
  };

  const str = (): string => {
    if (text.startsWith('"""', pos)) {
      pos += 3;
      if (text[pos] === "\n") pos++;
      else if (text.startsWith("\r\n", pos)) pos += 2;
      return basic(true);
    }
    if (text.startsWith("'''", pos)) {
      pos += 3;
      if (text[pos] === "\n") pos++;
      else if (text.startsWith("\r\n", pos)) pos += 2;
      let close = text.indexOf("'''", pos);
      if (close < 0) fail("unterminated string");
      while (text[close + 3] === "'") close++;
      const out = text.slice(pos, close);
      pos = close + 3;
      return out;
    }
    if (text[pos] === '"') {
      pos++;
      return basic(false);
    }
    pos++;
    const close = text.indexOf("'", pos);
    if (close < 0 || text.slice(pos, close).includes("\n")) fail("unterminated string");
    const out = text.slice(pos, close);
    pos = close + 1;
    return out;
  };

  const key = (): string[] => {
    const parts: string[] = [];
    for (;;) {
      ws();
      if (text[pos] === '"' || text[pos] === "'") parts.push(str());
      else {
        const s = pos;
        while (BARE.test(text[pos] ?? "")) pos++;
        if (s === pos) fail("expected a key");
        parts.push(text.slice(s, pos));
      }
      ws();
      if (text[pos] !== ".") return parts;
      pos++;
    }
  };

  /** Steps over a value: strings by their quoting rules, arrays and inline tables item by item, anything else to the next delimiter. */
  const value = (): void => {
    const c = text[pos];
    if (c === '"' || c === "'") {
      str();
      return;
    }
    if (c === "[" || c === "{") {
      const close = c === "[" ? "]" : "}";
      pos++;
      for (;;) {
        wsNl();
        if (text[pos] === close) break;
        if (close === "}") {
          key();
          if (text[pos] !== "=") fail("expected '='");
          pos++;
          ws();
        }
        value();
        wsNl();
        if (text[pos] === ",") pos++;
        else if (text[pos] !== close) fail(`expected ',' or '${close}'`);
      }
      pos++;
      return;
    }
    const s = pos;
    const token = () => {
      while (pos < text.length && !/[\s,\]}#]/.test(text[pos]!)) pos++;
    };
    token();
    // A date and a time may be separated by one space (TOML's offset date-time).
    if (/^\d{4}-\d{2}-\d{2}$/.test(text.slice(s, pos)) && /^ \d{2}:/.test(text.slice(pos, pos + 4))) {
      pos++;
      token();
    }
    if (pos === s) fail("expected a value");
  };

  while (pos < text.length) {
    const start = pos;
    ws();
    const c = text[pos];
    if (c === undefined || c === "\n" || c === "\r" || c === "#") {
      const comment = c === "#";
      lineEnd();
      items.push({ kind: comment ? "comment" : "blank", start, end: pos, path: [], array: false });
    } else if (c === "[") {
      const array = text[pos + 1] === "[";
      pos += array ? 2 : 1;
      const path = key();
      if (text[pos] !== "]" || (array && text[pos + 1] !== "]")) fail("expected ']'");
      pos += array ? 2 : 1;
      lineEnd();
      items.push({ kind: "header", start, end: pos, path, array });
    } else {
      const path = key();
      if (text[pos] !== "=") fail("expected '='");
      pos++;
      ws();
      value();
      lineEnd();
      items.push({ kind: "kv", start, end: pos, path, array: false });
    }
  }
  return items;
}

/** The values of a whole TOML file (a blank one is an empty table); throws TomlSyntaxError on one that is not TOML 1.0. */
export function readToml(text: string): Record<string, unknown> {
  try {
    return parse(text);
  } catch (err) {
    throw new TomlSyntaxError(err instanceof Error ? err.message : String(err));
  }
}

/** A TOML basic string: JSON's escapes are TOML's, except that DEL must be escaped too. */
export function tomlString(s: string): string {
  return JSON.stringify(s).replaceAll("\u007f", "\\u007F");
}

/** A TOML key: bare when it can be. */
export function tomlKey(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k);
}
