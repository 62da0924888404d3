"""The Japanese site search's word splitter (``scripts/_search_ja.py``): each case is one that
Sphinx's plain TinySegmenter (``SearchJapanese``) gets wrong, checked on it too, so the test shows
what the course's splitter adds; no site build needed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from _search_ja import CourseSearchJapanese, TermSplitter  # noqa: E402
from sphinx.search.ja import SearchJapanese  # noqa: E402

WORDS = {
    "系列長",
    "系列",
    "位置エンコーディング",
    "正弦波",
    "回転位置埋め込み",
    "位置埋め込み",
    "底",
}


@pytest.fixture(scope="module")
def plain():
    return SearchJapanese({})


@pytest.fixture(scope="module")
def course():
    return CourseSearchJapanese({})


def _indexed(search, text: str) -> list[str]:
    """What Sphinx's indexer keeps of ``text`` (sphinx/search/__init__.py: split, lower-cased,
    filtered)."""
    return [w.lower() for w in search.split(text) if search.word_filter(w.lower())]


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("系列長を 2 倍にします。", "系列長"),
        ("正弦波位置エンコーディングを作ります。", "位置エンコーディング"),
        ("正弦波位置エンコーディングを作ります。", "正弦波位置エンコーディング"),
        ("「回転位置埋め込み（RoPE）」を使います。", "rope"),
        ("「回転位置埋め込み（RoPE）」を使います。", "回転位置埋め込み"),
        ("周波数の底を 500 に変えます。", "底"),
    ],
)
def test_the_course_splitter_indexes_the_word_plain_tinysegmenter_loses(plain, course, text, word):
    assert word not in _indexed(plain, text)
    assert word in _indexed(course, text)


def test_terms_keep_the_shorter_terms_inside_them():
    splitter = TermSplitter({}, WORDS)
    assert splitter.split("回転位置埋め込み") == ["回転位置埋め込み", "位置埋め込み"]
    assert splitter.split("系列長") == ["系列長", "系列"]


def test_punctuation_and_script_changes_cut_words():
    splitter = TermSplitter({}, WORDS)
    assert splitter.split("（RoPE）の底、d_model。") == ["RoPE", "の", "底", "d_model"]
    assert splitter.split("10000 です") == ["10000", "です"]


def test_a_one_character_term_stays_inside_a_longer_word():
    splitter = TermSplitter({}, WORDS)
    assert "底" not in splitter.split("徹底的に確かめます。")  # 徹底 (thorough) is not the base
    course = CourseSearchJapanese({})
    assert course.word_filter("底") and not course.word_filter("は")


def test_default_words_are_the_japanese_terminology():
    import i18n

    assert TermSplitter({}).words == i18n.search_words("ja")
