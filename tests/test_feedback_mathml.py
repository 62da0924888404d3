"""The feedback pages' math (helpers/exercises/_feedback.py): formulas to MathML, code left alone."""

from __future__ import annotations

import pytest

pytest.importorskip("latex2mathml", reason="the lecturers' extra: pip install -e '.[grading]'")

from helpers.exercises._feedback import markdown_to_mathml, split_code  # noqa: E402


def test_inline_and_display_formulas_become_mathml():
    text, count = markdown_to_mathml("A $\\sqrt{d_{model}}$ b\n\n$$x^2$$\n")
    assert count == 2
    inline, display = text.split("\n\n")
    assert inline.startswith("A <math ") and 'display="inline"' in inline and "<msqrt>" in inline
    assert display.startswith("<math ") and 'display="block"' in display and "$" not in text


def test_code_spans_fences_and_escaped_dollars_are_not_math():
    source = "cost `$x$` and ``a ` $y$`` then\n\n```python\nprint('$z$')\n```\n\nfive \\$ and $w$"
    text, count = markdown_to_mathml(source)
    assert count == 1  # only $w$
    assert "`$x$`" in text and "``a ` $y$``" in text and "print('$z$')" in text
    assert "\\$" in text and text.rstrip().endswith("</math>")


def test_split_code_keeps_every_character_in_order():
    source = "a `b` c\n```\nd\n```\ne"
    pieces = split_code(source)
    assert "".join(text for _, text in pieces) == source
    assert [code for code, _ in pieces] == [False, True, False, True, False]


def test_an_exporter_that_registers_it_by_name_converts_the_math():
    """As nbgrader registers it (by name, no ``enabled`` given): nbconvert's preprocessors are
    off by default, and this one must not be (its first version was, and converted nothing)."""
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter()
    exporter.register_preprocessor("helpers.exercises._feedback.MathToMathML")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("A $x^2$ b")])
    body, _ = exporter.from_notebook_node(notebook)
    assert "<math " in body and "$x^2$" not in body
