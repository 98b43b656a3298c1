/**
 * Words a question is built from but that say nothing about what it asks
 * (DESIGN.md 11): dropped from a query unless nothing else is left. Kept
 * short on purpose: negations and words such as `off`, `down` or `why` that
 * can carry the meaning of a technical sentence stay searchable when a turn
 * holds them, since rare words weigh more than common ones anyway.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are aren't as at be because been before being below between both but by " +
    "can can't cannot could couldn't did didn't do does doesn't doing don't during each few for from further had hadn't has hasn't " +
    "have haven't having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is " +
    "isn't it it's its itself let's me more most my myself of once only or other ought our ours ourselves own same she she'd " +
    "she'll she's should shouldn't so some such than that that's the their theirs them themselves then there there's these they " +
    "they'd they'll they're they've this those through to too under until very was wasn't we we'd we'll we're we've were weren't " +
    "what what's when when's where where's which while who who's whom why why's with won't would wouldn't you you'd you'll you're " +
    "you've your yours yourself yourselves also just ever get got tell told remember recall said say says please know anything something thing things " +
    "many much " +
    "s t d ll m re ve"
  ).split(" "),
);

/** True when a (lower-cased) word is a stopword. */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.replace(/[’]/g, "'"));
}
