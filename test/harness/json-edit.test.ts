/** In-place JSON/JSONC edits: everything but the edited path keeps its bytes. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { JsonEditError, editJson } from "../../src/harness/json-edit.ts";
import { JsonSyntaxError, parseJson, toValue } from "../../src/harness/jsonc.ts";

const ENTRY = { command: "/opt/zerodb", args: ["mcp"], env: { ZERODB_MANAGED: "1" } };
const PATH = ["mcpServers", "zerodb"];

const parse = (text: string, jsonc = true) => toValue(parseJson(text, { jsonc }).root);

/** `after` is `before` with insertions only: every character of the original is kept, in order. */
function onlyInserts(before: string, after: string): boolean {
  let i = 0;
  for (let j = 0; j < after.length && i < before.length; j++) if (after[j] === before[i]) i++;
  return i === before.length;
}

describe("add then remove gives the original bytes back", () => {
  const files: Record<string, string> = {
    "two-space, other server": `{\n  "a": 1,\n  "mcpServers": {\n    "other": {\n      "command": "x"\n    }\n  }\n}\n`,
    "four-space": `{\n    "mcpServers": {\n        "other": {"command": "x"}\n    },\n    "theme": "dark"\n}\n`,
    tabs: `{\n\t"mcpServers": {\n\t\t"other": {"command": "x"}\n\t}\n}`,
    crlf: `{\r\n  "x": true,\r\n  "mcpServers": {\r\n    "other": {}\r\n  }\r\n}\r\n`,
    "line comment after last member": `{\n  "a": 1, // why a is 1\n  "mcpServers": {\n    "other": {} // keep me\n  }\n}\n`,
    "block comments": `/* head */\n{\n  /* before */ "mcpServers": {\n    "other": {}\n  }\n}\n`,
    "trailing comma (JSONC)": `{\n  "mcpServers": {\n    "other": {},\n  },\n}\n`,
    minified: `{"a":1,"mcpServers":{"other":{"command":"x"}}}`,
    "spaced one-liner": `{"a": 1, "mcpServers": {"other": {"command": "x"}}}`,
    "other server after a comment-only body": `{\n  "mcpServers": {\n    // nothing yet\n    "other": {}\n  }\n}\n`,
  };
  for (const [name, text] of Object.entries(files)) {
    test(name, () => {
      const added = editJson(text, PATH, ENTRY, { jsonc: true });
      expect(parse(added)).toEqual({ ...(parse(text) as object), mcpServers: { ...((parse(text) as any).mcpServers ?? {}), zerodb: ENTRY } });
      expect(onlyInserts(text, added)).toBe(true);
      expect(editJson(added, PATH, ENTRY, { jsonc: true })).toBe(added);
      expect(editJson(added, PATH, undefined, { jsonc: true })).toBe(text);
    });
  }
});

describe("layout of what is added", () => {
  test("indentation, line endings and compactness follow the file", () => {
    expect(editJson(`{\n\t"a": 1\n}`, PATH, { x: 1 }, { jsonc: false })).toBe(`{\n\t"a": 1,\n\t"mcpServers": {\n\t\t"zerodb": {\n\t\t\t"x": 1\n\t\t}\n\t}\n}`);
    expect(editJson(`{\r\n    "a": 1\r\n}\r\n`, PATH, { x: 1 }, { jsonc: false })).toBe(
      `{\r\n    "a": 1,\r\n    "mcpServers": {\r\n        "zerodb": {\r\n            "x": 1\r\n        }\r\n    }\r\n}\r\n`,
    );
    expect(editJson(`{"a":1}`, PATH, { x: 1 }, { jsonc: false })).toBe(`{"a":1,"mcpServers":{"zerodb":{"x":1}}}`);
  });

  test("an empty or missing file becomes a pretty new document", () => {
    expect(editJson("", PATH, { x: 1 }, { jsonc: false })).toBe(`{\n  "mcpServers": {\n    "zerodb": {\n      "x": 1\n    }\n  }\n}\n`);
    expect(editJson("{}", PATH, { x: 1 }, { jsonc: false })).toBe(`{\n  "mcpServers": {\n    "zerodb": {\n      "x": 1\n    }\n  }\n}`);
  });

  test("an empty container in a pretty file opens up, and closes again on removal", () => {
    const text = `{\n  "mcpServers": {},\n  "b": 2\n}\n`;
    const added = editJson(text, PATH, { x: 1 }, { jsonc: false });
    expect(added).toBe(`{\n  "mcpServers": {\n    "zerodb": {\n      "x": 1\n    }\n  },\n  "b": 2\n}\n`);
    expect(editJson(added, PATH, undefined, { jsonc: false })).toBe(text);
  });

  test("a comment closing the last member's line stays on that line", () => {
    const added = editJson(`{\n  "a": 1 // note\n}\n`, ["b"], 2, { jsonc: true });
    expect(added).toBe(`{\n  "a": 1, // note\n  "b": 2\n}\n`);
  });

  test("replacing a value keeps the bytes around it", () => {
    const text = `{\n  // top\n  "mcpServers": {\n    "zerodb": {"command": "/old"}, // mine\n    "z": {}\n  }\n}\n`;
    const out = editJson(text, PATH, { command: "/new" }, { jsonc: true });
    expect(out).toBe(`{\n  // top\n  "mcpServers": {\n    "zerodb": {\n      "command": "/new"\n    }, // mine\n    "z": {}\n  }\n}\n`);
  });

  test("removing a member in the middle or at the start", () => {
    const text = `{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}\n`;
    expect(editJson(text, ["b"], undefined, { jsonc: false })).toBe(`{\n  "a": 1,\n  "c": 3\n}\n`);
    expect(editJson(text, ["a"], undefined, { jsonc: false })).toBe(`{\n  "b": 2,\n  "c": 3\n}\n`);
    expect(editJson(`{"a":1,"b":2,"c":3}`, ["b"], undefined, { jsonc: false })).toBe(`{"a":1,"c":3}`);
    expect(editJson(text, ["nope"], undefined, { jsonc: false })).toBe(text);
  });

  test("arrays: append and remove items", () => {
    const text = `{\n  "hooks": [\n    1\n  ]\n}\n`;
    const out = editJson(text, ["hooks", 1], { x: 2 }, { jsonc: false });
    expect(parse(out)).toEqual({ hooks: [1, { x: 2 }] });
    expect(editJson(out, ["hooks", 1], undefined, { jsonc: false })).toBe(text);
    expect(() => editJson(text, ["hooks", 5], 1, { jsonc: false })).toThrow(JsonEditError);
  });
});

describe("refusals", () => {
  test("a path through a non-object is an error, not a rewrite", () => {
    expect(() => editJson(`{"mcpServers": "oops"}`, PATH, ENTRY, { jsonc: false })).toThrow(JsonEditError);
    expect(() => editJson(`[1, 2]`, PATH, ENTRY, { jsonc: false })).toThrow(JsonEditError);
  });

  test("malformed files are refused with the line and column", () => {
    for (const bad of [`{"mcpServers": {`, `{"a": 1,}`, `{"a" 1}`, `{"a": tru}`, `{"a": "x\ny"}`, `{} {}`, `// c\n{}`]) {
      expect(() => editJson(bad, PATH, ENTRY, { jsonc: false })).toThrow(JsonSyntaxError);
    }
    expect(() => parseJson(`{\n  "a": 1,\n  oops\n}`, { jsonc: false })).toThrow("line 3, column 3");
    expect(() => parseJson("[".repeat(10_000), { jsonc: false })).toThrow("nesting too deep");
    // Whitespace JSON does not allow (a vertical tab, a no-break space) is refused in a strict file.
    for (const bad of [`{"a":\u000b1}`, `{"a":\u00a01}`]) expect(() => parseJson(bad, { jsonc: false })).toThrow(JsonSyntaxError);
  });

  test("a byte-order mark is kept and does not shift the edit", () => {
    const text = `\ufeff{\n  "a": 1\n}\n`;
    expect(toValue(parseJson(text, { jsonc: false }).root)).toEqual({ a: 1 });
    expect(editJson(text, ["b"], 2, { jsonc: false })).toBe(`\ufeff{\n  "a": 1,\n  "b": 2\n}\n`);
  });

  test("JSONC only where the harness reads it", () => {
    expect(() => parseJson(`{"a": 1, // c\n}`, { jsonc: false })).toThrow(JsonSyntaxError);
    expect(parse(`{"a": 1, // c\n}`, true)).toEqual({ a: 1 });
  });

  test("a key named __proto__ is data, as JSON.parse reads it", () => {
    const text = `{"__proto__": {"x": 1}, "a": 2}`;
    expect(parse(text)).toEqual(JSON.parse(text));
    expect(parse(editJson(text, PATH, ENTRY, { jsonc: false }))).toEqual({ ...JSON.parse(text), mcpServers: { zerodb: ENTRY } });
  });
});

test("property: any JSON object, any indentation: add keeps the rest, remove restores the value", () => {
  const key = fc.string({ maxLength: 8 }).filter((k) => k !== "mcpServers" && k !== "__proto__");
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(key, tie("value"), { maxKeys: 3 }),
    ),
  })).value;
  fc.assert(
    fc.property(fc.dictionary(key, json, { maxKeys: 5 }), fc.constantFrom(0, 2, 4, "\t"), fc.boolean(), (obj, indent, servers) => {
      const value: Record<string, unknown> = servers ? { ...obj, mcpServers: { other: { command: "x" } } } : obj;
      const text = JSON.stringify(value, null, indent);
      const added = editJson(text, PATH, ENTRY, { jsonc: false });
      const parsed = JSON.parse(added);
      expect(parsed.mcpServers.zerodb).toEqual(ENTRY);
      delete parsed.mcpServers.zerodb;
      if (!servers) delete parsed.mcpServers;
      expect(parsed).toEqual(JSON.parse(text));
      const removed = editJson(added, PATH, undefined, { jsonc: false });
      const back = JSON.parse(removed);
      if (!servers) delete back.mcpServers;
      expect(back).toEqual(JSON.parse(text));
      if (servers) expect(removed).toBe(text);
    }),
    { numRuns: 300 },
  );
});
