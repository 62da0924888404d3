"""Checks of a translation against its English (part of ``scripts/i18n.py``): every message
translated and current, formulas, code, links and numbers kept verbatim, markdown markup kept,
terms rendered as the language's ``terminology.md`` says, and links to a lesson named with that
lesson's translated title.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from pathlib import Path

import _plan_titles
from _course import ROOT
from _i18n_catalogues import (
    _NOTEBOOK_LINK,
    LOCALE,
    catalogue_path,
    lesson_titles,
    plan_headings,
    read_catalogue,
    source_files,
    template,
)
from _i18n_messages import (
    _AUTOLINK,
    _CODE,
    _DISPLAY_MATH,
    _INLINE_MATH,
    _LINK_TARGET,
    _PLACEHOLDER,
    _TAG,
    _markdown,
    _strip_verbatim,
)

__all__ = [
    "check",
    "jieba_dictionary",
    "markup_problems",
    "search_words",
    "term_problems",
    "verbatim_problems",
]

VERBATIM_COMMENT = "verbatim"  # a translator comment: the message is right as it stands

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# ``](03_x.ipynb#a-section)``: the page must stay, the anchor is the translated heading's
_SECTION_ANCHOR = re.compile(r"(?<=\]\()((?!https?:)[^)#\s]+)#[^)\s]+\)$")


def _verbatim_parts(message: str) -> dict[str, list[str]]:
    """What a translation must keep exactly: formulas, code spans, link targets (a link to a
    section of a page keeps the page and has an anchor, the one its translated heading gets),
    URLs, HTML tags, and the numbers of the prose around them (thousands separators ignored)."""
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
        parts = [m.group(0) for m in pattern.finditer(rest)]
        if name == "link target":  # a section's anchor follows its heading's translation
            parts = [_SECTION_ANCHOR.sub(r"\1#…)", p) for p in parts]
        found.setdefault(name, []).extend(parts)
        rest = pattern.sub(" ", rest)
    found["number"] = [_plain_number(n) for n in _NUMBER.findall(rest)]
    found["table cell"] = ["|"] * rest.count("|")
    return found


def _plain_number(number: str) -> str:
    """``"1,000"`` -> ``"1000"``; ``"0.25"`` stays (a comma between groups of three digits is a
    thousands separator, which another language may write differently or leave out)."""
    return re.sub(r",(?=\d{3}\b)", "", number)


_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip
_OTHER_WORDS = {
    "once": 1, "first": 1, "single": 1, "twice": 2, "second": 2, "double": 2, "both": 2,
    "pair": 2, "thrice": 3, "third": 3, "triple": 3, "fourth": 4, "quarter": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "twelfth": 12, "dozen": 12,
    "half": 2, "hundred": 100, "thousand": 1000,
}  # fmt: skip
_NUMBER_WORDS = {w: i for i, w in enumerate(_UNITS)} | _TENS | _OTHER_WORDS
_FRACTIONS = {"half", "third", "quarter", "fifth"}  # "a quarter" may be written 4 分の 1
_WORD = re.compile(r"[A-Za-z]+")
# "7.6 million" may be written 760 万, "176 billion" 1760 億, "1.5 M" 150 万: the digits change
_LARGE = re.compile(r"(\d+(?:\.\d+)?)[\s-]*(million|billion|M\b|B\b)", re.I)
_SCALE = {"million": 100, "billion": 10, "m": 100, "b": 10}  # in units of 万 (10^4), 億 (10^8)


def _number_words(message: str) -> Counter:
    """The numbers ``message`` spells as words outside code, which a translation may write in
    digits: "two layers" -> 2, "every fourth" -> 4, "twice" -> 2, "sixteen" -> 16, "five
    thousand" -> 5000, "a million" -> 100 (万) or 1000000; a fraction word ("a quarter") also
    allows the 1 of 4 分の 1."""
    words = [w.lower() for w in _WORD.findall(_CODE.sub(" ", message))]
    found = Counter()
    for i, word in enumerate(words):
        if word in ("million", "billion"):
            before = _NUMBER_WORDS.get(words[i - 1], 1) if i else 1
            found[str(before * _SCALE[word])] += 1
            found[str(before * 10 ** (6 if word == "million" else 9))] += 1
            continue
        if word not in _NUMBER_WORDS:
            continue
        value = _NUMBER_WORDS[word]
        found[str(value)] += 1
        if word in _FRACTIONS:
            found["1"] += 1
        if word in ("hundred", "thousand") and i and words[i - 1] in _NUMBER_WORDS:
            found[str(_NUMBER_WORDS[words[i - 1]] * value)] += 1
        if word in _TENS and i + 1 < len(words) and words[i + 1] in _UNITS[1:10]:
            found[str(value + _NUMBER_WORDS[words[i + 1]])] += 1  # twenty-five
    return found


def _number_problems(message: str, source: list[str], target: list[str]) -> tuple[Counter, Counter]:
    """The numbers of the prose lost and added by a translation, after allowing digits for the
    English number words and a count of millions or billions rewritten in 万 or 億 ("7.6
    million" as 760 万, "176 billion" as 1760 億)."""
    lost = Counter(source) - Counter(target)
    added = Counter(target) - Counter(source)
    for number, unit in _LARGE.findall(message):
        scaled = f"{float(number) * _SCALE[unit.lower()]:g}"
        if lost[number] and added[scaled]:
            lost[number] -= 1
            added[scaled] -= 1
    return +lost, added - _number_words(message)


def verbatim_problems(message: str, translation: str) -> list[str]:
    """How ``translation`` differs from ``message`` in what must stay verbatim (empty: none).

    A number the English spells as a word ("two layers", "twice") may be written in digits
    (2 層), and a count of millions or billions in 万 or 億 ("7.6 million" as 760 万)."""
    source, target = _verbatim_parts(message), _verbatim_parts(translation)
    problems = []
    for name in source:
        if name == "number":
            lost, added = _number_problems(message, source[name], target.get(name, []))
        else:
            lost = Counter(source[name]) - Counter(target.get(name, []))
            added = Counter(target.get(name, [])) - Counter(source[name])
        if lost:
            problems.append(f"{name} lost: {', '.join(sorted(lost.elements()))}")
        if added:
            problems.append(f"{name} added: {', '.join(sorted(added.elements()))}")
    return problems


_MARKUP = {"text", "softbreak", "hardbreak"}


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


_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]*-[\s:|-]*\|?\s*$")


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
    headings = None  # the lessons' translated headings, read once the plan's catalogue is met
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
            if relative.as_posix() == _plan_titles.PLAN:
                message = have[message_id]
                if headings is None:
                    headings = plan_headings(lang, root, locale)
                problems += [
                    f"{name}: {message_id[:60]!r}: {p}"
                    for p in _plan_titles.translation_problems(message.id, message.string, headings)
                ]
    return problems


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


# Compounds the lessons use that no row of the table holds whole (a reader types them so):
# kept whole by the site search's word splitter as the table's renderings are.
SEARCH_COMPOUNDS = {
    "ja": ("回転位置埋め込み", "正弦波位置エンコーディング", "因果マスク", "アテンションスコア"),
}
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA = "\u3040-\u309f\u30a0-\u30ff"  # hiragana, katakana (with the long-vowel mark ー)


def search_words(lang: str, locale: Path = LOCALE) -> set[str]:
    """The words the site search of the ``lang`` edition keeps whole: every rendering of
    ``terminology.md`` (checked or not, also-accepted ones too) written in Han characters or kana
    without a space, plus :data:`SEARCH_COMPOUNDS`. A lone kana (ら for "et al.") is no word: it
    would cut から in two."""
    words = set(SEARCH_COMPOUNDS.get(lang, ()))
    for _, accepted, _ in _terminology(lang, locale, checked_only=False):
        for word in accepted:
            if " " in word or not re.search(f"[{_HAN}{_KANA}]", word):
                continue
            if len(word) == 1 and not re.match(f"[{_HAN}]", word):
                continue
            words.add(word)
    return words


def jieba_dictionary(lang: str, locale: Path = LOCALE) -> Path:
    """A user dictionary for ``jieba`` (the Chinese search's word splitter) holding the
    renderings of ``terminology.md`` (:func:`search_words`), so that 位置编码 stays one
    searchable word; written to the temporary folder, returned."""
    path = Path(tempfile.gettempdir()) / f"course-search-words-{lang}.txt"
    words = search_words(lang, locale)
    path.write_text("".join(f"{w} 100000 n\n" for w in sorted(words)), encoding="utf-8")
    return path
