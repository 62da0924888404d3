"""Words of prose per slide of a deck (part of ``scripts/build_slides.py``; report with
``python scripts/build_slides.py --words [notebooks]``).

A deck shows the claim, the formula, the figure or the code; the paragraphs that explain them
belong in the speaker view (an author splits a long markdown cell into its statement and an
elaboration cell whose slide type is ``notes``: the notebook reads them as one, the deck shows the
first and puts the second in the speaker notes). The measure: for each slide or subslide of the
deck notebook (``build_slides.slide_notebook``), the words of its markdown cells that are shown
(slide type neither ``notes`` nor ``skip``), counted outside formulas (``$...$``, ``$$...$$``),
code (spans and fenced blocks), images, links' URLs (a link counts its text) and HTML tags.
The goal (issue 42): median at most ``GOAL_MEDIAN`` words over the lesson decks, no slide over
``GOAL_MAX``; ``tests/test_slides.py`` holds it for the decks it lists as done.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

__all__ = ["GOAL_MAX", "GOAL_MEDIAN", "DeckWords", "deck_words", "prose_words", "slide_groups"]

GOAL_MEDIAN = 45
GOAL_MAX = 90

_FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$|\\\[.+?\\\]|\\begin\{(\w+\*?)\}.+?\\end\{\1\}", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\s)[^$\n]+?(?<![\s\\])\$|\\\(.+?\\\)")
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*\S+.*$", re.M)  # [label]: https://...
_AUTOLINK = re.compile(r"<(?:https?|mailto):[^>]+>|\bhttps?://\S+")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_WORD = re.compile(r"\w+(?:['’.-]\w+)*")


def prose_words(markdown: str) -> int:
    """How many words of ``markdown`` a reader reads as prose: formulas, code, images, URLs and
    HTML tags left out (a link counts its text, a heading its words)."""
    if not isinstance(markdown, str):
        raise TypeError(f"markdown must be a str, got {type(markdown).__name__}")
    text = _COMMENT.sub(" ", markdown)
    for pattern in (_FENCED, _DISPLAY_MATH, _CODE_SPAN, _INLINE_MATH, _IMAGE, _REFERENCE):
        text = pattern.sub(" ", text)
    text = _LINK.sub(r" \1 ", text)
    text = _AUTOLINK.sub(" ", text)
    text = _TAG.sub(" ", text)
    return len(_WORD.findall(text))


def _slide_type(cell) -> str | None:
    return cell.get("metadata", {}).get("slideshow", {}).get("slide_type")


def slide_groups(deck) -> list[list]:
    """The cells of a deck notebook by slide and subslide (a new group at each ``slide`` or
    ``subslide``), skipped cells left out."""
    groups: list[list] = []
    for cell in deck.cells:
        kind = _slide_type(cell)
        if kind in ("slide", "subslide") or not groups:
            groups.append([])
        if kind != "skip":
            groups[-1].append(cell)
    return groups


def deck_words(deck) -> list[int]:
    """Prose words of each slide and subslide of ``deck`` (a deck notebook) that shows any
    markdown (a slide of only a figure or code is not a slide of prose)."""
    counts = []
    for group in slide_groups(deck):
        shown = [c for c in group if c.cell_type == "markdown" and _slide_type(c) != "notes"]
        if shown:
            counts.append(sum(prose_words(c.source) for c in shown))
    return counts


@dataclass(frozen=True)
class DeckWords:
    """One deck's words per slide and how they stand against the goal."""

    name: str
    words: tuple[int, ...]

    @property
    def median(self) -> float:
        return float(statistics.median(self.words)) if self.words else 0.0

    @property
    def largest(self) -> int:
        return max(self.words, default=0)

    @property
    def over(self) -> int:
        return sum(w > GOAL_MAX for w in self.words)

    @property
    def meets_goal(self) -> bool:
        return self.median <= GOAL_MEDIAN and self.over == 0

    def line(self) -> str:
        verdict = "meets the goal" if self.meets_goal else "over the goal"
        return (
            f"{self.name}: {len(self.words)} slides, median {self.median:g}, max {self.largest}, "
            f"{self.over} over {GOAL_MAX}: {verdict}"
        )


def report(decks: list[DeckWords]) -> str:
    """Per deck median, largest and count over ``GOAL_MAX``; then all decks together."""
    every = [w for deck in decks for w in deck.words]
    total = DeckWords("all decks", tuple(every))
    return "\n".join([*(deck.line() for deck in decks), total.line()])
