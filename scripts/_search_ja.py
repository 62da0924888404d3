"""The Japanese edition's site search: Sphinx's own Japanese word splitter (TinySegmenter, pure
Python, inside Sphinx: nothing installed, nothing fetched) with the course's terms kept whole.

TinySegmenter alone cuts 系列長 into 系 | 列長 and 正弦波位置エンコーディング into 正弦 | 波位 | 置 |
エンコーディング, keeps a full-width parenthesis on the word it touches (（RoPE), so RoPE is never
found), and Sphinx's ``SearchJapanese.word_filter`` drops every one-character word (底, the base
of the frequencies). :class:`TermSplitter` first cuts the text at spaces and punctuation, then
between Latin letters or digits and Japanese, takes every term of the edition's
``terminology.md`` (:func:`i18n.search_words`) whole (with the shorter terms inside it, so that
回転位置埋め込み is also found by 位置埋め込み), and leaves the rest to TinySegmenter.
:class:`CourseSearchJapanese` uses it and keeps the one-character terms. ``docs/conf.py`` puts
it in place of Sphinx's ``ja`` search language; its query splitter (``CJK_QUERY_SPLITTER``) cuts
a query typed without spaces into the longest words the index holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sphinx.search.ja import DefaultSplitter, SearchJapanese

__all__ = ["CourseSearchJapanese", "TermSplitter"]

_WORD = re.compile(r"\w+")  # what Sphinx's other languages index: letters, digits, _
_JAPANESE = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005"  # kana, Han, 々
_HIRAGANA = re.compile("[\u3040-\u309f]+")
_SCRIPT = re.compile(f"[{_JAPANESE}]+|[^{_JAPANESE}]+")


def _default_words() -> set[str]:
    import i18n  # scripts/ is on sys.path wherever this module is imported

    return i18n.search_words("ja")


class TermSplitter(DefaultSplitter):
    """TinySegmenter, but the terms in ``words`` stay whole and punctuation is never part of a
    word (``words``: default, the Japanese terminology's renderings)."""

    def __init__(self, options: dict[str, str], words: Iterable[str] | None = None) -> None:
        super().__init__(options)
        self.words = set(_default_words() if words is None else words)
        self._longest = max((len(w) for w in self.words), default=0)

    def _inner(self, term: str) -> list[str]:
        """The shorter terms of several characters inside ``term``."""
        return sorted(w for w in self.words if 1 < len(w) < len(term) and w in term)

    def _segment(self, text: str) -> list[str]:
        """TinySegmenter; a one-character term it joined to particles (の底, 値が) cut out."""
        out = []
        for piece in super().split(text):
            singles = [c for c in piece if c in self.words]
            if (
                len(piece) > 1
                and len(singles) == 1
                and _HIRAGANA.fullmatch(piece.replace(singles[0], "", 1))
            ):
                head, _, tail = piece.partition(singles[0])
                out += [w for w in (head, singles[0], tail) if w]
            else:
                out.append(piece)
        return out

    def _japanese(self, text: str) -> list[str]:
        """A run of kana and Han: the longest term at each place, TinySegmenter between."""
        out: list[str] = []
        rest = ""
        start = 0
        while start < len(text):
            for end in range(min(len(text), start + self._longest), start + 1, -1):
                if text[start:end] in self.words:
                    break
            else:
                rest += text[start]
                start += 1
                continue
            term = text[start:end]
            if rest:
                out += self._segment(rest)
                rest = ""
            out += [term, *self._inner(term)]
            start = end
        if rest:
            out += self._segment(rest)
        return out

    def split(self, input: str) -> list[str]:
        words: list[str] = []
        for run in _WORD.findall(input):
            for part in _SCRIPT.findall(run):
                if re.match(f"[{_JAPANESE}]", part):
                    words += self._japanese(part)
                else:
                    words.append(part)
        return [w for w in words if w]


class CourseSearchJapanese(SearchJapanese):
    """Sphinx's Japanese search with :class:`TermSplitter`; a one-character word is indexed
    when it is a term (底)."""

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__({})  # TinySegmenter: no MeCab, no Janome
        self.splitter = TermSplitter(options)

    def word_filter(self, stemmed_word: str) -> bool:
        return len(stemmed_word) > 1 or stemmed_word in self.splitter.words
