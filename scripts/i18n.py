"""Translation catalogues of the course: extract, update and check them (gettext ``.po`` files).

Usage::

    python scripts/i18n.py update --lang zh_CN   # re-extract the English, merge into the catalogues
    python scripts/i18n.py check --lang zh_CN    # what is missing, stale or broken (exit 1 if any)
    python scripts/i18n.py stats                 # messages and translated share, per language

The English notebooks and pages are the only source. Every markdown cell of every lesson and
worked solution, every figure's text alternative (a code cell's ``metadata.alt``), the glossary,
the references, the lecture plan, the site's front page and the README's course map and "how to
use" sections are cut into *messages*, one per paragraph, list item, heading or table row, and
kept in one catalogue per source file::

    locale/<lang>/LC_MESSAGES/notebooks/03_sinusoidal_encoding.po   # notebooks/03_....ipynb
    locale/<lang>/LC_MESSAGES/README.po                            # README.md (some sections)

Code, code comments and outputs are never translated: they are the same for every reader. Fenced
code and display-math blocks stay out of the catalogues; inline formulas, code spans, link targets
and numbers stay inside a message and must come back unchanged in its translation
(:func:`verbatim_problems`).

``update`` merges a fresh extraction into each catalogue as gettext's ``msgmerge`` does: a new
paragraph arrives untranslated, an edited one keeps its old translation marked *fuzzy* (with the
previous English, ``#| msgid``) until a translator checks it, and a removed one is dropped. An edit
that changes only numbers (a re-measured run time) carries the translation over with the new
numbers put in. ``check`` (and ``tests/test_translation.py``) fail on any message that is
untranslated, fuzzy, missing from the catalogue or no longer in the English, on a translation
that lost a formula, code span, link or number, and on a term rendered against the language's
terminology list (``locale/<lang>/terminology.md``). A third language is one folder and one
command away: ``python scripts/i18n.py update --lang ja`` creates its empty catalogues.
"""

from __future__ import annotations

import argparse
import ast
import functools
import io
import json
import os
import re
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import normalize, read_po, unescape, write_po

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _course import ROOT, course_notebooks  # noqa: E402

LOCALE = ROOT / "locale"
MARKDOWN_PAGES = ("notebooks/glossary.md", "notebooks/references.md", "notebooks/lecture_plan.md")
SITE_INDEX = "docs/index.md"
SITE_CONF = "docs/conf.py"  # its SITE_TEXT dict: the site's own words
README = "README.md"
# The README's sections a reader of another edition needs (the rest is for maintainers).
README_SECTIONS = ("Course map", "Quick start: two commands", "How to use the course")
VERBATIM_COMMENT = "verbatim"  # a translator comment: the message is right as it stands
PROJECT = "position-in-transformers"

__all__ = [
    "Block",
    "catalogue_path",
    "check",
    "extract",
    "markdown_blocks",
    "messages_of_markdown",
    "read_catalogue",
    "source_files",
    "translate_markdown",
    "update",
    "verbatim_problems",
]


# ---------------------------------------------------------------- markdown -> messages


@dataclass
class Block:
    """Lines ``start`` to ``end`` (exclusive) of a markdown text. A translatable block is written
    back as ``prefix + translation`` on one line; the others are copied as they are."""

    start: int
    end: int
    prefix: str = ""
    message: str | None = None  # None: not translated (code, display math, rules, comments)
    lines: list[str] = field(default_factory=list)


_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^(#{1,6}[ \t]+)(.*?)[ \t]*#*[ \t]*$")
_ITEM = re.compile(r"^(\s*)([-*+]|(\d{1,3})[.)])([ \t]+)(?=\S)")
_QUOTE = re.compile(r"^(\s*>[ \t]?)")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]*-[\s:|-]*\|?\s*$")
_HTML_LINE = re.compile(r"^\s*</?[A-Za-z][^>]*>\s*$")
_DIRECTIVE_OPTION = re.compile(r"^(:caption:[ \t]+)(.+)$")


def _fence_end(lines: list[str], start: int, marker: str) -> int:
    """The line after the fence that closes the one opened on line ``start``."""
    for index in range(start + 1, len(lines)):
        match = _FENCE.match(lines[index])
        closes = match and match.group(2)[0] == marker[0] and len(match.group(2)) >= len(marker)
        if closes and not match.group(3).strip():
            return index + 1
    return len(lines)


def _math_end(lines: list[str], start: int) -> int:
    """The line after the display-math block (``$$ ... $$``) that starts on line ``start``."""
    first = lines[start].strip()[2:]
    if "$$" in first:
        return start + 1
    for index in range(start + 1, len(lines)):
        if "$$" in lines[index]:
            return index + 1
    return len(lines)


def _starts_block(line: str, in_list: bool, content_indent: int = 0) -> bool:
    """Whether ``line`` starts a new block where a paragraph or list item would go on (whose
    text starts ``content_indent`` columns in)."""
    stripped = line.strip()
    if not stripped:
        return True
    if _FENCE.match(line) or stripped.startswith("$$") or stripped.startswith("<!--"):
        return True
    if _HEADING.match(line) or stripped.startswith("|") or _HTML_LINE.match(line):
        return True
    if _QUOTE.match(line):
        return True
    item = _ITEM.match(line)
    if not item or item.group(3) in (None, "1"):
        return bool(item)  # a bullet or "1." interrupts a paragraph (CommonMark)
    # "31. But ..." inside a paragraph goes on with it; a sibling item of an ordered list
    # starts left of the text it follows.
    return in_list and len(item.group(1)) < content_indent


def _directive_blocks(lines: list[str], start: int, end: int) -> list[Block]:
    """A MyST directive (```{toctree}): its ``:caption:`` is text; everything else is code."""
    blocks = []
    for index in range(start, end):
        option = _DIRECTIVE_OPTION.match(lines[index])
        if option:
            blocks.append(Block(index, index + 1, option.group(1), option.group(2).strip()))
        else:
            blocks.append(Block(index, index + 1))
    return blocks


def markdown_blocks(text: str) -> list[Block]:
    """Cut markdown ``text`` into blocks (see :class:`Block`), covering every line once."""
    lines = text.split("\n")
    blocks: list[Block] = []
    index = 0
    in_list = False
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        fence = _FENCE.match(line)
        if not stripped:
            blocks.append(Block(index, index + 1))
            index += 1
            continue
        if fence:
            end = _fence_end(lines, index, fence.group(2))
            if fence.group(3).strip().startswith("{"):
                blocks += _directive_blocks(lines, index, end)
            else:
                blocks.append(Block(index, end))
            index, in_list = end, False
            continue
        if stripped.startswith("$$"):
            end = _math_end(lines, index)
        elif stripped.startswith("<!--"):
            end = next((i + 1 for i in range(index, len(lines)) if "-->" in lines[i]), len(lines))
        elif _TABLE_RULE.match(line) and stripped.startswith("|") or _HTML_LINE.match(line):
            end = index + 1
        else:
            end = None
        if end is not None:
            blocks.append(Block(index, end))
            index = end
            continue
        block, in_list = _text_block(lines, index, in_list)
        blocks.append(block)
        index = block.end
    for block in blocks:
        block.lines = lines[block.start : block.end]
    return blocks


def _text_block(lines: list[str], index: int, in_list: bool) -> tuple[Block, bool]:
    """The heading, table row, quote, list item or paragraph that starts on line ``index``."""
    line = lines[index]
    heading = _HEADING.match(line)
    if heading:
        return Block(index, index + 1, heading.group(1), heading.group(2)), False
    if line.strip().startswith("|"):
        indent = line[: len(line) - len(line.lstrip())]
        return Block(index, index + 1, indent, line.strip()), False
    quote = _QUOTE.match(line)
    item = _ITEM.match(line)
    if quote:
        prefix, starts_item = quote.group(1), False
    elif item and (in_list or item.group(3) in (None, "1") or index == 0 or not lines[index - 1]):
        prefix, starts_item = item.group(0), True
    else:
        prefix, starts_item = line[: len(line) - len(line.lstrip())], False
    parts = [line[len(prefix) :].strip()]
    end = index + 1
    inside_list = in_list or starts_item
    indent = len(prefix) if not quote else 0
    while end < len(lines):
        follow = lines[end]
        if quote and _QUOTE.match(follow) and _QUOTE.sub("", follow, count=1).strip():
            follow = _QUOTE.sub("", follow, count=1)  # the quote's next line
        elif _starts_block(follow, inside_list, indent):
            break
        parts.append(follow.strip())
        end += 1
    # a list goes on past a blank line when the next line is indented or another item
    still_list = inside_list or (bool(prefix.strip()) and not quote)
    return Block(index, end, prefix, " ".join(parts)), still_list


_WORD = re.compile(r"[A-Za-z\u00c0-\u024f\u4e00-\u9fff\u3040-\u30ff]{2,}")


def _has_words(message: str) -> bool:
    """Whether a message holds prose once formulas, code spans and link targets are taken out."""
    return bool(_WORD.search(_strip_verbatim(message)))


def messages_of_markdown(text: str) -> list[str]:
    """The messages of a markdown text, in order (repeats included)."""
    return [
        b.message for b in markdown_blocks(text) if b.message is not None and _has_words(b.message)
    ]


def translate_markdown(text: str, translations: dict[str, str]) -> str:
    """``text`` with each message replaced by its translation (a message without one stays)."""
    out: list[str] = []
    for block in markdown_blocks(text):
        message = block.message
        if message is not None and _has_words(message) and translations.get(message):
            out.append(block.prefix + translations[message])
        else:
            out.extend(block.lines)
    return "\n".join(out)


# ---------------------------------------------------------------- what must stay verbatim

_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\s)(?:[^$\\]|\\.)+?\$(?!\d)")
_CODE = re.compile(r"(`+)(.+?)\1", re.S)
_LINK_TARGET = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_AUTOLINK = re.compile(r"<(?:https?|mailto):[^>]+>|https?://[^\s)>\]]+")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?>")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")  # filled in by code: {icon}


def _verbatim_parts(message: str) -> dict[str, list[str]]:
    """What a translation must keep exactly: formulas, code spans, link targets, URLs, HTML
    tags, and the numbers of the prose around them (thousands separators ignored)."""
    rest = message
    found: dict[str, list[str]] = {}
    for name, pattern in (
        ("code span", _CODE),
        ("formula", _DISPLAY_MATH),
        ("formula", _INLINE_MATH),
        ("link target", _LINK_TARGET),
        ("URL", _AUTOLINK),
        ("HTML tag", _TAG),
        ("placeholder", _PLACEHOLDER),
    ):
        found.setdefault(name, []).extend(m.group(0) for m in pattern.finditer(rest))
        rest = pattern.sub(" ", rest)
    found["number"] = [_plain_number(n) for n in _NUMBER.findall(rest)]
    found["table cell"] = ["|"] * rest.count("|")
    return found


_MARKUP = {"text", "softbreak", "hardbreak"}


@functools.cache
def _markdown():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    return MarkdownIt("commonmark").enable("table").use(dollarmath_plugin)


def markup(message: str) -> Counter:
    """The inline markup of a message as markdown renders it: emphasis, strong, code, links,
    formulas, images (how many of each); its words do not count."""
    found: Counter = Counter()
    for token in _markdown().parseInline(message):
        found.update(child.type for child in token.children or [] if child.type not in _MARKUP)
    return found


def markup_problems(message: str, translation: str) -> list[str]:
    """Markup the translation lost or gained: e.g. ``**前提：**内容`` does not close its bold in
    CommonMark (a closing ``**`` after full-width punctuation needs a space or punctuation after
    it); write ``**前提**：内容``."""
    source, target = markup(message), markup(translation)
    if source == target:
        return []
    lost, added = source - target, target - source
    words = [f"{n} {kind} lost" for kind, n in lost.items()]
    words += [f"{n} {kind} added" for kind, n in added.items()]
    return ["markdown markup differs: " + ", ".join(words)]


def _plain_number(number: str) -> str:
    """``"1,000"`` -> ``"1000"``; ``"0.25"`` stays (a comma between groups of three digits is a
    thousands separator, which another language may write differently or leave out)."""
    return re.sub(r",(?=\d{3}\b)", "", number)


def _strip_verbatim(message: str) -> str:
    for pattern in (
        _CODE,
        _DISPLAY_MATH,
        _INLINE_MATH,
        _LINK_TARGET,
        _AUTOLINK,
        _TAG,
        _PLACEHOLDER,
    ):
        message = pattern.sub(" ", message)
    return message


def verbatim_problems(message: str, translation: str) -> list[str]:
    """How ``translation`` differs from ``message`` in what must stay verbatim (empty: none)."""
    source, target = _verbatim_parts(message), _verbatim_parts(translation)
    problems = []
    for name in source:
        lost = Counter(source[name]) - Counter(target.get(name, []))
        added = Counter(target.get(name, [])) - Counter(source[name])
        if lost:
            problems.append(f"{name} lost: {', '.join(sorted(lost.elements()))}")
        if added:
            problems.append(f"{name} added: {', '.join(sorted(added.elements()))}")
    return problems


# ---------------------------------------------------------------- sources -> catalogues


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
    ``old_string`` holds those numbers in the same order; else None."""
    if _DIGITS.sub("0", old_id) != _DIGITS.sub("0", new_id):
        return None
    old_numbers, new_numbers = _DIGITS.findall(old_id), _DIGITS.findall(new_id)
    if _DIGITS.findall(old_string) != old_numbers:
        return None
    replacements = iter(new_numbers)
    return _DIGITS.sub(lambda _: next(replacements), old_string)


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
    return report


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


# ---------------------------------------------------------------- checks


def _terminology(
    lang: str, locale: Path = LOCALE, checked_only: bool = True
) -> list[tuple[re.Pattern, list[str], list[str]]]:
    """``(English pattern, required renderings, forbidden renderings)`` from the language's
    ``terminology.md`` table (columns: English | rendering | also accepted | never | checked |
    note). A row not checked requires nothing; its "never" column still applies."""
    path = Path(locale) / lang / "terminology.md"
    if not path.is_file():
        return []
    rules = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 5 or _TABLE_RULE.match(line):
            continue
        english, rendering, also, never, checked = cells[:5]
        if english.lower().startswith("english"):
            continue
        words = [w.strip() for w in english.split(";") if w.strip()]
        pattern = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b", re.I)
        accepted = [rendering] + [a.strip() for a in also.split(";") if a.strip() not in ("", "-")]
        forbidden = [n.strip() for n in never.split(";") if n.strip() not in ("", "-")]
        required = accepted if checked.lower() == "yes" or not checked_only else []
        rules.append((pattern, required, forbidden))
    return rules


_PATH_LIKE = re.compile(r"\S+/\S+|\S+\.(?:io|org|com|net)\S*")


def term_problems(
    message: str, translation: str, rules, exempt: set[str] = frozenset()
) -> list[str]:
    """Terms of ``message`` (outside code and formulas) not rendered as the list says; a
    translator comment ``terms-ok: word, word`` exempts those English words in one message."""
    prose = _PATH_LIKE.sub(" ", _strip_verbatim(message))  # huggingface/transformers: a name
    problems = []
    lowered = translation.lower()
    for pattern, accepted, forbidden in rules:
        hit = pattern.search(prose)
        required = hit and accepted and hit.group(0).lower() not in exempt
        if required and not any(a.lower() in lowered for a in accepted):
            problems.append(f"'{hit.group(0)}' should be rendered {' or '.join(accepted)}")
        for wrong in forbidden:
            if wrong in translation:
                problems.append(f"'{wrong}' is a wrong rendering (see terminology.md)")
    return problems


def check(
    lang: str, root: Path = ROOT, locale: Path = LOCALE, only: list[str] | None = None
) -> list[str]:
    """Every problem of the ``lang`` edition's catalogues against today's English sources
    (``only``: the source files to check, e.g. ``["notebooks/03_x.ipynb"]``; default all)."""
    rules = _terminology(lang, locale)
    titles = lesson_titles(lang, root, locale)
    problems = []
    if not rules:
        problems.append(f"locale/{lang}/terminology.md: missing or without a table")
    for relative in source_files(root):
        if only and relative.as_posix() not in only:
            continue
        path = catalogue_path(relative, lang, locale)
        name = path.relative_to(Path(locale).parent).as_posix() if path.is_absolute() else path
        if not path.is_file():
            problems.append(f"{name}: missing (run: python scripts/i18n.py update --lang {lang})")
            continue
        catalog = read_catalogue(path, lang)
        wanted = {m.id for m in template(relative, root) if m.id}
        have = {m.id: m for m in catalog if m.id}
        for missing in sorted(wanted - have.keys()):
            problems.append(f"{name}: not in the catalogue (run update): {missing[:70]!r}")
        for stale in sorted(have.keys() - wanted):
            problems.append(f"{name}: no longer in the English (run update): {stale[:70]!r}")
        for message_id in sorted(wanted & have.keys()):
            problems += _message_problems(name, have[message_id], rules)
            problems += _title_problems(name, have[message_id], titles, relative)
    return problems


_NOTEBOOK_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s#]*?([^/)\s#]+\.ipynb))")


def lesson_titles(
    lang: str, root: Path = ROOT, locale: Path = LOCALE
) -> dict[str, tuple[str, str]]:
    """``{"notebooks/03_x.ipynb": (English title, its translation or "")}`` for every lesson and
    solution
    (a title is the first heading of the notebook's first cell)."""
    titles = {}
    for path in course_notebooks(root):
        cell = json.loads(path.read_text(encoding="utf-8"))["cells"][0]
        heading = next(
            (b for b in markdown_blocks("".join(cell["source"])) if b.prefix.startswith("#")), None
        )
        if heading is None:
            continue
        catalogue = catalogue_path(path.relative_to(root), lang, locale)
        entry = (
            read_catalogue(catalogue, lang).get(heading.message) if catalogue.is_file() else None
        )
        done = entry is not None and entry.string and not entry.fuzzy
        titles[path.relative_to(root).as_posix()] = (heading.message, entry.string if done else "")
    return titles


def _title_problems(name, message, titles: dict[str, tuple[str, str]], source: Path) -> list[str]:
    """A link whose text is a lesson's title must carry that lesson's translated title, so that
    every reference to a lesson names it as its own page does (``source``: the English file)."""
    problems = []
    for match in _NOTEBOOK_LINK.finditer(message.id):
        target = os.path.normpath(Path(source).parent / match.group(2)).replace(os.sep, "/")
        english, translated = titles.get(target, ("", ""))
        named = match.group(1) == english and translated and message.string
        if named and f"[{translated}]({match.group(2)})" not in message.string:
            problems.append(
                f"{name}: {message.id[:60]!r}: the link to {match.group(3)} should read "
                f"[{translated}], that lesson's own title"
            )
    return problems


def _message_problems(name: str, message, rules) -> list[str]:
    short = f"{name}: {message.id[:60]!r}"
    if not message.string:
        return [f"{short}: untranslated"]
    if message.fuzzy:
        return [f"{short}: fuzzy (the English changed; check the translation, drop the flag)"]
    verbatim = VERBATIM_COMMENT in message.user_comments
    if message.string == message.id and not verbatim:
        return [f"{short}: left in English (mark it '# {VERBATIM_COMMENT}' if that is right)"]
    problems = [f"{short}: {p}" for p in verbatim_problems(message.id, message.string)]
    problems += [f"{short}: {p}" for p in markup_problems(message.id, message.string)]
    if not verbatim:
        exempt = {
            word.strip().lower()
            for comment in message.user_comments
            if comment.startswith("terms-ok:")
            for word in comment[len("terms-ok:") :].split(",")
        }
        problems += [
            f"{short}: {p}" for p in term_problems(message.id, message.string, rules, exempt)
        ]
    return problems


def jieba_dictionary(lang: str, locale: Path = LOCALE) -> Path:
    """A user dictionary for ``jieba`` (the Chinese search's word splitter) holding the
    renderings of ``terminology.md``, so that 位置编码 stays one searchable word; written to the
    temporary folder, returned."""
    path = Path(tempfile.gettempdir()) / f"course-search-words-{lang}.txt"
    words = set()
    for _, accepted, _ in _terminology(lang, locale, checked_only=False):
        words.update(w for w in accepted if re.search("[\\u4e00-\\u9fff]", w) and " " not in w)
    path.write_text("".join(f"{w} 100000 n\n" for w in sorted(words)), encoding="utf-8")
    return path


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["update", "check", "stats"])
    parser.add_argument("--lang", help="e.g. zh_CN (default for check and stats: every language)")
    parser.add_argument("sources", nargs="*", help="check only these English sources")
    args = parser.parse_intermixed_args(argv)
    langs = [args.lang] if args.lang else languages()
    if args.command == "update":
        if not args.lang:
            parser.error("update needs --lang")
        for name, counts in update(args.lang).items():
            if counts and any(counts.values()):
                print(f"{name}: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v))
        done, total = stats(args.lang)
        print(f"{args.lang}: {done} of {total} messages translated")
        return 0
    status = 0
    for lang in langs:
        if args.command == "stats":
            done, total = stats(lang)
            print(
                f"{lang}: {done} of {total} messages translated ({100 * done / max(total, 1):.0f} %)"
            )
            continue
        problems = check(lang, only=[Path(s).as_posix() for s in args.sources] or None)
        for problem in problems:
            print(problem)
        print(f"{lang}: {len(problems)} problems")
        status |= bool(problems)
    return status


if __name__ == "__main__":
    sys.exit(main())
