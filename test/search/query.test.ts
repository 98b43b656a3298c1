/** The query parser (DESIGN.md 11, "Query"): what a person types becomes terms, never FTS5 syntax, never an internal error. */
import { describe, expect, test } from "bun:test";
import { ZeroDbError } from "../../src/errors.ts";
import { MAX_TERMS, asksWhatUserSaid, asksWhatUserSaidAfter, ftsOf, orList, parseQuery, unmatchedWords, widened } from "../../src/search/query.ts";
import { synonymsOf } from "../../src/search/synonyms.ts";

const terms = (q: string) => parseQuery(q).terms.map((t) => t.text);
const fts = (q: string) => parseQuery(q).terms.map(ftsOf);

describe("asksWhatUserSaid", () => {
  test("a question about what the user or I said, asked or wanted; not one about a user table or what the agent said", () => {
    for (const q of [
      "What did the user say was wrong about the tracking file?",
      "which bead did I ask to work on?",
      "what did I type after compacting?",
      "the user wanted it built in one go",
      "what did I first tell the agent?",
      "did we request a real fix or --no-verify?",
    ])
      expect([q, asksWhatUserSaid(q)]).toEqual([q, true]);
    for (const q of ["what does the user table hold?", "what did the assistant say about the user?", "which user asked for a refund?", "the API said 404"])
      expect([q, asksWhatUserSaid(q)]).toEqual([q, false]);
  });

  test("after something: what the user said after, once or following a match; not what they said about it, nor what the agent did after", () => {
    for (const q of ["what did I type after compacting?", "what did I tell the agent once it was pushed?", "what did the user ask for next?"])
      expect([q, asksWhatUserSaidAfter(q)]).toEqual([q, true]);
    for (const q of ["What did the user say was wrong about the tracking file?", "what did the agent run after the build?", "after the deploy"])
      expect([q, asksWhatUserSaidAfter(q)]).toEqual([q, false]);
  });
});

describe("synonyms", () => {
  test("a word's group is found by its stem, both ways; words of no group have none", () => {
    expect(synonymsOf("bills")).toEqual(["invoice"]);
    expect(synonymsOf("invoice")).toEqual(["bill"]);
    expect(synonymsOf("disabled")).toContain("turn off");
    expect(synonymsOf("kubernetes")).toEqual([]);
  });

  test("a plain word carries its other words, searched only once widened; a prefix or a phrase does not", () => {
    const [bills] = parseQuery("bills").terms;
    expect(ftsOf(bills!)).toBe('"bills"');
    expect(ftsOf(widened(bills!))).toBe('("bills" OR "invoice")');
    expect(widened(bills!).related).toBeUndefined();
    // A member of several words is found as those words side by side.
    expect(ftsOf(widened(parseQuery("disable").terms[0]!))).toContain('"turn off"');
    expect(parseQuery("bill*").terms[0]!.related).toBeUndefined();
    expect(parseQuery('"bills"').terms[0]!.related).toBeUndefined();
    expect(widened(parseQuery("kubernetes").terms[0]!)).toEqual(parseQuery("kubernetes").terms[0]!);
  });
});

describe("unmatchedWords", () => {
  test("the asked words when no hit matched any of them; nothing when one did, when only stopwords were asked, or nothing hit", () => {
    expect(unmatchedWords("what broke when the clock changed", [{ matched: ["the"] }, { matched: ["when", "the"] }])).toEqual(["broke", "clock", "changed"]);
    expect(unmatchedWords("what broke when the clock changed", [{ matched: ["the"] }, { matched: ["clock"] }])).toEqual([]);
    expect(unmatchedWords("what is it", [{ matched: ["it"] }])).toEqual([]);
    expect(unmatchedWords("broke clock", [])).toEqual([]);
    expect(unmatchedWords("!!!", [{ matched: [] }])).toEqual([]);
    expect([orList(["a"]), orList(["a", "b"]), orList(["a", "b", "c"])]).toEqual(["a", "a or b", "a, b or c"]);
  });
});

describe("parseQuery", () => {
  test("stopwords are dropped from a question, kept when nothing else is left", () => {
    expect(terms("why did we turn off the retry in the upload client?")).toEqual(["turn", "off", "retry", "upload", "client"]);
    expect(terms("what is it")).toEqual(["what", "is", "it"]);
    expect(parseQuery("what is the deploy key").all.map((t) => t.text)).toEqual(["what", "is", "the", "deploy", "key"]);
  });

  test("quoted phrases and prefixes keep their meaning", () => {
    expect(fts('"staging deploy" time*')).toEqual(['"staging deploy"', '"time"*']);
    expect(parseQuery('"staging deploy"').terms[0]!.kind).toBe("phrase");
    expect(parseQuery("deplo*").terms[0]!.kind).toBe("prefix");
    // An unclosed quote runs to the end; an empty phrase is nothing.
    expect(fts('"open quote')).toEqual(['"open quote"']);
    expect(fts('"" deploy')).toEqual(['"deploy"']);
  });

  test("identifiers: joined parts are a phrase, camelCase also finds its parts written apart", () => {
    expect(fts("upload_retry_count")).toEqual(['"upload retry count"']);
    expect(fts("uploadRetryCount")).toEqual(['("uploadretrycount" OR "upload retry count")']);
    expect(terms("uploadRetryCount")).toEqual(["uploadRetryCount"]);
  });

  test("prose compounds joined by hyphens are words; identifiers with digits or other joiners stay phrases", () => {
    expect(fts("one-time DOM-based follow-up")).toEqual(['"one"', '"time"', '"dom"', '"based"', '"follow"', '"up"']);
    expect(fts("spotter-a0y utf-8 col:x a.b-c")).toEqual(['"spotter a0y"', '"utf 8"', '"col x"', '"a b c"']);
  });

  test("CJK text: each bigram is a term, kana-only bigrams are stopwords", () => {
    expect(fts("天気")).toEqual(['"天気"']);
    expect(fts("都")).toEqual(['"都"']);
    expect(terms("署名検証")).toEqual(["署名", "名検", "検証"]);
    expect(terms("署名の検証")).toEqual(["署名", "名の", "の検", "検証"]);
  });

  test("Chinese question words and particles make stopword bigrams: a question keeps only what it asks about", () => {
    expect(terms("内存是怎么涨的")).toEqual(["内存", "存是", "么涨", "涨的"]);
    expect(terms("什么是索引")).toEqual(["是索", "索引"]);
    // Only question words: they are searched rather than nothing.
    expect(terms("怎么")).toEqual(["怎么"]);
  });

  test("FTS5 operators, column filters and punctuation in user text are plain words", () => {
    expect(fts("deploy AND key")).toEqual(['"deploy"', '"key"']);
    expect(fts("NEAR(x y) col:x ^start -not +plus")).toEqual(['"near"', '"x"', '"y"', '"col x"', '"start"', '"not"', '"plus"']);
    expect(fts('find "x""y"')).toEqual(['"find"', '"x"', '"y"']);
  });

  test("no word at all is invalid_input naming the query", () => {
    for (const q of ["", "   ", "!!! ??? ...", "* ** ***", '""', "\u0000\u0001\u007f"]) {
      let err: unknown;
      try {
        parseQuery(q);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(q)).toBeInstanceOf(ZeroDbError);
      expect((err as ZeroDbError).code).toBe("invalid_input");
      expect((err as ZeroDbError).field).toBe("query");
    }
  });

  test("10,000 words and control characters: bounded, no error", () => {
    const long = Array.from({ length: 10_000 }, (_, i) => `w${i}`).join(" ");
    expect(parseQuery(long).terms.length).toBe(MAX_TERMS);
    expect(terms("deploy\u0000key\u001b[31m")).toEqual(["deploy", "key", "31m"]);
    // Repeated words are one term.
    expect(terms("deploy deploy Deploy")).toEqual(["deploy"]);
  });
});
