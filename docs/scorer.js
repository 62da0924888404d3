// The course site's search ranking (docs/conf.py, html_search_scorer): Sphinx's defaults, plus
// one rule. A page whose own title holds every word of the query ranks first. Without it,
// Sphinx's stemming ties "production" with "product", so pages about the dot product outranked
// lesson 17 ("Positions in production") for its own title (tests/test_site.py). Among such
// pages (less than a point: it breaks their ties, nothing else), a lesson ranks before a worked
// solution, and the lesson whose title the query fills more first: 位置エンコーディング is more of
// lesson 03's title (正弦波位置エンコーディング) than of lesson 02's (素朴な位置エンコーディング方式),
// which Sphinx's tie-break (the titles' alphabetical order) would rank first.
var Scorer = {
  score: (result) => {
    const [docname, title, anchor, descr, score, filename, kind] = result;
    const query = new URLSearchParams(window.location.search).get("q") || "";
    const words = query.toLowerCase().split(/\s+/).filter((word) => word.length > 2);
    const ownTitle = (title || "").toLowerCase();
    const named = words.length > 0 && !anchor && words.every((w) => ownTitle.includes(w));
    if (!named) return score;
    const filled = words.reduce((n, w) => n + w.length, 0) / Math.max(ownTitle.length, 1);
    return score + 20 + (docname.startsWith("solutions/") ? 0 : Math.min(filled, 1) / 2);
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
