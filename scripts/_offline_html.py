"""Offline HTML: what the site build and the slide build share.

The static site is built by Sphinx (``docs/conf.py``, ``scripts/build_site.py``); the slides by
nbconvert's reveal.js exporter (``scripts/build_slides.py``). Both use from here: the vendored
assets (:func:`vendor_assets`), the offline checks (:func:`external_assets`,
:func:`network_loads`) and the safe replacement of the output folder (:func:`build_replacing`).
The slide build also uses the offline page template (:func:`course_template`,
:func:`export_page`) for its decks and for a plain page beside them (glossary, references).

Offline means offline: nbconvert's stock templates load MathJax, require.js, jQuery, mermaid,
the widget manager and reveal.js from public CDNs. The templates below drop every one of those
and point at local copies that :func:`vendor_assets` takes from Python packages installed with
the course (PyPI, pinned in requirements.txt):

- MathJax 2 from ``jupyter-server-mathjax`` (``jupyter_server_mathjax/static``);
- reveal.js 5 from ``sphinx-revealjs`` (``sphinx_revealjs/_static/revealjs``).

Every page is one self-contained HTML file (figures are embedded as data URIs) plus a shared
``_static/`` folder, so a built folder can be copied to a USB stick or opened with ``file://``.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter, SlidesExporter

T = TypeVar("T")
STATIC = "_static"
EXTRA_PAGES = ("glossary", "references")  # notebooks/<name>.md -> <name>.html

__all__ = [
    "EXTRA_PAGES",
    "build_replacing",
    "course_template",
    "export_page",
    "external_assets",
    "markdown_notebook",
    "network_loads",
    "notebook_title",
    "page_name",
    "rewrite_local_links",
    "vendor_assets",
]


def page_name(path: Path) -> Path:
    """Where a notebook's page goes, relative to the build folder, without suffix:
    ``notebooks/03_x.ipynb`` -> ``03_x``, ``notebooks/solutions/03_x.ipynb`` -> ``solutions/03_x``."""
    path = Path(path)
    return Path("solutions", path.stem) if path.parent.name == "solutions" else Path(path.stem)


def notebook_title(notebook) -> str:
    """The text of the first ``# `` heading of the first markdown cell (else an empty string)."""
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            if line.startswith("# "):
                return line[2:].strip()
        break
    return ""


# ---------------------------------------------------------------- vendored assets


def _package_dir(module: str, hint: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the package {module!r} is not installed: pip install {hint}")
    return Path(next(iter(spec.submodule_search_locations)))


def _mathjax_ignore(folder: str, names: list[str]) -> set[str]:
    """Leave out what the course's pages never load: other languages and the SVG output's fonts
    (the package ships them without the SVG output itself; pages use HTML-CSS)."""
    path = Path(folder)
    if path.name == "localization":
        return {n for n in names if n != "en"}
    if path.name == "output" and path.parent.name == "jax":
        return {"SVG"}
    return set()


def _reveal_files(source: Path) -> list[Path]:
    """The part of reveal.js the slides use: core, one theme with its font, the notes plugin."""
    fonts = source / "dist" / "theme" / "fonts" / "source-sans-pro"
    files = [
        source / "LICENSE",
        source / "dist" / "reveal.css",
        source / "dist" / "reveal.js",
        source / "dist" / "theme" / "white.css",
        source / "plugin" / "notes" / "notes.js",
    ]
    files += sorted(p for p in fonts.iterdir() if p.suffix in (".css", ".woff", ".woff2"))
    return files


def _copy_checked(files: list[tuple[Path, Path]]) -> None:
    """Copy each ``(source, dest)`` pair unless ``dest`` already has the source's size.

    A file left empty or half-written by an interrupted build differs in size and is copied again.
    """
    for source, dest in files:
        if dest.is_file() and dest.stat().st_size == source.stat().st_size:
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest)


def _tree_files(source: Path, ignore) -> list[Path]:
    files = []
    for folder, dirs, names in os.walk(source):
        skipped = ignore(folder, names + dirs)
        dirs[:] = sorted(d for d in dirs if d not in skipped)
        files += [Path(folder, n) for n in sorted(names) if n not in skipped]
    return files


def vendor_assets(out_dir: Path, reveal: bool = False) -> Path:
    """Copy MathJax 2 (HTML-CSS output, English only) and, with ``reveal``, reveal.js
    into ``out_dir/_static``; return that folder.

    Every file is checked against its source and copied again when missing or of another size,
    so a folder left incomplete by an interrupted build is repaired by the next one.
    """
    static = Path(out_dir) / STATIC
    source = _package_dir("jupyter_server_mathjax", "jupyter-server-mathjax") / "static"
    files = _tree_files(source, _mathjax_ignore)
    pairs = [(p, static / "mathjax" / p.relative_to(source)) for p in files]
    if reveal:
        source = _package_dir("sphinx_revealjs", "sphinx-revealjs") / "_static" / "revealjs"
        pairs += [(p, static / "reveal.js" / p.relative_to(source)) for p in _reveal_files(source)]
    _copy_checked(pairs)
    return static


# ---------------------------------------------------------------- templates

# Formulas are not tab stops (``inTabOrder``: a page of lesson 03 had 109 of them), while
# MathJax's assistive MathML, hidden on screen, still gives screen readers their spoken text.
# That hidden MathML is drawn in a system serif: MathJax's style for double-struck letters
# (``\mathbb``) asks for MathJax_AMS-Regular.otf, a TeX font the package does not ship, and
# MathJax's blank test font is ``url('about:blank')``, which Chromium refuses on file:// pages.
_MATHJAX = r"""
{%- macro local_mathjax(static) -%}
<script type="text/x-mathjax-config">
MathJax.Hub.Config({
  tex2jax: {
    inlineMath: [['$', '$'], ['\\(', '\\)']],
    displayMath: [['$$', '$$'], ['\\[', '\\]']],
    processEscapes: true,
    processEnvironments: true
  },
  TeX: {equationNumbers: {autoNumber: "AMS", useLabelIds: true}},
  displayAlign: 'center',
  messageStyle: 'none',
  menuSettings: {inTabOrder: false, assistiveMML: true},
  "HTML-CSS": {
    availableFonts: [], webFont: "STIX-Web", imageFont: null, preferredFont: null,
    linebreaks: {automatic: true},
    styles: {
      "@font-face": {"font-family": "MathJax_Blank", src: "local('MathJax_Blank')"},
      ".MJX_Assistive_MathML, .MJX_Assistive_MathML *": {"font-family": "serif !important"}
    }
  }
});
</script>
<script src="{{ static }}/mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"></script>
{%- endmacro -%}
"""

_WIDGET_FALLBACK = """
{%- block data_widget_view scoped %}
<div class="jp-RenderedText jp-OutputArea-output {{ extra_class }}">
<pre>[interactive widget: run this notebook in Jupyter to use it]</pre>
</div>
{%- endblock data_widget_view -%}
"""

_PAGE_CSS = """
<style type="text/css">
main.course-page { max-width: 1100px; margin: 0 auto; padding: 0 16px; }
main.course-page a { text-decoration: underline !important; }  /* a link is more than its colour */
</style>
"""

# Every course page and deck starts so: no CDN script, no widget manager, no mermaid, local MathJax.
_HEAD = (
    "{%- extends 'index.html.j2' -%}\n"
    "{% from 'course_mathjax.j2' import local_mathjax %}\n"
    "{% block html_head_js %}{% endblock html_head_js %}\n"
    "{% block jupyter_widgets %}{% endblock jupyter_widgets %}\n"
    "{% block html_head_js_mermaidjs %}{% endblock html_head_js_mermaidjs %}\n"
    "{% block html_head_js_mathjax %}{{ local_mathjax(resources.course.static) }}"
    "{% endblock html_head_js_mathjax %}\n"
)

_SITE_BODY = (
    "{% block html_head_css %}" + _PAGE_CSS + "{% endblock html_head_css %}\n"
    "{%- block body_header -%}\n"
    '<body class="jp-Notebook" data-jp-theme-light="true" data-jp-theme-name="JupyterLab Light">\n'
    '<main class="course-page">\n'
    "{%- endblock body_header -%}\n"
    "{% block body_footer %}</main>\n</body>{% endblock body_footer %}\n"
)


def course_template(name: str, blocks: str) -> DictLoader:
    """A loader with template ``name``: the course's offline head, then ``blocks`` (Jinja blocks
    overriding nbconvert's ``index.html.j2``), then the widget fallback."""
    return DictLoader({"course_mathjax.j2": _MATHJAX, name: _HEAD + blocks + _WIDGET_FALLBACK})


@functools.cache  # one exporter per process: building one loads nbconvert's templates
def _page_exporter() -> HTMLExporter:
    loader = course_template("course_site.html.j2", _SITE_BODY)
    return HTMLExporter(
        template_name="lab", template_file="course_site.html.j2", extra_loaders=[loader]
    )


def export_page(
    notebook, out_path: Path, static_dir: Path, exporter=None, language: str = "en"
) -> Path:
    """Write ``notebook`` (a NotebookNode) as one HTML page at ``out_path``; return that path.

    ``static_dir`` is the build's ``_static`` folder (linked relatively, so the build folder can
    move). ``exporter`` is an nbconvert exporter whose template starts with
    :func:`course_template`: a ``SlidesExporter`` writes a reveal.js deck (``NN_x.slides.html``,
    reveal.js from ``static_dir``); None, a plain JupyterLab-styled page (the glossary beside the
    decks). ``language`` (BCP 47, e.g. ``zh-CN``) is the page's ``<html lang>``.
    """
    exporter = exporter if exporter is not None else _page_exporter()
    # nbconvert 7.17's validator tests the trait's old value and so refuses "zh-CN" after
    # "zh-CN": go through the default first.
    exporter.language_code = "en"
    exporter.language_code = language
    deck = isinstance(exporter, SlidesExporter)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    static = Path(os.path.relpath(static_dir, out_path.parent)).as_posix()
    resources = {
        "metadata": {"name": out_path.stem.removesuffix(".slides"), "path": str(out_path.parent)},
        "course": {"static": static},
    }
    if deck:  # the exporter copies its traits into resources["reveal"]
        exporter.reveal_url_prefix = f"{static}/reveal.js"
    body, _ = exporter.from_notebook_node(notebook, resources=resources)
    suffix = ".slides.html" if deck else ".html"
    out_path.write_text(rewrite_local_links(body, suffix), encoding="utf-8")
    return out_path


# ---------------------------------------------------------------- the output folder


def build_replacing(out_dir: Path, marker: str, build: Callable[[Path], T]) -> T:
    """Run ``build(fresh)`` into a new folder beside ``out_dir``, then put it at ``out_dir``.

    A folder that is not empty and holds no ``marker`` file (not built by this build) is never
    replaced: ``FileExistsError``, before anything is built. An interrupted or failed build
    leaves ``out_dir`` as it was and no temporary folder behind; no page of an earlier build
    survives a finished one. Returns what ``build`` returns.
    """
    out_dir = Path(out_dir).resolve()
    if out_dir.exists() and any(out_dir.iterdir()) and not (out_dir / marker).is_file():
        raise FileExistsError(
            f"--out {out_dir} is not empty and was not built by this script ({marker} missing): "
            "refusing to replace it; choose another folder or delete it yourself"
        )
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{out_dir.name}-", dir=out_dir.parent) as tmp:
        fresh = Path(tmp) / "build"
        fresh.mkdir()  # readable by everyone, unlike the private temporary folder around it
        result = build(fresh)
        (fresh / marker).write_text("built by a course build script; replaced by each build\n")
        if out_dir.exists():
            out_dir.rename(Path(tmp) / "previous")
        fresh.rename(out_dir)
    return result


# ---------------------------------------------------------------- checks and links

_ASSET = re.compile(
    r"<(script|link|img|iframe)\b[^>]*?\b(?:src|href)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE
)
_IMPORT = re.compile(r"""import\s[^'"]*?from\s+['"](https?:)?//""")


def network_loads(pages: list[Path], folder: Path) -> list[str]:
    """One line per asset that a page under ``folder`` would fetch from the network."""
    problems = []
    for page in pages:
        name = page.relative_to(folder).as_posix()
        text = page.read_text(encoding="utf-8")
        problems += [f"{name} loads from the network: {url}" for url in external_assets(text)]
    return problems


def external_assets(page: str) -> list[str]:
    """Scripts, style sheets, images and frames that ``page`` would fetch from the network.

    Plain ``<a href="https://...">`` links (a paper, a repository) are not assets and pass.
    """
    found = [url for _, url in _ASSET.findall(page) if re.match(r"(https?:)?//", url)]
    found += [m.group(0) for m in _IMPORT.finditer(page)]
    found += re.findall(r"@import\s+url\(\s*['\"]?(?:https?:)?//[^)]*\)", page)
    return found


_LOCAL_LINK = re.compile(r'href="(?![a-z]+:|#|/)([^"#]+)\.(ipynb|md)(#[^"]*)?"')


def rewrite_local_links(page: str, notebook_suffix: str = ".html") -> str:
    """Point relative links at ``*.ipynb`` and ``*.md`` to the pages built from them:
    notebooks to ``<name><notebook_suffix>``, markdown files to ``<name>.html``."""

    def replace(match: re.Match) -> str:
        suffix = notebook_suffix if match.group(2) == "ipynb" else ".html"
        return f'href="{match.group(1)}{suffix}{match.group(3) or ""}"'

    return _LOCAL_LINK.sub(replace, page)


def markdown_notebook(path: Path):
    """A one-cell notebook holding a markdown file, to render it with the same template."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_markdown_cell(path.read_text(encoding="utf-8")))
    notebook.metadata["title"] = notebook_title(notebook) or path.stem
    return notebook
