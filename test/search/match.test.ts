/** Counting and marking query words in a turn's text (src/search/match.ts, snippet.ts). */
import { describe, expect, test } from "bun:test";
import { countTerms, termSpans } from "../../src/search/match.ts";
import { parseQuery } from "../../src/search/query.ts";
import { snippet } from "../../src/search/snippet.ts";

describe("query words in a text", () => {
  test("a word is counted for its own term when an earlier term's pattern also fits its start (form, format)", () => {
    const { terms } = parseQuery("form format");
    const text = "the format of the form; formats differ";
    expect(countTerms(terms, text, [1, 1]).tf).toEqual([1, 2]);
    expect(termSpans(terms, text, 10).map((s) => text.slice(s.start, s.end))).toEqual(["format", "form", "formats"]);
    expect(snippet(text, { terms, weights: [1, 1], more: false })).toBe("the [format] of the [form]; [formats] differ");
  });

  test("a prefix term and a word term sharing a start each get their words, as the index's stems say", () => {
    // Porter: deploying -> deploi (the prefix deploy* -> deploi*), deployment -> deploy.
    const { terms } = parseQuery("deploy* deployment");
    const text = "deploying now; the deployment failed";
    expect(countTerms(terms, text, [1, 1]).tf).toEqual([1, 1]);
    expect(termSpans(terms, text, 10).map((s) => [text.slice(s.start, s.end), s.term])).toEqual([
      ["deploying", 0],
      ["deployment", 1],
    ]);
  });

  test("positions are the text's own, escapes included, and a word after an escaped newline is found", () => {
    const { terms } = parseQuery("important");
    const text = 'a\\nImportant: {"x":"\\nimportant"}';
    const spans = termSpans(terms, text, 10);
    expect(spans.map((s) => text.slice(s.start, s.end))).toEqual(["Important", "important"]);
    expect(snippet(text, { terms, weights: [1], more: false })).toBe('a\\n[Important]: {"x":"\\n[important]"}');
  });

  test("phrases take the token path and still mark the text", () => {
    const { terms } = parseQuery('"retry budget" upload');
    const text = "the upload client keeps a retry budget of three";
    expect(termSpans(terms, text, 10).map((s) => [text.slice(s.start, s.end), s.term])).toEqual([
      ["upload", 1],
      ["retry", 0],
      ["budget", 0],
    ]);
  });

  test("at most `max` spans", () => {
    const { terms } = parseQuery("alpha");
    expect(termSpans(terms, "alpha ".repeat(1000), 256).length).toBe(256);
  });
});
