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

  test("consecutive query words side by side, in the query's order, count as pairs, on both paths", () => {
    const words = parseQuery("upload retry client").terms;
    const w = [1, 1, 1];
    expect(countTerms(words, "the upload-retry of the client", w).pairs).toBe(0.5);
    expect(countTerms(words, "Upload, retry: client.", w).pairs).toBe(1);
    expect(countTerms(words, "client retry upload, in reverse", w).pairs).toBe(0);
    expect(countTerms(words, "upload the retry then the client", w).pairs).toBe(0);
    // Weighed by the rarer word of each pair.
    expect(countTerms(words, "the upload retry, then the client", [1, 3, 1]).pairs).toBe(0.5);
    // A phrase in the query takes the token path: positions are tokens.
    const phrased = parseQuery('"upload retry" client').terms;
    expect(countTerms(phrased, "an upload retry client here", [1, 1]).pairs).toBe(1);
    expect(countTerms(phrased, "an upload retry for the client", [1, 1]).pairs).toBe(0);
    expect(countTerms(parseQuery("upload").terms, "upload", [1]).pairs).toBe(0);
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
