"""Sphinx configuration of the course's static site: the one place where the site is set up.

Build it with ``python scripts/build_site.py`` (see that script): it stages ``docs/index.md`` and
the course's notebooks and markdown pages into a source folder and runs ``sphinx-build -c docs``
on it. What this file decides:

- **Pages.** MyST-NB renders the lessons and worked solutions from their committed outputs
  (execution off: the site shows exactly what nbval tests). ``docs/index.md`` orders the left
  sidebar: lessons, worked solutions, glossary, FAQ and references, lecture material
  (``notebooks/lecture_plan.md`` when it exists), the guides for lecturers and maintainers. The lecturers' speaker notes
  (``notebooks/lectures/``) hold answers and are never part of the site (``exclude_patterns``
  here, and the build script does not stage them either).
- **Offline.** No page loads anything from the network: MathJax 2.7 comes from the pinned
  ``jupyter-server-mathjax`` package (HTML-CSS output, its STIX-Web fonts copied too), MyST-NB's
  widget scripts are off (widget cells show a placeholder saying to run the notebook in
  Jupyter), search summaries are off (Sphinx fetches them with ``fetch()``, which browsers refuse
  on ``file://``), and there are no launch buttons.
- **Sanitised.** Notebook outputs are rendered without ``text/html`` or
  ``application/javascript`` (their ``text/plain`` or image fallback is shown), and raw HTML in
  markdown goes through an allow-list (:func:`sanitise_raw_html`): no script, event handler or
  ``javascript:`` link from a notebook reaches a page.
- **Links.** arXiv identifiers, DOIs and GitHub threads ("owner/repo, issue #N") in the
  references and glossary become links; every glossary term gets an anchor:
  ``glossary.html#term-causal-mask`` for the term **Causal mask (look-ahead mask).**, and
  ``glossary.html#symbol-omega-k`` for the symbol row ``$\\omega_k$``.
- Every lesson page has a short "Run this lesson" note under its title (:func:`add_run_note`).
- **Editions.** ``COURSE_SITE_LANG`` (set by ``build_site.py``; default ``en``) picks the
  edition: the English site at the root of the build, each translated edition (built from
  ``scripts/build_translation.py``'s notebooks) in a folder named by its language, e.g. ``zh_CN/``.
  The site's own strings (:data:`SITE_TEXT`) are translated in ``locale/<lang>/LC_MESSAGES/docs/
  conf.po``; Sphinx and the theme bring their own translations; every page carries a language
  switch (:func:`add_language_links`) to the same page in every other edition; Chinese search
  splits words with ``jieba`` and a user dictionary made of the terminology list, so that 位置编码
  is one word; Japanese search with Sphinx's own TinySegmenter, the terms of the list kept whole
  (``scripts/_search_ja.py``: 位置エンコーディング, 系列長, 底); in both, a query typed without
  spaces is cut into the longest words the index holds (:data:`CJK_QUERY_SPLITTER`).
"""

from __future__ import annotations

import os
import re
import sys
from html import escape as html_escape
from pathlib import Path

from docutils import nodes
from myst_nb.core.render import NbElementRenderer

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT / "scripts"))
from _offline_html import vendor_assets  # noqa: E402
from build_translation import EDITIONS, translations  # noqa: E402
from i18n import jieba_dictionary, languages  # noqa: E402

# ---------------------------------------------------------------- editions
# The site's own words; each is a message of the catalogue locale/<lang>/LC_MESSAGES/docs/conf.po
# (scripts/i18n.py extracts this dict). {icon} and {helpers} are filled in by add_run_note.
SITE_TEXT = {
    "title": "Position in Transformers, from first principles",
    "authors": "the course's authors",
    "copyright": "the course's authors; code MIT, prose and figures CC BY 4.0",
    "widget": "[interactive widget: run this notebook in Jupyter to use it]",
    "run_title": "Run this lesson",
    "run_body": (
        "This page shows the notebook with its committed outputs. To run it, download it with the "
        "{icon} button at the top (.ipynb), but run it inside a copy of the course: it imports the "
        "course's own {helpers} package. Clone the course, then from its folder:"
    ),
    "languages": "Other editions of this page",
}
SITE_LANG = os.environ.get("COURSE_SITE_LANG", "en")
EDITION = EDITIONS[SITE_LANG]


def _site_text(lang: str) -> dict[str, str]:
    """:data:`SITE_TEXT` in ``lang`` (English where its catalogue has no finished translation)."""
    if lang == "en":
        return dict(SITE_TEXT)
    table = translations(Path("docs/conf.py"), lang)
    return {key: table.get(text) or text for key, text in SITE_TEXT.items()}


TEXT = _site_text(SITE_LANG)
project = TEXT["title"]
author = TEXT["authors"]
copyright = TEXT["copyright"]
language = EDITION.sphinx

extensions = ["myst_nb", "sphinx_copybutton", "sphinx.ext.mathjax"]
root_doc = "index"
exclude_patterns = [
    "lectures",
    "lectures/**",  # speaker notes with the answers: never on the site
    "**/.ipynb_checkpoints",
    "_build",
]

# ---------------------------------------------------------------- notebooks (MyST-NB)
nb_execution_mode = "off"  # show the committed outputs, the ones nbval checks
nb_ipywidgets_js = {}  # no widget manager from a CDN
nb_mime_priority_overrides = [
    ("html", "text/html", None),
    ("html", "application/javascript", None),
]
WIDGET_PLACEHOLDER = TEXT["widget"]


def _widget_placeholder(self, data) -> list[nodes.Element]:
    """A widget view (a slider, a progress bar) cannot work on a static page: say so."""
    return [nodes.paragraph("", WIDGET_PLACEHOLDER, classes=["widget-placeholder"])]


# MyST-NB writes a <script> for the widget manager here; the course site shows the placeholder.
NbElementRenderer.render_widget_view = _widget_placeholder
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3  # [text](03_x.ipynb#a-section) links resolve

# ---------------------------------------------------------------- theme
html_theme = "sphinx_book_theme"
html_title = project
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["course.css"]
html_show_search_summary = False  # summaries use fetch(), refused on file://
html_search_scorer = str(DOCS / "scorer.js")  # a page named by every query word ranks first
html_copy_source = True  # _sources/NN_x.ipynb: the download button's target
html_show_sourcelink = False
html_last_updated_fmt = None
html_context = {"default_mode": "light"}  # else the theme logs "invalid theme mode" once
html_theme_options = {
    "use_download_button": True,
    "use_repository_button": False,
    "use_edit_page_button": False,
    "use_issues_button": False,
    "use_fullscreen_button": False,
    "launch_buttons": {},
    "show_toc_level": 2,
    "home_page_in_toc": True,
    "navigation_with_keys": False,
    "article_header_end": ["language-switch.html", "article-header-buttons.html"],
}
# A reader types 因果掩码 (or 回転位置埋め込み) without spaces; the index holds the words the
# splitter cut it into (因果, 掩码). Cut a run of Chinese or Japanese (Han, kana and the long-vowel
# mark ー) the index does not hold whole into the longest words it does hold (every word must then
# match, as for "causal mask"); a lone character it lacks is dropped.
CJK_QUERY_SPLITTER = r"""
var splitQuery = (query) => {
  const index = (typeof Search !== "undefined" && Search._index) || {};
  const known = (word) => word in (index.terms || {}) || word in (index.titleterms || {});
  const words = [];
  for (const part of query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu)) {
    if (!part) continue;
    const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc]/u;
    if (!cjk.test(part) || known(part.toLowerCase())) { words.push(part); continue; }
    for (let start = 0; start < part.length; ) {
      let end = part.length;
      while (end > start + 1 && !known(part.slice(start, end).toLowerCase())) end--;
      if (end > start + 1 || known(part[start])) words.push(part.slice(start, end));
      start = end;
    }
  }
  return words;
};
"""
if SITE_LANG.startswith("zh"):  # Chinese words split by jieba, the course's terms kept whole
    import logging

    import jieba
    import sphinx.search
    from sphinx.search.zh import SearchChinese

    jieba.setLogLevel(logging.WARNING)  # not its "Building prefix dict" lines on every build

    class CourseSearchChinese(SearchChinese):
        """Sphinx 9.0.4's Chinese search ships the English stemmer (english-stemmer.js) but
        names it ``ChineseStemmer`` in language_data.js, so every search stops with a
        ReferenceError (sphinx-doc/sphinx, issue #14229, fixed after 9.0.4 by deriving the
        class from the stemmer's file name): name it as its file does."""

        language_name = "English"
        js_splitter_code = CJK_QUERY_SPLITTER

    sphinx.search.languages["zh"] = CourseSearchChinese
    html_search_language = "zh"
    html_search_options = {"dict": str(jieba_dictionary(SITE_LANG))}
elif SITE_LANG == "ja":  # TinySegmenter (inside Sphinx), the course's terms kept whole
    import sphinx.search
    from _search_ja import CourseSearchJapanese

    class CourseSearch(CourseSearchJapanese):
        js_splitter_code = CJK_QUERY_SPLITTER

    sphinx.search.languages["ja"] = CourseSearch
    html_search_language = "ja"
    html_search_options = {}

# Sphinx 9.0.4's Japanese catalogue (sphinx.js) translates "Search finished, found one page ..."
# by an empty string, so its search page says nothing once results are listed: fill the
# message in (after translations.js, before any search runs).
JAPANESE_SEARCH_SUMMARY = r"""
(() => {
  const key = "Search finished, found one page matching the search query.";
  if (!(Documentation.TRANSLATIONS[key] || [""])[0])
    Documentation.TRANSLATIONS[key] = ["検索が完了しました。${resultCount} ページが見つかりました。"];
})();
"""

# ---------------------------------------------------------------- math, offline
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"  # in _static/
mathjax2_config = {
    # MyST marks notebook sections tex2jax_ignore (no stray $ in text is typeset); the math
    # nodes it writes carry the class "math" and are typeset wherever they are.
    "tex2jax": {"ignoreClass": "tex2jax_ignore|mathjax_ignore|highlight", "processClass": "math"},
    "TeX": {"extensions": ["noErrors.js", "noUndefined.js"]},
    "HTML-CSS": {
        "availableFonts": [],
        "webFont": "STIX-Web",  # the one web font jupyter-server-mathjax ships
        "imageFont": None,
        "preferredFont": None,
        "linebreaks": {"automatic": False},
        # MathJax's blank test font is url('about:blank'), which Chromium refuses (a CORS
        # console error) on file:// pages; a local() source is never fetched.
        "styles": {
            "@font-face": {"font-family": "MathJax_Blank", "src": "local('MathJax_Blank')"},
            # The hidden assistive MathML (what a screen reader reads) in a system serif:
            # MathJax styles double-struck letters (\mathbb) with MathJax_AMS-Regular.otf, a
            # TeX font the packaged MathJax does not ship (a failed request on 06, 08, 09).
            ".MJX_Assistive_MathML, .MJX_Assistive_MathML *": {"font-family": "serif !important"},
        },
    },
    "messageStyle": "none",
    "showMathMenu": False,
    # Formulas are not keyboard tab stops (lesson 03's page had 109); their assistive MathML
    # stays in the page for screen readers (MathJax's default assistiveMML: true).
    "menuSettings": {"inTabOrder": False, "assistiveMML": True},
}
# MathJax 2.7 gives up on its web font after 8 s and falls back to its TeX fonts, which the
# packaged copy does not ship (a failed request, seen once on a busy 2-core CI machine): wait
# up to 60 s for STIX-Web instead.
MATHJAX_FONT_TIMEOUT = (
    'MathJax.Hub.Register.StartupHook("HTML-CSS Jax Ready", function () {'
    ' MathJax.OutputJax["HTML-CSS"].Font.timeout = 60000; });'
)


def copy_mathjax(app, exception) -> None:
    """Copy MathJax from the installed package into ``_static/mathjax`` (checked, repaired)."""
    if exception is None and app.builder.format == "html":
        vendor_assets(Path(app.outdir))


# ---------------------------------------------------------------- sanitising

# MyST hands inline HTML over one tag at a time (``<b>``, text, ``</b>``), so the allow-list
# works tag by tag: a tag off the list is dropped, an allowed tag keeps its allowed attributes
# only, ``<script>``/``<style>`` lose their content too, and any other ``<`` is escaped.
_ALLOWED = {
    "a": {"href", "title"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align"},
    **{
        tag: set()
        for tag in [
            "b",
            "i",
            "em",
            "strong",
            "u",
            "s",
            "small",
            "sub",
            "sup",
            "kbd",
            "code",
            "pre",
            "br",
            "hr",
            "p",
            "div",
            "span",
            "blockquote",
            "ul",
            "ol",
            "li",
            "dl",
            "dt",
            "dd",
            "table",
            "thead",
            "tbody",
            "tr",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "details",
            "summary",
            "center",
            "abbr",
            "mark",
            "del",
            "ins",
            "figure",
            "figcaption",
        ]
    },
}
_COMMON_ATTRIBUTES = {"class", "id", "title"}
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
_ATTRIBUTE = re.compile(r"""([A-Za-z_:][-\w:.]*)\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)""")
_SAFE_URL = re.compile(r"^\s*(https?:|mailto:|#|/|\.|[\w-]+(/|\.|#|$))", re.I)


def _safe_tag(match: re.Match) -> str:
    closing, name, attributes = match.group(1), match.group(2).lower(), match.group(3)
    if name not in _ALLOWED:
        return ""
    if closing:
        return f"</{name}>"
    kept = []
    for key, value in _ATTRIBUTE.findall(attributes):
        key, value = key.lower(), value.strip("\"'")
        if key not in _ALLOWED[name] | _COMMON_ATTRIBUTES:
            continue
        if key in ("href", "src") and not _SAFE_URL.match(value):
            continue
        kept.append(f'{key}="{html_escape(value)}"')
    end = " /" if attributes.rstrip().endswith("/") else ""
    return f"<{' '.join([name, *kept])}{end}>"


def sanitise_html(html: str) -> str:
    """``html`` through the allow-list: no script, style, event handler, frame or js: link."""
    html = re.sub(r"(?s)<!--.*?(-->|$)", "", html)
    html = re.sub(r"(?is)<(script|style)\b.*?(</\1\s*>|$)", "", html)
    pieces, position = [], 0
    for match in _TAG.finditer(html):
        text = html[position : match.start()]
        pieces += [text.replace("<", "&lt;").replace(">", "&gt;"), _safe_tag(match)]
        position = match.end()
    pieces.append(html[position:].replace("<", "&lt;").replace(">", "&gt;"))
    return "".join(pieces)


def sanitise_raw_html(app, doctree, docname: str) -> None:
    """Clean every raw HTML node (markdown's inline HTML, outputs) and every link target."""
    for node in list(doctree.findall(nodes.raw)):
        if "html" not in node.get("format", "").split():
            continue
        original = node.astext()
        cleaned = sanitise_html(original)
        if cleaned != original:
            _LOGGER.warning("unsafe HTML removed from %s: %.60r", docname, original)
            node.children = []
            node += nodes.Text(cleaned)
    for node in doctree.findall(nodes.reference):
        uri = node.get("refuri", "")
        if re.match(r"(?i)\s*(javascript|vbscript|data):", uri):
            _LOGGER.warning("unsafe link removed from %s: %.60r", docname, uri)
            node["refuri"] = "#"


# ---------------------------------------------------------------- references and glossary

_ARXIV = re.compile(r"arXiv:(\d{4}\.\d{4,5})(v\d+)?")
_GITHUB = re.compile(r"\b([\w.-]+/[\w.-]+), (?:issues?|pull requests?) #\d+(?: and #\d+)*")
_DOI = re.compile(r"(?:doi:\s*|https?://doi\.org/)(10\.\d{4,9}/[^\s;,)]+[^\s;,.)])", re.I)


def slug(text: str) -> str:
    """``"Causal mask (look-ahead mask)."`` -> ``"causal-mask"``; ``"\\omega_k"`` -> ``"omega-k"``."""
    text = text.split("(")[0] if not text.startswith("(") else text
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _identifier_links(source: str) -> list[tuple[int, int, str]]:
    """``(start, end, url)`` for each arXiv id, DOI and GitHub thread mentioned in ``source``."""
    spans = [
        (m.start(), m.end(), f"https://arxiv.org/abs/{m.group(1)}") for m in _ARXIV.finditer(source)
    ]
    spans += [(m.start(), m.end(), f"https://doi.org/{m.group(1)}") for m in _DOI.finditer(source)]
    for match in _GITHUB.finditer(source):
        numbers = list(re.finditer(r"#(\d+)", match.group(0)))
        for number in numbers:  # one thread: the whole mention is the link; several: each #N
            start, end = (0, len(match.group(0))) if len(numbers) == 1 else number.span()
            url = f"https://github.com/{match.group(1)}/issues/{number.group(1)}"
            spans.append((match.start() + start, match.start() + end, url))
    return sorted(spans)


def _link_identifiers(doctree) -> None:
    for text in list(doctree.findall(nodes.Text)):
        parent = text.parent
        if isinstance(parent, nodes.reference | nodes.literal | nodes.math | nodes.raw):
            continue
        source = str(text)
        spans = _identifier_links(source)
        if not spans:
            continue
        pieces, position = [], 0
        for start, end, url in spans:
            pieces.append(nodes.Text(source[position:start]))
            pieces.append(nodes.reference(source[start:end], source[start:end], refuri=url))
            position = end
        pieces.append(nodes.Text(source[position:]))
        parent.replace(text, pieces)


def _anchor_glossary(doctree) -> None:
    seen: set[str] = set()

    def add(node, anchor: str) -> None:
        if anchor and anchor not in seen:
            seen.add(anchor)
            node["ids"].append(anchor)

    for paragraph in doctree.findall(nodes.paragraph):
        children = [c for c in paragraph.children if not isinstance(c, nodes.Text) or c.strip()]
        first = children[0] if children else None
        if isinstance(first, nodes.strong) and isinstance(paragraph.parent, nodes.section):
            add(paragraph, "term-" + slug(first.astext()))
    for row in doctree.findall(nodes.row):
        if isinstance(row.parent, nodes.tbody) and row.children:
            add(row, "symbol-" + slug(row.children[0].astext()))


def link_references(app, doctree, docname: str) -> None:
    """arXiv and DOI identifiers become links; glossary terms and symbols get anchors."""
    if docname in ("references", "glossary"):
        _link_identifiers(doctree)
    if docname == "glossary":
        _anchor_glossary(doctree)


# ---------------------------------------------------------------- "run this lesson" note

_LESSON = re.compile(r"^(solutions/)?\d\d_[a-z0-9_]+$")


def _install_command() -> str:
    """The install part of README's install-and-open command (one source of truth)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- install-and-open -->\s*```\w*\n(.+?)\n```", readme)
    command = match.group(1) if match else "pip install -r requirements.txt"
    return command.split(" && jupyter lab")[0]


def add_run_note(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Put a short "Run this lesson" note under the title of every lesson and solution page."""
    if not _LESSON.match(pagename) or "body" not in context:
        return
    commands = [_install_command()]
    if SITE_LANG == "en":
        commands.append(f"jupyter lab notebooks/{pagename}.ipynb")
    else:  # the edition's notebooks are built from the catalogues first
        commands.append(f"python scripts/build_translation.py --lang {SITE_LANG}")
        commands.append(f"jupyter lab _build/{SITE_LANG}/notebooks/{pagename}.ipynb")
    body = html_escape(TEXT["run_body"]).format(
        icon="<i class='fas fa-download'></i>", helpers="<code>helpers</code>"
    )
    note = (
        '<div class="admonition tip run-this-lesson"><p class="admonition-title">'
        f"{html_escape(TEXT['run_title'])}</p><p>{body}</p>"
        f"<pre>{html_escape(chr(10).join(commands))}</pre></div>"
    )
    body = context["body"]  # after the page's title, else at the top
    context["body"] = body.replace("</h1>", "</h1>" + note, 1) if "</h1>" in body else note + body


# ---------------------------------------------------------------- optional pages

_TOCTREE = re.compile(r"```\{toctree\}\n(.*?)```\n", re.S)


def drop_missing_pages(app, docname: str, source: list[str]) -> None:
    """Leave the optional pages a course does not have (the lecture plan, the FAQ, the guides)
    out of the index's lists, and a list out altogether when none of its pages is there."""
    if docname != "index":
        return

    def keep(match: re.Match) -> str:
        lines = match.group(1).split("\n")
        if ":glob:" in lines:
            return match.group(0)
        entries = [x for x in lines if x and not x.startswith(":")]
        found = [x for x in entries if x in app.env.found_docs]
        if not found:
            return ""
        kept = [x for x in lines if not x or x.startswith(":") or x in found]
        return "```{toctree}\n" + "\n".join(kept) + "```\n"

    source[0] = _TOCTREE.sub(keep, source[0])


# ---------------------------------------------------------------- wiring

from sphinx.util import logging as _sphinx_logging  # noqa: E402

_LOGGER = _sphinx_logging.getLogger("course-site")


CATALOGUED = languages()  # the translated editions with catalogues: the ones build_site builds


def add_language_links(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """The other editions of this page, for the language switch (``_templates/``): the English
    site is the build's root, a translated edition the folder named by its language."""
    up = "../" * pagename.count("/")
    links = []
    for lang, edition in EDITIONS.items():
        if lang == SITE_LANG or not (lang == "en" or lang in CATALOGUED):
            continue
        root = "../" if lang == "en" else ("../" if SITE_LANG != "en" else "") + lang + "/"
        links.append((edition.name, edition.html_lang, f"{up}{root}{pagename}.html"))
    context["course_editions"] = links
    context["course_editions_label"] = TEXT["languages"]


def setup(app):
    app.add_js_file(None, type="text/x-mathjax-config", body=MATHJAX_FONT_TIMEOUT)
    if SITE_LANG == "ja":
        app.add_js_file(None, body=JAPANESE_SEARCH_SUMMARY, priority=600)
    app.connect("source-read", drop_missing_pages)
    app.connect("doctree-resolved", sanitise_raw_html)
    app.connect("doctree-resolved", link_references)
    app.connect("html-page-context", add_run_note)
    app.connect("html-page-context", add_language_links)
    app.connect("build-finished", copy_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
