"""The translated editions stay with the English one (``scripts/i18n.py``, ``locale/``).

- The catalogues of every language are complete and current: no message untranslated, fuzzy,
  missing or stale against today's English, none that lost a formula, code span, link target,
  number or markup, none against the terminology list. An English edit fails here until its
  translation is updated (``python scripts/i18n.py update --lang zh_CN`` lists what to do).
- The cutting of markdown into messages loses nothing: every markdown text of the course renders
  the same (markdown-it, the parser MyST uses) when its messages are put back.
- A translated notebook (``scripts/build_translation.py``) has the English code and outputs,
  byte for byte, and the same markdown structure, cell by cell.
- The checks themselves bite: they are run on wrong translations written as a translator would.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import build_translation  # noqa: E402
import i18n  # noqa: E402

LANGUAGES = i18n.languages()
SOURCES = [p.as_posix() for p in i18n.source_files()]


def _markdown_texts() -> list[tuple[str, str]]:
    texts = []
    for relative in i18n.source_files():
        path = ROOT / relative
        if path.suffix == ".ipynb":
            for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
                if cell["cell_type"] == "markdown":
                    texts.append((f"{relative}#{cell['id']}", "".join(cell["source"])))
        elif path.suffix == ".md":
            text = path.read_text(encoding="utf-8")
            texts.append(
                (str(relative), i18n.readme_part(text) if path.name == i18n.README else text)
            )
    return texts


def _render(text: str) -> str:
    return re.sub(r"\s+", " ", i18n._markdown().render(text)).replace("> <", "><").strip()


def _structure(text: str, ordered: bool = True) -> list:
    """Block and inline token types (not their words): what a translation must keep. Chinese
    word order may move a formula or a bold phrase within its paragraph, so a translation is
    compared with ``ordered=False``: the blocks in order, each one's inline markup as a count."""
    types = []
    for token in i18n._markdown().parse(text):
        if token.type == "inline":
            inline = [c.type for c in token.children or [] if c.type not in ("text", "softbreak")]
            types += inline if ordered else [sorted(inline)]
        else:
            types.append(token.type)
    return types


def test_english_prose_is_cut_into_messages_without_loss():
    texts = _markdown_texts()
    assert len(texts) > 600
    for name, text in texts:
        messages = i18n.messages_of_markdown(text)
        unwrapped = i18n.translate_markdown(text, {m: m for m in messages})
        assert _render(unwrapped) == _render(text), name


def _units(text: str) -> list[str]:
    """The inline texts markdown-it finds outside tables (paragraphs, items, headings), each
    on one line: what the messages must be, one for one."""
    units, in_table = [], False
    for token in i18n._markdown().parse(text):
        in_table = in_table or token.type == "table_open"
        if token.type == "table_close":
            in_table = False
        if token.type == "inline" and not in_table and i18n._has_words(token.content):
            units.append(" ".join(line.strip() for line in token.content.split("\n")))
    return units


def test_each_message_is_one_paragraph_item_or_heading_as_markdown_reads_it():
    """Cut where CommonMark cuts: e.g. a wrapped line starting with "31. " inside a list item
    goes on with it (only "1." may interrupt a paragraph), so it must not start a message."""
    for name, text in _markdown_texts():
        messages = [
            b.message
            for b in i18n.markdown_blocks(text)
            if b.message and i18n._has_words(b.message)
            if not b.message.startswith("|") and not b.prefix.startswith(":caption:")
        ]
        assert messages == _units(text), name


_SAMPLE = """## Why position? ##

A paragraph that wraps
31. times and goes on.

- an item that
  wraps
  1. a nested item

> a quote
> that wraps

Setext title
============

| lesson | minutes |
|---|---|
| 03 sines | 45 |

$$
x^2
$$

```{toctree}
:caption: Lessons
03_sinusoidal_encoding
```
<!-- a comment -->"""


def test_blocks_carry_the_lines_prefix_and_message_of_each_unit():
    """Each message with the lines it replaces and what stays before it on its first line."""
    found = [(b.start, b.end, b.prefix, b.message) for b in i18n.markdown_blocks(_SAMPLE)]
    assert [b for b in found if b[3] is not None] == [
        (0, 1, "## ", "Why position?"),
        (2, 4, "", "A paragraph that wraps 31. times and goes on."),
        (5, 7, "- ", "an item that wraps"),
        (7, 8, "  1. ", "a nested item"),
        (9, 11, "> ", "a quote that wraps"),
        (12, 13, "", "Setext title"),  # its underline stays a line of its own
        (15, 16, "", "| lesson | minutes |"),
        (17, 18, "", "| 03 sines | 45 |"),
        (24, 25, ":caption: ", "Lessons"),
    ]
    covered = [line for b in i18n.markdown_blocks(_SAMPLE) for line in range(b.start, b.end)]
    assert covered == list(range(len(_SAMPLE.split("\n"))))  # every line once, in order
    table = {"Why position?": "为什么", "an item that wraps": "条目", "Setext title": "标题"}
    table |= {"| 03 sines | 45 |": "| 03 正弦 | 45 |", "Lessons": "课程"}
    lines = i18n.translate_markdown(_SAMPLE, table).split("\n")
    assert lines[0] == "## 为什么" and lines[5:7] == ["- 条目", "  1. a nested item"]
    assert lines[11:13] == ["标题", "============"] and lines[16] == "| 03 正弦 | 45 |"
    assert lines[23] == ":caption: 课程" and lines[-1] == "<!-- a comment -->"


def _keep_verbatim(message: str, n: int) -> str:
    """A stand-in translation that keeps what must stay (formulas, code, link targets, numbers,
    markup, table cells) and writes a Chinese character for every English letter."""
    pieces = re.split(
        r"(\$\$.+?\$\$|(?<![\\$])\$(?!\s)(?:[^$\\]|\\.)+?\$(?!\d)|`+[^`]+`+|\]\([^)]*\)|\*+|\||\[|\d+(?:[.,]\d+)*)",
        message,
    )
    return "".join(
        p if i % 2 else re.sub("[A-Za-z]", "译文"[n % 2], p) for i, p in enumerate(pieces)
    )


def test_messages_put_back_keep_the_structure_of_every_text():
    for name, text in _markdown_texts():
        messages = i18n.messages_of_markdown(text)
        table = {m: _keep_verbatim(m, n) for n, m in enumerate(messages)}
        assert _structure(i18n.translate_markdown(text, table)) == _structure(text), name


# ---------------------------------------------------------------- the catalogues


def test_there_is_a_chinese_edition():
    assert "zh_CN" in LANGUAGES
    assert "zh_CN" in build_translation.EDITIONS


def test_there_is_a_japanese_edition():
    assert "ja" in LANGUAGES
    edition = build_translation.EDITIONS["ja"]
    assert (edition.name, edition.html_lang, edition.sphinx) == ("日本語", "ja", "ja")
    assert edition.continued == "（続き）"


def _table_rows(lang: str) -> list[list[str]]:
    """The cells of every row of ``locale/<lang>/terminology.md``'s table, header excluded."""
    rows = []
    for line in (i18n.LOCALE / lang / "terminology.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        table_row = line.startswith("|") and len(cells) >= 5 and not set(line) <= set("|-: ")
        if table_row and not cells[0].lower().startswith("english"):
            rows.append(cells)
    return rows


def test_japanese_table_has_every_chinese_row_and_no_never_inside_a_rendering():
    """The Japanese terminology covers every English term of the Chinese one (same order, its
    own rows added), and no "never" entry is part of a rendering or an accepted one: a "never"
    is refused in every message, so ロープ (for RoPE) would refuse スロープ, and 頭部 (for head)
    refuses 冒頭部分."""
    japanese = [row[0] for row in _table_rows("ja")]
    chinese = [row[0] for row in _table_rows("zh_CN")]
    assert len(chinese) >= 100
    rest = iter(japanese)
    assert all(english in rest for english in chinese), "a Chinese row is missing or moved"
    never, accepted = set(), set()
    for _, rendering, also, refused, *_ in _table_rows("ja"):
        accepted.add(rendering)
        accepted.update(a.strip() for a in also.split(";") if a.strip() not in ("", "-"))
        never.update(n.strip() for n in refused.split(";") if n.strip() not in ("", "-"))
    clashes = sorted((n, a) for n in never for a in accepted if n in a)
    assert not clashes, clashes
    assert "ノートパソコン" in never and "ラップトップ" in accepted


def test_numbers_may_be_written_as_japanese_counts():
    """The English spells a number as a word or counts millions; the Japanese writes digits or
    万 / 億 (terminology.md, "numbers")."""
    assert i18n.verbatim_problems("There are two heads.", "ヘッドは 2 つあります。") == []
    assert i18n.verbatim_problems("about 7 billion parameters", "約 70 億個のパラメーター") == []
    assert any(
        p.startswith("number")
        for p in i18n.verbatim_problems("about 7 billion parameters", "約 700 億個のパラメーター")
    )  # 700 億 is 70 billion


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("source", SOURCES)
def test_catalogue_is_complete_and_current(lang, source):
    problems = i18n.check(lang, only=[source])
    assert not problems, (
        f"{len(problems)} problems; run python scripts/i18n.py update --lang {lang}, translate, "
        "then python scripts/i18n.py check --lang " + lang + ":\n" + "\n".join(problems[:20])
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_catalogue_without_an_english_source(lang):
    wanted = {i18n.catalogue_path(Path(s), lang) for s in SOURCES}
    found = set((i18n.LOCALE / lang / "LC_MESSAGES").rglob("*.po"))
    assert found == wanted


def test_a_new_language_is_one_command_away(tmp_path):
    """``python scripts/i18n.py update --lang ja`` writes every catalogue, untranslated, and
    ``check`` lists them all until a translator fills them."""
    locale = tmp_path / "locale"
    report = i18n.update("ja", ROOT, locale)
    assert set(report) == set(SOURCES)
    paths = sorted((locale / "ja" / "LC_MESSAGES").rglob("*.po"))
    assert len(paths) == len(SOURCES)
    assert i18n.languages(locale) == ["ja"]
    done, total = i18n.stats("ja", ROOT, locale)
    assert done == 0 and total == i18n.stats("zh_CN")[1]
    problems = i18n.check("ja", ROOT, locale)
    assert problems[0].startswith("locale/ja/terminology.md")
    assert sum("untranslated" in p for p in problems) == total


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalogues_hold_no_stale_previous_english(lang):
    """A finished message keeps no "#| msgid" (nor the "# | msgid" comment Babel made of it)."""
    paths = sorted((i18n.LOCALE / lang / "LC_MESSAGES").rglob("*.po"))
    assert paths, f"no catalogue of {lang} found: the loop below would check nothing"
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert "\n# |" not in text, path
        for block in text.split("\n\n"):
            assert "#| msgid" not in block or "#, fuzzy" in block, (path, block[:200])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_edition_has_its_terminology_and_note(lang):
    terms = i18n._terminology(lang)
    assert len(terms) >= 30
    note = (i18n.LOCALE / lang / "edition.md").read_text(encoding="utf-8")
    assert "helpers.exercises" in note  # checker hints stay English: the note says so
    assert "locale/README.md" in note  # and where to report a mistranslation


# ---------------------------------------------------------------- the checks bite


def test_verbatim_check_catches_a_translators_slips():
    message = (
        "With $d_{model} = 512$, `pe.shape` is `(L, 512)`: see [notebook 03](03_x.ipynb) "
        "and 1,000 tokens."
    )
    good = "当 $d_{model} = 512$ 时，`pe.shape` 是 `(L, 512)`：见[笔记本 03](03_x.ipynb)，共 1000 个词元。"
    assert i18n.verbatim_problems(message, good) == []
    slips = {
        "formula": good.replace("$d_{model} = 512$", "$d_model = 512$"),
        "code span": good.replace("`pe.shape`", "`pe 的形状`"),
        "link target": good.replace("(03_x.ipynb)", "(03_x_zh.ipynb)"),
        "number": good.replace("1000", "一千"),
    }
    for kind, slip in slips.items():
        problems = i18n.verbatim_problems(message, slip)
        assert any(p.startswith(kind) for p in problems), (kind, problems)
    row = "| 03 | sinusoidal | 45 min |"
    assert any("table cell" in p for p in i18n.verbatim_problems(row, "| 03 | 正弦编码，45 min |"))


def test_numbers_the_english_spells_may_be_digits_but_no_other_number_may_change():
    check = i18n.verbatim_problems
    assert check("Two layers, every fourth one, twice as fast.", "2 層、4 層ごと、2 倍速い。") == []
    assert check("Two layers.", "二層。") == []  # words may stay words
    assert check("Two layers.", "3 層。") == ["number added: 3"]  # not the number it spells
    assert check("Two layers.", "2 層、2 回。") == ["number added: 2"]  # one word, one number
    assert check("7.6 million positions", "760 万位置") == []  # the same count in 万
    assert check("a 176-billion-parameter model", "1760 億パラメーター") == []
    assert check("7.6 million positions", "761 万位置") == [
        "number lost: 7.6",
        "number added: 761",
    ]
    assert check("layer `two` of 3", "層 `two`（3 層中 2 番目）") == ["number added: 2"]
    assert check("sixteen seeds, five thousand times", "16 のシード、5,000 倍") == []
    assert check("a million tokens, a quarter of them", "100 万トークン、その 4 分の 1") == []
    assert check("from 1.5 M to 5 M", "150 万から 500 万") == []
    assert check("sixteen seeds", "17 のシード") == ["number added: 17"]


def test_markup_check_catches_bold_that_does_not_close():
    message = "**Prerequisites:** Python and NumPy."
    assert i18n.markup_problems(message, "**先修知识**：Python 和 NumPy。") == []
    assert i18n.markup_problems(message, "**先修知识：**Python 和 NumPy。")
    assert i18n.markup_problems("*Going deeper* says why.", "深入一步说明原因。")


def test_terminology_check_catches_wrong_and_missing_terms():
    rules = i18n._terminology("zh_CN")
    message = "A Transformer reads tokens with attention; the key idea is the mask."
    good = "Transformer 用注意力读取词元；关键在于掩码。"
    assert i18n.term_problems(message, good, rules) == []
    assert i18n.term_problems(message, good.replace("Transformer", "变压器"), rules)
    assert i18n.term_problems(message, good.replace("词元", "代币"), rules)
    missing = good.replace("掩码", "遮罩")
    assert i18n.term_problems(message, missing, rules)
    assert i18n.term_problems(message, missing, rules, exempt={"mask"}) == []


def _tiny_course(root: Path, paragraph: str) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# 03 · A lesson\n\n" + paragraph, id="md-1"),
        nbformat.v4.new_code_cell("x = 1", id="code-1"),
    ]
    (root / "notebooks").mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, root / "notebooks" / "03_lesson.ipynb")
    return root


def test_update_marks_an_edited_paragraph_fuzzy_and_carries_pure_number_changes(tmp_path):
    locale = tmp_path / "locale"
    (locale / "zh_CN").mkdir(parents=True)
    shutil.copy2(i18n.LOCALE / "zh_CN" / "terminology.md", locale / "zh_CN" / "terminology.md")
    course = _tiny_course(tmp_path / "course", "It runs in about 6 s.\n\nThe encoding is smooth.")
    i18n.update("zh_CN", course, locale)
    path = i18n.catalogue_path(Path("notebooks/03_lesson.ipynb"), "zh_CN", locale)
    catalog = i18n.read_catalogue(path, "zh_CN")
    chinese = {"03 · A lesson": "03 · 一课", "It runs in about 6 s.": "运行约 6 s。"}
    chinese["The encoding is smooth."] = "这个编码是平滑的。"
    for message in catalog:
        if message.id:
            message.string = chinese[message.id]
    i18n.write_catalogue(catalog, path)
    assert i18n.check("zh_CN", course, locale) == []

    _tiny_course(course, "It runs in about 9 s.\n\nThe encoding is smooth and bounded.")
    report = i18n.update("zh_CN", course, locale)["notebooks/03_lesson.ipynb"]
    assert report["numbers carried over"] == 1 and report["fuzzy"] == 1
    catalog = i18n.read_catalogue(path, "zh_CN")
    assert catalog.get("It runs in about 9 s.").string == "运行约 9 s。"
    edited = catalog.get("The encoding is smooth and bounded.")
    assert edited.fuzzy and edited.previous_id == ["The encoding is smooth."]
    problems = i18n.check("zh_CN", course, locale)
    assert len(problems) == 1 and "fuzzy" in problems[0]
    i18n.update("zh_CN", course, locale)  # read and written again: the old English stays shown
    again = i18n.read_catalogue(path, "zh_CN").get("The encoding is smooth and bounded.")
    assert again.fuzzy and again.previous_id == ["The encoding is smooth."]
    assert again.user_comments == [] and "\n# |" not in path.read_text(encoding="utf-8")

    _tiny_course(course, "It runs in about 9 s.")  # a paragraph removed, one added below
    report = i18n.update("zh_CN", course, locale)["notebooks/03_lesson.ipynb"]
    assert report["dropped"] == 1
    assert i18n.read_catalogue(path, "zh_CN").get("The encoding is smooth and bounded.") is None


# ---------------------------------------------------------------- the translated notebooks


@pytest.fixture(scope="module", params=LANGUAGES)
def edition(request, tmp_path_factory) -> tuple[str, Path]:
    out = tmp_path_factory.mktemp(f"edition-{request.param}")
    build_translation.build_translation(request.param, out)
    return request.param, out


def _code_and_outputs(notebook: dict) -> list[str]:
    return [
        json.dumps({k: c[k] for k in ("source", "outputs", "execution_count")}, sort_keys=True)
        for c in notebook["cells"]
        if c["cell_type"] == "code"
    ]


@pytest.mark.parametrize("source", [s for s in SOURCES if s.endswith(".ipynb")])
def test_translated_notebook_has_english_code_and_outputs(edition, source):
    lang, out = edition
    english = json.loads((ROOT / source).read_text(encoding="utf-8"))
    translated = json.loads((out / source).read_text(encoding="utf-8"))
    nbformat.validate(nbformat.from_dict(translated))
    assert _code_and_outputs(translated) == _code_and_outputs(english)
    assert translated["metadata"]["course_edition"] == {"language": lang, "source": source}
    table = build_translation.translations(Path(source), lang)
    cells = [c for c in translated["cells"] if c["id"] != "edition-note"]
    assert [c["id"] for c in cells] == [c["id"] for c in english["cells"]]
    for before, after in zip(english["cells"], cells, strict=True):
        if before["cell_type"] == "markdown":
            text = "".join(before["source"])
            translated = "".join(after["source"])
            assert _structure(translated, False) == _structure(text, False), before["id"]
            messages = i18n.messages_of_markdown(text)
            if messages and all(table.get(m) not in (None, m) for m in messages):
                assert "".join(after["source"]) != text, before["id"]
        alt = before.get("metadata", {}).get("alt")
        if alt:
            assert after["metadata"]["alt"] == table.get(alt, alt)


def test_edition_note_opens_lesson_00_and_pages_are_written(edition):
    lang, out = edition
    lesson = json.loads((out / "notebooks" / "00_start_here.ipynb").read_text(encoding="utf-8"))
    note = (i18n.LOCALE / lang / "edition.md").read_text(encoding="utf-8").strip()
    assert lesson["cells"][1]["id"] == "edition-note"
    assert "".join(lesson["cells"][1]["source"]) == note
    for page in ("notebooks/glossary.md", "docs/index.md", "README.md", "notebooks/rise.css"):
        assert (out / page).is_file(), page
    readme = (out / "README.md").read_text(encoding="utf-8")
    # the guides the README links stay English in the edition, beside its notebooks
    for guide in ("notebooks/guide_lecturers.md", "notebooks/guide_maintainers.md"):
        assert f"]({guide})" in readme and (out / guide).is_file(), guide


def test_unknown_language_is_refused(tmp_path):
    with pytest.raises(ValueError, match="lang='xx'"):
        build_translation.build_translation("xx", tmp_path)


def test_search_dictionary_keeps_the_terms_whole():
    words = i18n.jieba_dictionary("zh_CN").read_text(encoding="utf-8").split("\n")
    assert "位置编码 100000 n" in words and "旋转 100000 n" in words


def test_japanese_search_words_hold_katakana_terms_and_the_compounds():
    words = i18n.search_words("ja")
    assert {"位置エンコーディング", "底", "系列長", "回転位置埋め込み", "因果マスク"} <= words
    assert "ら" not in words  # "et al.": a lone kana would cut から in two
    assert not any(" " in w for w in words)


def test_translated_deck_speaks_its_language_and_keeps_the_notes(edition, tmp_path):
    """A deck built from a translated lesson: its language on <html>, "continued" labels in it,
    the glossary beside it translated, and as many speaker notes as the English deck (the notes
    stay English; their section headings follow the translated lesson)."""
    import build_slides

    lang, out = edition
    name = "03_sinusoidal_encoding"
    built = {}
    for key, folder in (("en", ROOT / "notebooks"), (lang, out / "notebooks")):
        build_slides.build_slides([folder / f"{name}.ipynb"], tmp_path / key, root=ROOT)
        built[key] = (tmp_path / key / f"{name}.slides.html").read_text(encoding="utf-8")
    html_lang = build_translation.EDITIONS[lang].html_lang
    assert f'<html lang="{html_lang}">' in built[lang] and '<html lang="en">' in built["en"]
    continued = build_translation.EDITIONS[lang].continued
    assert built[lang].count(continued) == built["en"].count(" (continued)") > 0
    assert built[lang].count('<aside class="notes"') == built["en"].count('<aside class="notes"')
    glossary = (tmp_path / lang / "glossary.html").read_text(encoding="utf-8")
    assert f'<html lang="{html_lang}">' in glossary


def test_an_edit_of_numbers_alone_carries_over_even_when_the_translation_reorders_them():
    from _i18n_catalogues import _carry_numbers

    old = "**Study time:** about 65 min to read and run, about 95 min with the 3 exercises."
    new = "**Study time:** about 70 min to read and run, about 100 min with the 3 exercises."
    zh = "**学习时间**：阅读并运行约 65 分钟，加上 3 道练习约 95 分钟。"
    assert (
        _carry_numbers(old, new, zh)
        == "**学习时间**：阅读并运行约 70 分钟，加上 3 道练习约 100 分钟。"
    )
    assert _carry_numbers(old, new.replace("run", "try"), zh) is None  # words changed too
    assert _carry_numbers("5 of 5", "5 of 6", "5 个中的 5 个") is None  # which 5 changed?
    assert _carry_numbers(old, new, "阅读并运行约 65 分钟") is None  # a number missing
