"""Feedback pages with typeset math and nothing to load: for ``nbgrader generate_feedback``.

nbgrader's feedback template loads MathJax from a public CDN, so a student who opens their
feedback offline (a lab without network, a file copied home) sees raw ``$...$``. The course's
``nbgrader_config.py`` (written by ``scripts/build_assignments.py``) adds :class:`MathToMathML`
to the feedback's preprocessors and a template folder whose ``mathjax`` macro loads nothing: each
formula of a markdown cell is converted to MathML before the page is rendered, and the browser
typesets MathML itself (Chromium, Firefox and Safari do). Code spans and fenced code blocks are
left as they are; a ``\\$`` is not a delimiter.

Needs ``latex2mathml`` (in the lecturers' extra, ``pip install -e ".[grading]"``).
"""

from __future__ import annotations

import re

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

__all__ = ["MathToMathML", "markdown_to_mathml", "split_code"]

# a fenced block (``` or ~~~, to its closing fence), else a code span (a run of backticks to the
# same run), else the text up to the next backtick or fence
_CODE = re.compile(
    r"(^[ ]{0,3}(`{3,}|~{3,})[^\n]*\n.*?^[ ]{0,3}\2[ \t]*$|(`+).*?(?<!`)\3(?!`))", re.M | re.S
)
_MATH = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<![\\$])\$(?!\$)([^$\n]+?)(?<!\\)\$", re.S)


def split_code(source: str) -> list[tuple[bool, str]]:
    """``source`` cut into (is_code, text) pieces: fenced blocks and code spans are code."""
    pieces, start = [], 0
    for match in _CODE.finditer(source):
        if match.start() > start:
            pieces.append((False, source[start : match.start()]))
        pieces.append((True, match.group(0)))
        start = match.end()
    if start < len(source):
        pieces.append((False, source[start:]))
    return pieces


def markdown_to_mathml(source: str) -> tuple[str, int]:
    """``source`` with each ``$...$`` / ``$$...$$`` outside code replaced by MathML; and how
    many formulas were replaced."""
    from latex2mathml.converter import convert

    count = 0

    def mathml(match: re.Match) -> str:
        nonlocal count
        count += 1
        display = match.group(1) is not None
        tex = (match.group(1) if display else match.group(2)).strip()
        return convert(tex, display="block" if display else "inline")

    out = [text if code else _MATH.sub(mathml, text) for code, text in split_code(source)]
    return "".join(out), count


class MathToMathML(Preprocessor):
    """Replace the math of every markdown cell by MathML (see the module's docstring)."""

    # nbconvert's preprocessors are off unless enabled; nbgrader registers this one by name
    enabled = Bool(True, help="convert the math (on by default)").tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "markdown":
            cell.source, count = markdown_to_mathml(cell.source)
            resources["mathml_formulas"] = resources.get("mathml_formulas", 0) + count
        return cell, resources
