/** The index text and its tokens (DESIGN.md 11, "Index"): what a person reads, near forms, CJK, identifiers. */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { indexBody, indexText } from "../../src/search/text.ts";
import { tokenize } from "../../src/search/tokens.ts";

const words = (s: string) => tokenize(indexText(s)).map((t) => t.folded);

describe("indexText", () => {
  test("a tool input is indexed as its decoded strings, not JSON: no 'n' glued onto the next word", () => {
    const content = '[tool_use Bash]\n{"command":"ls -la\\nImportant: check \\"quoted\\" caf\\u00e9","description":"List files"}';
    const w = words(content);
    expect(w).toContain("important");
    expect(w).not.toContain("nimportant");
    expect(w).toContain("cafe");
    expect(w).toContain("quoted");
    // Keys are structure, not what was said.
    expect(w).not.toContain("command");
    expect(w).not.toContain("description");
  });

  test("escapes left in text that is not a whole JSON line are decoded too", () => {
    expect(words('partial {"a":"one\\ntwo')).toEqual(["partial", "a", "one", "two"]);
  });

  test("CJK runs become bigrams (and single characters after the text)", () => {
    expect(indexText("東京都の天気")).toBe(" 東京 京都 都の の天 天気 \n東 京 都 の 天 気");
    expect(words("Bun環境")).toEqual(["bun", "環境", "環", "境"]);
  });

  test("identifiers are indexed whole and by their parts; long runs are not split", () => {
    expect(words("uploadRetryCount HTTPServer http2")).toEqual([
      "uploadretrycount",
      "httpserver",
      "http2",
      "upload",
      "retry",
      "count",
      "http",
      "server",
      "http",
      "2",
    ]);
    expect(words(`a${"B".repeat(100)}c`)).toHaveLength(1);
  });

  test("identifier parts are those of testing every word for a step (the index text is versioned: it must not drift)", () => {
    // The way indexText found them before one expression did: every word, tested for an inner step.
    const STEP = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|\p{L}\p{N}|\p{N}\p{L}/u;
    const PART = /\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{N}+|\p{L}+/gu;
    const parts = (text: string) =>
      [...text.matchAll(/[\p{L}\p{N}]+/gu)]
        .map((m) => m[0])
        .filter((w) => w.length <= 64 && STEP.test(w))
        .map((w) => w.match(PART)!)
        .filter((p) => p.length > 1)
        .map((p) => p.join(" "))
        .join(" ");
    // Letters of several scripts and cases, digits, separators (CJK runs are split apart first: their own test above).
    // Past ASCII: upper and lower, title case (ǅ), modifier (ʰ) and other letters (ا), digits of other
    // scripts (٣, Ⅻ, ²), a combining mark, astral letters (𝒜 upper, 𝒶 lower) and a lone surrogate.
    const alphabet = [
      "a",
      "b",
      "Z",
      "Q",
      "1",
      "9",
      " ",
      "_",
      "-",
      "é",
      "É",
      "ß",
      ".",
      "𝒜",
      "𝒶",
      "٣",
      "Ⅻ",
      "²",
      "ǅ",
      "ʰ",
      "ا",
      "\u0301",
      "\ud800",
      "x",
      "Y",
      "\n",
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0);
    for (let n = 0; n < 20_000; n++) {
      let text = "";
      for (let i = 0, len = 1 + (next() % 40); i < len; i++) text += alphabet[next() % alphabet.length];
      // The parts are the line after the text.
      const extra = indexText(text).slice(text.length + 1);
      expect(extra, JSON.stringify(text)).toBe(parts(text));
    }
    // ASCII alone (its own path: the regex engine finds the stepped words), words up to past the 64-character limit.
    const ascii = ["a", "b", "z", "A", "B", "Z", "0", "1", "9", " ", "_", "-", ".", "/", "\n"];
    for (let n = 0; n < 20_000; n++) {
      let text = "";
      for (let i = 0, len = 1 + (next() % 90); i < len; i++) text += ascii[next() % (n % 2 === 0 ? ascii.length : 9)];
      const extra = indexText(text).slice(text.length + 1);
      expect(extra, JSON.stringify(text)).toBe(parts(text));
    }
  });

  test("CJK beside letters and digits gives the tokens it gave when a separate pass spaced their edges", () => {
    // The way indexText spaced CJK runs before the run's own replacement did (tokens, not spaces, are what the index holds).
    const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}ー々〆";
    const EDGE = new RegExp(`(?<=[${CJK}])(?=[\\p{L}\\p{N}])(?![${CJK}])|(?<=[\\p{L}\\p{N}])(?<![${CJK}])(?=[${CJK}])`, "gu");
    const alphabet = ["東", "京", "の", "テ", "ー", "々", "a", "Z", "1", "é", " ", "x", "Bun", "\n", "。", "ト"];
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0);
    for (let n = 0; n < 5_000; n++) {
      let text = "";
      for (let i = 0, len = 1 + (next() % 30); i < len; i++) text += alphabet[next() % alphabet.length];
      // The body is where CJK is spaced (identifier parts come from the text before it, unchanged).
      const body = (t: string) => tokenize(indexBody(t)).map((w) => w.folded);
      expect(body(text), JSON.stringify(text)).toEqual(body(text.replace(EDGE, " ")));
    }
  });

  test("a 3 MiB run of one letter, of CJK or of brackets is indexed (linear work, no stack overflow)", () => {
    for (const s of ["x".repeat(3 << 20), "東".repeat(1 << 19), "[".repeat(1 << 20), "aB".repeat(1 << 20)]) expect(indexText(s).length).toBeGreaterThan(0);
  });
});

describe("tokens agree with SQLite's porter unicode61 remove_diacritics 2", () => {
  // (SQLite also stems words with non-ASCII letters, "straße" to "straß"; ours leaves them whole. That
  // only changes how a hit counts such a word, not whether the index finds it.)
  test("the JavaScript stems are the index's terms, for near forms and diacritics", () => {
    const text =
      "reconnect Reconnected reconnecting permission permissions keys key deployed deploying deployment timeouts configuration " +
      "generalization relational conditional running flies dying agreed happily sensational university caresses ponies " +
      "naïve café Ångström résumé über 東京 イベント 123abc abc123 v2 x86_64";
    const db = new Database(":memory:");
    db.run("CREATE VIRTUAL TABLE w USING fts5 (b, content = '', tokenize = 'porter unicode61 remove_diacritics 2')");
    db.run("CREATE VIRTUAL TABLE v USING fts5vocab (w, 'row')");
    db.query("INSERT INTO w (rowid, b) VALUES (1, ?)").run(text);
    const sqlite = (db.query("SELECT term FROM v ORDER BY term").all() as { term: string }[]).map((r) => r.term);
    const ours = [...new Set(tokenize(text).map((t) => t.stem))].sort();
    expect(ours).toEqual(sqlite);
    db.close();
  });

  test("near forms share a stem", () => {
    const stemOf = (w: string) => tokenize(w)[0]!.stem;
    expect(stemOf("reconnect")).toBe(stemOf("Reconnected"));
    expect(stemOf("permission")).toBe(stemOf("permissions"));
    expect(stemOf("keys")).toBe(stemOf("key"));
  });
});
