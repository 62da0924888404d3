"""The lecture plan's quoted section titles, in every edition (issue 43).

A lecturer finds a "run live" cell or a room question's section by the title the plan quotes, so
each quote must be that lesson's heading, word for word, in the edition the lecturer reads. The
plan quotes titles in italics in two kinds of line::

    - 03 *The score table, with the sinusoidal encoding*: Which of the four criteria ...
    - 12 *Accuracy by position* and *What the measurements say*: the figure, ...
    - 09 *Going deeper (optional): dropout, where it acts and what it does* (its live cell: ...)
    - [07 · Masks](07_masks.ipynb) (run time 6 s): *One convention: True means "may attend"*; ...

A quote equals one of its lesson's headings (``#`` to ``####``) with the heading's own emphasis
markers (``*``) dropped. :func:`english_problems` checks the English plan;
``scripts/_i18n_catalogues.py`` makes each translated plan quote its lesson's translated
heading on ``update`` (:func:`follow`) and reports one that does not on ``check``
(:func:`translation_problems`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from _course import ROOT

__all__ = [
    "PLAN",
    "english_problems",
    "follow",
    "lesson_headings",
    "plain",
    "quotes",
    "translation_problems",
    "without_quotes",
]

PLAN = "notebooks/lecture_plan.md"
# an emphasis span; ASCII word characters only around it: a CJK character may touch it
_ITALIC = re.compile(r"(?<![*A-Za-z0-9_])\*(?!\*)([^*\n]+?)(?<!\*)\*(?![*A-Za-z0-9_])")
_QUESTION_LINE = re.compile(r"^(?:- )?(\d\d) ((?:\*[^*\n]+\*(?: and |, )?)+)(?::| \()")
_LESSON_LINE = re.compile(r"^(?:- )?\[(\d\d) [^\]]*\]\(\d\d_[^)]*\.ipynb\) \([^)]*\): (\*.*)$")
_HEADING = re.compile(r"^#{1,4} (.+?)\s*$")


def plain(title: str) -> str:
    """A heading as the plan quotes it: emphasis markers dropped, spaces collapsed."""
    return " ".join(title.replace("*", "").split())


def quotes(line: str) -> tuple[str, list[str]] | None:
    """``(lesson number, [quoted titles])`` of a plan line that quotes section titles."""
    for pattern in (_QUESTION_LINE, _LESSON_LINE):
        match = pattern.match(line)
        if match:
            return match.group(1), _ITALIC.findall(match.group(2))
    return None


def lesson_headings(number: str, root: Path = ROOT) -> list[str]:
    """The raw headings (markdown, without the ``#``) of lesson ``number``, in order."""
    (path,) = sorted((root / "notebooks").glob(f"{number}_*.ipynb"))
    headings = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                match = _HEADING.match(line)
                if match:
                    headings.append(match.group(1))
    return headings


def english_problems(root: Path = ROOT) -> list[str]:
    """Every quote of the English plan that is not a heading of its lesson."""
    problems, headings = [], {}
    for number, line in enumerate((root / PLAN).read_text(encoding="utf-8").splitlines(), 1):
        found = quotes(line)
        if found is None:
            continue
        lesson, titles = found
        if lesson not in headings:
            headings[lesson] = {plain(h) for h in lesson_headings(lesson, root)}
        for title in titles:
            if plain(title) not in headings[lesson]:
                problems.append(
                    f"{PLAN}:{number}: *{title}* is not a heading of lesson {lesson} "
                    "(quote the heading as it reads)"
                )
    return problems


def _wanted(message_id: str, translated: dict[str, dict[str, str]]) -> list[str] | None:
    """The translated headings a plan message should quote, in order; None if it quotes none
    or a heading whose translation is not done yet. ``translated``: lesson -> English plain
    heading -> its translation."""
    found = quotes(message_id)
    if found is None:
        return None
    lesson, titles = found
    wanted = [translated.get(lesson, {}).get(plain(t)) for t in titles]
    return None if not wanted or None in wanted else [plain(w) for w in wanted]


def follow(message_id: str, string: str, translated: dict[str, dict[str, str]]) -> str:
    """``string`` (a translated plan line) with its first quotes replaced by the translated
    headings, when it holds as many quotes as the English; else ``string`` unchanged."""
    wanted = _wanted(message_id, translated)
    spans = list(_ITALIC.finditer(string))
    if wanted is None or len(spans) < len(wanted):
        return string
    out, start = [], 0
    for span, title in zip(spans, wanted, strict=False):
        out += [string[start : span.start()], f"*{title}*"]
        start = span.end()
    return "".join(out) + string[start:]


def translation_problems(
    message_id: str, string: str, translated: dict[str, dict[str, str]]
) -> list[str]:
    """What is wrong with the quotes of a translated plan line (empty if nothing)."""
    wanted = _wanted(message_id, translated)
    if wanted is None or not string:
        return []
    have = [plain(t) for t in _ITALIC.findall(string)][: len(wanted)]
    if have != wanted:
        return [f"quotes {have} where the lessons' headings read {wanted}"]
    return []


def without_quotes(line: str) -> str:
    """``line`` with its quoted titles blanked: two versions of a plan line that differ only
    in the titles they quote read the same."""
    return _ITALIC.sub("*...*", line)
