"""Sources -> catalogues: extract the English messages, read, write and merge ``.po`` files
(part of ``scripts/i18n.py``, whose docstring describes the workflow).

Messages are cut by :mod:`_i18n_messages`; one catalogue per source file lives at
``locale/<lang>/LC_MESSAGES/<source path>.po``. Written without line wrapping or dates, so an
update on unchanged sources changes no file.
"""

from __future__ import annotations

import ast
import functools
import io
import json
import os
import re
from collections import Counter
from pathlib import Path

import _plan_titles
from _course import ROOT, course_notebooks
from _i18n_messages import markdown_blocks, messages_of_markdown
from babel.messages.catalog import Catalog
from babel.messages.pofile import normalize, read_po, unescape, write_po

__all__ = [
    "catalogue_path",
    "extract",
    "languages",
    "lesson_titles",
    "plan_headings",
    "read_catalogue",
    "readme_part",
    "source_files",
    "stats",
    "template",
    "update",
    "write_catalogue",
]

LOCALE = ROOT / "locale"
MARKDOWN_PAGES = (
    "notebooks/glossary.md",
    "notebooks/faq.md",
    "notebooks/references.md",
    "notebooks/lecture_plan.md",
)
SITE_INDEX = "docs/index.md"
SITE_CONF = "docs/conf.py"  # its SITE_TEXT dict: the site's own words
README = "README.md"
# The README's sections a reader of another edition needs (its licence stays English).
README_SECTIONS = (
    "What you will learn",
    "Course map",
    "Quick start: two commands",
    "How to use the course",
    "For lecturers and maintainers",
)
PROJECT = "position-in-transformers"


def source_files(root: Path = ROOT) -> list[Path]:
    """Every file whose prose is translated, relative to ``root``, in course order."""
    root = Path(root)
    files = [p.relative_to(root) for p in course_notebooks(root)]
    pages = [*MARKDOWN_PAGES, SITE_INDEX, SITE_CONF, README]
    return files + [Path(p) for p in pages if (root / p).is_file()]


def site_text(path: Path) -> dict[str, str]:
    """The ``SITE_TEXT`` dict of the site's configuration, read without importing it."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    for node in tree.body:
        targets = [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
        if "SITE_TEXT" in targets:
            return ast.literal_eval(node.value)
    raise ValueError(f"{path}: no SITE_TEXT dict")


def readme_part(text: str) -> str:
    """The README's title and introduction and the sections of :data:`README_SECTIONS`, without
    the block between ``<!-- editions`` and ``<!-- /editions -->`` (the other editions' links,
    written in their own languages)."""
    keep, editions, out = True, False, []
    for line in text.split("\n"):
        if line.startswith("## "):
            keep = line[3:].strip() in README_SECTIONS
        if line.startswith("<!-- editions"):
            editions = True
        if keep and not editions:
            out.append(line)
        if line.startswith("<!-- /editions"):
            editions = False
    return "\n".join(out)


def _notebook_messages(path: Path) -> list[tuple[str, str]]:
    """``(message, where)`` for a notebook's markdown cells and figure alternatives."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for cell in notebook["cells"]:
        where = f"cell {cell.get('id', '?')}"
        if cell["cell_type"] == "markdown":
            found += [(m, where) for m in messages_of_markdown("".join(cell["source"]))]
        alt = cell.get("metadata", {}).get("alt")
        if alt:
            found.append((alt, f"{where}, figure text alternative"))
    return found


def extract(relative: Path, root: Path = ROOT) -> list[tuple[str, str]]:
    """``(message, where)`` pairs of one source file, in order, repeats included."""
    path = Path(root) / relative
    if path.suffix == ".ipynb":
        return _notebook_messages(path)
    if path.suffix == ".py":
        return [(text, f"SITE_TEXT[{key!r}]") for key, text in site_text(path).items()]
    text = path.read_text(encoding="utf-8")
    if Path(relative).name == README:
        text = readme_part(text)
    return [(m, "") for m in messages_of_markdown(text)]


def catalogue_path(relative: Path, lang: str, locale: Path = LOCALE) -> Path:
    """``notebooks/03_x.ipynb`` -> ``locale/<lang>/LC_MESSAGES/notebooks/03_x.po``."""
    return Path(locale) / lang / "LC_MESSAGES" / Path(relative).with_suffix(".po")


def template(relative: Path, root: Path = ROOT) -> Catalog:
    """The catalogue of one source file with every message untranslated (a ``.pot``)."""
    catalog = Catalog(project=PROJECT, charset="utf-8", fuzzy=False)
    for message, where in extract(relative, root):
        entry = catalog.get(message)
        location = (relative.as_posix(), None)
        if entry is None:
            catalog.add(message, locations=[location], auto_comments=[where] if where else [])
        elif where and where not in entry.auto_comments:
            entry.auto_comments.append(where)
    return catalog


_PREVIOUS = re.compile(r'^#\| msgid "(.*)"\n(?:#.*\n)*msgid "(.*)"$', re.M)


def read_catalogue(path: Path, lang: str) -> Catalog:
    """A catalogue as written by :func:`write_catalogue`, with the previous English of each
    fuzzy message (``#| msgid``), which Babel's reader drops."""
    with open(path, "rb") as handle:
        catalog = read_po(handle, locale=lang, abort_invalid=True)
    for message in catalog:  # Babel reads a "#| msgid" line as a translator comment "| msgid"
        message.user_comments = [c for c in message.user_comments if not c.startswith("|")]
    for match in _PREVIOUS.finditer(Path(path).read_text(encoding="utf-8")):
        message = catalog.get(unescape(f'"{match.group(2)}"'))
        if message is not None:
            message.previous_id = [unescape(f'"{match.group(1)}"')]
    return catalog


HEADER = """\
# LANGUAGE translation of the course "Position in Transformers, from first principles".
# Translated from the English source (SOURCE); prose licensed CC BY 4.0, like the English.
# Update with: python scripts/i18n.py update --lang LANG (see locale/README.md).
#"""


def write_catalogue(catalog: Catalog, path: Path, source: str = "") -> None:
    """Write ``catalog`` to ``path`` without wrapping lines and without dates (no churn)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    name = catalog.locale.english_name if catalog.locale else str(catalog.locale_identifier)
    catalog.header_comment = (
        HEADER.replace("LANGUAGE", name)
        .replace("SOURCE", source)
        .replace("LANG", str(catalog.locale_identifier))
    )
    catalog.last_translator = "the course's translators"
    catalog.language_team = f"{name} edition of the course"
    catalog.msgid_bugs_address = "the course's issue tracker (see locale/README.md)"
    catalog.version = "1"
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=0, include_lineno=False)
    text = buffer.getvalue().decode()
    for message in catalog:  # the previous English on one line (Babel wraps comments at 76)
        if message.id and message.previous_id:
            msgid = f"\nmsgid {normalize(message.id, width=0)}\n"
            previous = f"\n#| msgid {normalize(message.previous_id[0], width=0)}"
            text = text.replace(msgid, previous + msgid, 1)
    text = re.sub(r'(?m)^"(POT-Creation-Date|PO-Revision-Date): .*\\n"\n', "", text)
    path.write_text(text, encoding="utf-8")


_DIGITS = re.compile(r"\d+")


def _carry_numbers(old_id: str, new_id: str, old_string: str) -> str | None:
    """The translation of ``new_id`` when it differs from ``old_id`` only in its numbers and
    ``old_string`` holds those numbers (in any order: a translation may reorder a sentence),
    each English number once; else None."""
    if _DIGITS.sub("0", old_id) != _DIGITS.sub("0", new_id):
        return None
    old_numbers, new_numbers = _DIGITS.findall(old_id), _DIGITS.findall(new_id)
    if sorted(_DIGITS.findall(old_string)) != sorted(old_numbers):
        return None
    changed = {old: new for old, new in zip(old_numbers, new_numbers, strict=True) if old != new}
    if any(old_numbers.count(old) > 1 for old in changed):  # which one moved is ambiguous
        return None
    return _DIGITS.sub(lambda match: changed.get(match.group(0), match.group(0)), old_string)


def update(lang: str, root: Path = ROOT, locale: Path = LOCALE) -> dict[str, Counter]:
    """Merge a fresh extraction into every catalogue of ``lang`` (created when missing).

    Returns, per catalogue, how many messages are new, fuzzy (edited English), carried over
    with new numbers, and dropped (no longer in the English)."""
    report = {}
    for relative in source_files(root):
        path = catalogue_path(relative, lang, locale)
        fresh = template(relative, root)
        counts: Counter = Counter()
        if path.is_file():
            catalog = read_catalogue(path, lang)
            before = {m.id: m.string for m in catalog if m.id}
            previous = {m.id: m.previous_id for m in catalog if m.id and m.previous_id}
            catalog.update(fresh, update_creation_date=False)
            for message in catalog:  # Babel's merge forgets the previous English of a kept one
                if message.fuzzy and not message.previous_id and message.id in previous:
                    message.previous_id = previous[message.id]
            counts["dropped"] = len(catalog.obsolete)
            catalog.obsolete.clear()
            for message in catalog:
                if not message.id or message.id in before:
                    continue
                if message.fuzzy and message.previous_id:
                    carried = _carry_numbers(message.previous_id[0], message.id, message.string)
                    if carried is not None:
                        message.string, message.previous_id = carried, []
                        message.flags.discard("fuzzy")
                        counts["numbers carried over"] += 1
                        continue
                counts["fuzzy" if message.fuzzy else "new"] += 1
        else:
            catalog = fresh
            catalog.locale = lang
            counts["new"] = len([m for m in catalog if m.id])
        catalog.fuzzy = False
        catalog.revision_date = catalog.creation_date
        write_catalogue(catalog, path, relative.as_posix())
        report[relative.as_posix()] = counts
    _follow_titles(lang, root, locale, report)
    _follow_plan_titles(lang, root, locale, report)
    return report


def plan_headings(lang: str, root: Path = ROOT, locale: Path = LOCALE) -> dict[str, dict[str, str]]:
    """For the lecture plan's quotes: lesson number -> English heading (as quoted) -> its
    translation, for every heading whose translation is done (not empty, not fuzzy)."""
    found: dict[str, dict[str, str]] = {}
    for path in course_notebooks(root):
        relative = path.relative_to(root)
        catalogue = catalogue_path(relative, lang, locale)
        if relative.parent.name != "notebooks" or not catalogue.is_file():
            continue
        number = path.name[:2]
        catalog = read_catalogue(catalogue, lang)
        for heading in _plan_titles.lesson_headings(number, root):
            entry = catalog.get(heading)
            if entry is not None and entry.string and not entry.fuzzy:
                found.setdefault(number, {})[_plan_titles.plain(heading)] = entry.string
    return found


def _follow_plan_titles(lang: str, root: Path, locale: Path, report: dict[str, Counter]) -> None:
    """The translated lecture plan quotes each section by its lesson's translated heading."""
    path = catalogue_path(Path(_plan_titles.PLAN), lang, locale)
    if not path.is_file():
        return
    translated, catalog, changed = plan_headings(lang, root, locale), read_catalogue(path, lang), 0
    for message in catalog:
        if not message.id or not message.string:
            continue
        if message.fuzzy:  # an English edit that changed only the quoted titles is followed
            previous = message.previous_id[0] if message.previous_id else None
            quotes_only = previous is not None and _plan_titles.without_quotes(
                previous
            ) == _plan_titles.without_quotes(message.id)
            fixed = _plan_titles.follow(message.id, message.string, translated)
            if quotes_only and not _plan_titles.translation_problems(message.id, fixed, translated):
                message.string, message.previous_id = fixed, []
                message.flags.discard("fuzzy")
                changed += 1
            continue
        fixed = _plan_titles.follow(message.id, message.string, translated)
        changed += fixed != message.string
        message.string = fixed
    if changed:
        write_catalogue(catalog, path, _plan_titles.PLAN)
        report.setdefault(_plan_titles.PLAN, Counter())["section titles followed"] += changed


def _follow_titles(lang: str, root: Path, locale: Path, report: dict[str, Counter]) -> None:
    """A link whose text is a lesson's title takes that lesson's translated title (the lesson's
    own catalogue decides it), so a title is translated once."""
    titles = lesson_titles(lang, root, locale)
    for relative in source_files(root):
        path = catalogue_path(relative, lang, locale)
        catalog, changed = read_catalogue(path, lang), 0
        for message in catalog:
            if not message.id or not message.string:
                continue
            for match in _NOTEBOOK_LINK.finditer(message.id):
                target = os.path.normpath(relative.parent / match.group(2)).replace(os.sep, "/")
                english, translated = titles.get(target, ("", ""))
                if match.group(1) != english or not translated:
                    continue
                link = re.compile(r"\[[^\]]*\]\(" + re.escape(match.group(2)) + r"\)")
                fixed = link.sub(
                    lambda _, t=translated, m=match: f"[{t}]({m.group(2)})", message.string
                )
                changed += fixed != message.string
                message.string = fixed
        if changed:
            write_catalogue(catalog, path, relative.as_posix())
            report.setdefault(relative.as_posix(), Counter())["lesson titles followed"] += changed


_NOTEBOOK_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s#]*?([^/)\s#]+\.ipynb))")


def lesson_titles(
    lang: str, root: Path = ROOT, locale: Path = LOCALE
) -> dict[str, tuple[str, str]]:
    """``{"notebooks/03_x.ipynb": (English title, its translation or "")}`` for every lesson and
    solution
    (a title is the first heading of the notebook's first cell)."""
    titles = {}
    for path in course_notebooks(root):
        stat = path.stat()
        heading = _title_block(str(path), stat.st_mtime_ns, stat.st_size)
        if heading is None:
            continue
        catalogue = catalogue_path(path.relative_to(root), lang, locale)
        translated = ""
        if catalogue.is_file():
            stat = catalogue.stat()
            translated = _translated(
                str(catalogue), stat.st_mtime_ns, stat.st_size, lang, heading.message
            )
        titles[path.relative_to(root).as_posix()] = (heading.message, translated)
    return titles


@functools.lru_cache(maxsize=256)
def _title_block(notebook: str, mtime_ns: int, size: int):
    """The first heading of a notebook's first cell (a markdown block), or None; read once per
    version of the file."""
    cell = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"][0]
    return next(
        (b for b in markdown_blocks("".join(cell["source"])) if b.prefix.startswith("#")), None
    )


@functools.lru_cache(maxsize=256)
def _translated(catalogue: str, mtime_ns: int, size: int, lang: str, message: str) -> str:
    """The translation of ``message`` in ``catalogue`` ("" if missing, empty or fuzzy), read once
    per version of the file (its modification time and size are part of the key): checking one
    file at a time reads every lesson's title, and a catalogue takes a tenth of a second to read."""
    entry = read_catalogue(Path(catalogue), lang).get(message)
    return entry.string if entry is not None and entry.string and not entry.fuzzy else ""


def languages(locale: Path = LOCALE) -> list[str]:
    """The languages that have a catalogue folder, e.g. ``["zh_CN"]``."""
    return (
        sorted(p.name for p in Path(locale).iterdir() if (p / "LC_MESSAGES").is_dir())
        if Path(locale).is_dir()
        else []
    )


def stats(lang: str, root: Path = ROOT, locale: Path = LOCALE) -> tuple[int, int]:
    """``(translated, total)`` messages of ``lang`` (translated: non-empty and not fuzzy)."""
    done = total = 0
    for relative in source_files(root):
        path = catalogue_path(relative, lang, locale)
        catalog = read_catalogue(path, lang) if path.is_file() else Catalog()
        have = {m.id: m for m in catalog if m.id}
        for message in template(relative, root):
            if message.id:
                total += 1
                entry = have.get(message.id)
                done += bool(entry and entry.string and not entry.fuzzy)
    return done, total
