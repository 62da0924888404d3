"""Build another language's edition of the course from its translation catalogues.

Usage::

    python scripts/build_translation.py --lang zh_CN              # -> _build/zh_CN/
    python scripts/build_translation.py --lang ja                 # -> _build/ja/
    python scripts/build_translation.py --lang zh_CN --out /tmp/zh

Writes, under ``--out``, the same layout as the course::

    notebooks/NN_x.ipynb, notebooks/solutions/NN_x.ipynb   runnable translated notebooks
    notebooks/glossary.md, faq.md, references.md,          translated pages
    lecture_plan.md
    notebooks/guide_lecturers.md, guide_maintainers.md    as in the course (English)
    notebooks/lectures/NN_notes.md                         speaker notes (English; headings translated)
    notebooks/rise.css, sanitize.cfg                       as in the course
    docs/index.md                                          the site's front page
    README.md                                              the course map and how to use the course

A translated notebook is the English one with every markdown cell and every figure's text
alternative (``metadata.alt``) replaced by its translation from ``locale/<lang>/LC_MESSAGES/``
(:mod:`i18n`); its code cells and outputs are the English ones, byte for byte
(``tests/test_translation.py``), so it runs, and passes nbval, like the English one. Lesson 00 gets
the edition's own note (``locale/<lang>/edition.md``) after its title. A message without a
finished translation (untranslated or fuzzy) stays English and is counted in the summary line;
``python scripts/i18n.py check --lang <lang>`` lists them.

Open the notebooks inside the course's environment (they import ``helpers``), e.g.
``jupyter lab _build/zh_CN/notebooks/00_start_here.ipynb``.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import i18n  # noqa: E402
from _course import ROOT  # noqa: E402

DEFAULT_OUT = ROOT / "_build"
# needed beside the notebooks; the guides for lecturers and maintainers stay English, as their
# sections of the README did before they moved (issue 41)
COPIED = (
    "notebooks/rise.css",
    "notebooks/sanitize.cfg",
    "notebooks/guide_lecturers.md",
    "notebooks/guide_maintainers.md",
)


@dataclass(frozen=True)
class Edition:
    """What the builds need to know of a language beyond its catalogues."""

    name: str  # in its own language, for the language switch
    html_lang: str  # BCP 47, for <html lang>
    sphinx: str  # Sphinx's language code (its own UI strings, its search splitter)
    continued: str  # after a section's name on a deck's continued subslide


EDITIONS = {
    "en": Edition("English", "en", "en", " (continued)"),
    "zh_CN": Edition("简体中文", "zh-CN", "zh_CN", "（续）"),
    "ja": Edition("日本語", "ja", "ja", "（続き）"),
}


def edition_of(notebook) -> Edition:
    """The edition a notebook belongs to: its ``course_edition`` metadata, else English."""
    lang = notebook.get("metadata", {}).get("course_edition", {}).get("language", "en")
    return EDITIONS[lang]


__all__ = [
    "EDITIONS",
    "Edition",
    "build_translation",
    "edition_of",
    "translate_notebook",
    "translations",
]


def translations(relative: Path, lang: str, locale: Path = i18n.LOCALE) -> dict[str, str]:
    """The finished translations (non-empty, not fuzzy) of one English source file."""
    path = i18n.catalogue_path(relative, lang, locale)
    if not path.is_file():
        return {}
    catalog = i18n.read_catalogue(path, lang)
    return {m.id: m.string for m in catalog if m.id and m.string and not m.fuzzy}


def _cell_source(text: str) -> list[str]:
    """A cell's source as nbformat stores it: one string per line, each with its newline."""
    return text.splitlines(keepends=True)


def translate_notebook(notebook: dict, table: dict[str, str], note: str | None = None) -> dict:
    """A copy of ``notebook`` (its JSON) with markdown and figure alternatives translated by
    ``table``; ``note`` (markdown), when given, becomes a cell after the first one."""
    out = copy.deepcopy(notebook)
    for cell in out["cells"]:
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
            cell["source"] = _cell_source(i18n.translate_markdown(text, table))
        alt = cell.get("metadata", {}).get("alt")
        if alt and table.get(alt):
            cell["metadata"]["alt"] = table[alt]
    if note:
        cell = {
            "cell_type": "markdown",
            "id": "edition-note",
            "metadata": {"slideshow": {"slide_type": "skip"}},
            "source": _cell_source(note.strip()),
        }
        out["cells"].insert(1, cell)
    return out


def _notebook(relative: Path, lang: str, out: Path, root: Path) -> None:
    table = translations(relative, lang)
    notebook = json.loads((root / relative).read_text(encoding="utf-8"))
    note_path = i18n.LOCALE / lang / "edition.md"
    first = relative.name.startswith("00_") and note_path.is_file()
    note = note_path.read_text(encoding="utf-8") if first else None
    translated = translate_notebook(notebook, table, note)
    translated["metadata"]["course_edition"] = {"language": lang, "source": relative.as_posix()}
    target = out / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(translated, indent=1, ensure_ascii=False) + "\n", "utf-8")


def _page(relative: Path, lang: str, out: Path, root: Path) -> None:
    table = translations(relative, lang)
    text = (root / relative).read_text(encoding="utf-8")
    target = out / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if relative.as_posix() == i18n.README:
        text = i18n.readme_part(text)
    text = i18n.translate_markdown(text, table)
    if relative.as_posix() == i18n.README:
        text = _relink(text, target, root / relative)
    target.write_text(text, encoding="utf-8")


_LINK = re.compile(r"\]\((#[^)\s]+)\)")


def _relink(text: str, target: Path, source: Path) -> str:
    """The README's part links to its own sections left out of it (``#for-lecturers``): point
    those at the English README."""
    english = Path(os.path.relpath(source, target.parent)).as_posix()
    return _LINK.sub(lambda m: f"]({english}{m.group(1)})", text)


def _speaker_notes(lang: str, out: Path, root: Path) -> None:
    """The lecturers' notes stay English; their section headings follow the translated lessons,
    so that the decks built from the translated notebooks find them."""
    for notes in sorted((root / "notebooks" / "lectures").glob("*_notes.md")):
        lessons = sorted((root / "notebooks").glob(notes.name[:2] + "_*.ipynb"))
        table = translations(lessons[0].relative_to(root), lang) if lessons else {}
        lines = []
        for line in notes.read_text(encoding="utf-8").split("\n"):
            level, _, heading = line.partition(" ")
            if level in ("##", "###") and table.get(heading.strip()):
                line = f"{level} {table[heading.strip()]}"
            lines.append(line)
        target = out / "notebooks" / "lectures" / notes.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(lines), encoding="utf-8")


def build_translation(lang: str, out: Path, root: Path = ROOT) -> tuple[int, int]:
    """Write the ``lang`` edition of the course at ``root`` into ``out`` (replacing what this
    function wrote there before); return ``(messages translated, messages)`` of its catalogues."""
    if lang not in EDITIONS or lang == "en":
        known = ", ".join(k for k in EDITIONS if k != "en")
        raise ValueError(f"lang={lang!r}: no such edition (known: {known})")
    out = Path(out)
    for folder in ("notebooks", "docs"):
        shutil.rmtree(out / folder, ignore_errors=True)
    for relative in i18n.source_files(root):
        build = _notebook if relative.suffix == ".ipynb" else _page
        build(relative, lang, out, Path(root))
    for relative in COPIED:
        if (Path(root) / relative).is_file():
            (out / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(Path(root) / relative, out / relative)
    _speaker_notes(lang, out, Path(root))
    return i18n.stats(lang, root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", required=True, help="e.g. zh_CN, ja")
    parser.add_argument("--out", type=Path, help="default: _build/<lang>")
    args = parser.parse_args(argv)
    out = args.out or DEFAULT_OUT / args.lang
    try:
        done, total = build_translation(args.lang, out)
    except ValueError as error:
        print(f"build_translation: {error}", file=sys.stderr)
        return 2
    left = (
        f"; {total - done} still in English (python scripts/i18n.py check)" if done < total else ""
    )
    print(f"{args.lang}: {done} of {total} messages translated{left} -> {out / 'notebooks'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
