"""Markdown cut into messages, and put back together translated (part of ``scripts/i18n.py``).

A message is one paragraph, list item, heading or table row, as CommonMark reads it: the text
is parsed with markdown-it-py (the parser the course's tests and site read it with) and each
paragraph's or heading's inline text, found through the token's line map, becomes one message
on one line; a table row is a message as it stands, cells and pipes included. Fenced code,
display math, HTML blocks, comments and rules are never messages; in a MyST directive
(```` ```{toctree} ````) only the ``:caption:`` is. Inline formulas, code spans, link targets,
URLs, HTML tags and ``{placeholders}`` stay inside a message, and a message whose prose is only
those (:func:`_has_words`) is not one.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

__all__ = [
    "Block",
    "markdown_blocks",
    "messages_of_markdown",
    "translate_markdown",
]


@dataclass
class Block:
    """Lines ``start`` to ``end`` (exclusive) of a markdown text. A translatable block is written
    back as ``prefix + translation`` on one line; the others are copied as they are."""

    start: int
    end: int
    prefix: str = ""
    message: str | None = None  # None: not translated (code, display math, rules, comments)
    lines: list[str] = field(default_factory=list)


@functools.cache
def _markdown():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    return MarkdownIt("commonmark").enable("table").use(dollarmath_plugin)


_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+|$)")
_DIRECTIVE_OPTION = re.compile(r"^(:caption:[ \t]+)(.+)$")


def _text_block(lines: list[str], token, heading: str | None) -> Block:
    """The message of one paragraph or heading (its ``inline`` token), on the lines the token
    maps: the message is the inline text with each line stripped, joined by spaces; the prefix
    is what stands before that text on the first line (indent, list marker, ``> ``, ``## ``).
    ``heading`` is the heading's markup (``##``, or ``=``/``-`` for a setext heading)."""
    start, end = token.map
    line = lines[start]
    first = token.content.split("\n", 1)[0].rstrip()
    if heading and heading[0] == "#":
        prefix = _ATX_HEADING.match(line).group(0)  # the text ends before any closing #s
    else:
        prefix = line.rstrip()[: len(line.rstrip()) - len(first)]
    message = " ".join(part.strip() for part in token.content.split("\n"))
    return Block(start, end, prefix, message)


def _directive_blocks(lines: list[str], start: int, end: int) -> list[Block]:
    """A MyST directive (```{toctree}): its ``:caption:`` is text; everything else is code."""
    blocks = []
    for index in range(start, end):
        option = _DIRECTIVE_OPTION.match(lines[index])
        if option:
            blocks.append(Block(index, index + 1, option.group(1), option.group(2).strip()))
    return blocks


def markdown_blocks(text: str) -> list[Block]:
    """Cut markdown ``text`` into blocks (see :class:`Block`), covering every line once: one
    per message, and every other line a block of its own."""
    lines = text.split("\n")
    found: list[Block] = []
    tokens = _markdown().parse(text)
    for before, token in zip([None, *tokens], tokens, strict=False):
        if token.type == "inline" and before.type in ("paragraph_open", "heading_open"):
            heading = before.markup if before.type == "heading_open" else None
            found.append(_text_block(lines, token, heading))
        elif token.type == "tr_open":  # a table row: one message, cells and pipes included
            row = token.map[0]
            line = lines[row]
            indent = line[: len(line) - len(line.lstrip())]
            found.append(Block(row, row + 1, indent, line.strip()))
        elif token.type == "fence" and token.info.strip().startswith("{"):
            found += _directive_blocks(lines, *token.map)
    by_start = {block.start: block for block in found}
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        block = by_start.get(index, Block(index, index + 1))
        block.lines = lines[block.start : block.end]
        blocks.append(block)
        index = block.end
    return blocks


# What must stay verbatim in a translation (see _i18n_checks.verbatim_problems)
_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\s)(?:[^$\\]|\\.)+?\$(?!\d)")
_CODE = re.compile(r"(`+)(.+?)\1", re.S)
_LINK_TARGET = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_AUTOLINK = re.compile(r"<(?:https?|mailto):[^>]+>|https?://[^\s)>\]]+")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?>")
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")  # filled in by code: {icon}
_VERBATIM = (_CODE, _DISPLAY_MATH, _INLINE_MATH, _LINK_TARGET, _AUTOLINK, _TAG, _PLACEHOLDER)


def _strip_verbatim(message: str) -> str:
    for pattern in _VERBATIM:
        message = pattern.sub(" ", message)
    return message


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
