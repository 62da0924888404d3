// The course site's search ranking (docs/conf.py, html_search_scorer): Sphinx's defaults, plus
// one rule. A page whose own title holds every word of the query ranks first. Without it,
// Sphinx's stemming ties "production" with "product", so pages about the dot product outranked
// lesson 17 ("Positions in production") for its own title (tests/test_site.py).
var Scorer = {
  score: (result) => {
    const [docname, title, anchor, descr, score, filename, kind] = result;
    const query = new URLSearchParams(window.location.search).get("q") || "";
    const words = query.toLowerCase().split(/\s+/).filter((word) => word.length > 2);
    const ownTitle = (title || "").toLowerCase();
    const named = words.length > 0 && !anchor && words.every((w) => ownTitle.includes(w));
    return named ? score + 20 : score;
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
