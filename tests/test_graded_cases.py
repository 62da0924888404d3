"""The graded cases' redraw (``scripts/_graded_cases.py``) on checkers whose sizes hang together:
M-RoPE's sections must sum to half the head width, and its position ids take a list of text and
image segments. Moving one size alone breaks such a case; the builder then keeps the sizes and
puts the list's items in another order, so lesson 16's exercises get graded cases too."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import _graded_cases  # noqa: E402

from helpers.encodings import mrope_position_ids  # noqa: E402
from helpers.exercises import check_mrope_angles, check_mrope_position_ids  # noqa: E402
from helpers.exercises.rotary_microscope import _angles  # noqa: E402


def _spec(checker, solution):
    with _graded_cases.recording() as calls:
        assert checker(solution)
    (call,) = calls
    return call, _graded_cases.graded_spec(call, solution, np.random.default_rng(7))


def test_mrope_position_ids_get_graded_cases_from_reordered_segments():
    call, spec = _spec(check_mrope_position_ids, mrope_position_ids)
    assert spec is not None and 1 <= len(spec["cases"]) <= _graded_cases.MAX_GRADED_CASES
    public = [case.args[0] for case in call["cases"]]
    for case in spec["cases"]:
        (segments,) = case.args
        assert segments not in public  # a new case ...
        assert any(sorted(map(str, segments)) == sorted(map(str, p)) for p in public)  # reordered
        torch.testing.assert_close(case.expected, mrope_position_ids(segments), atol=0, rtol=0)


def test_mrope_angles_keep_head_width_and_sections_consistent():
    call, spec = _spec(check_mrope_angles, _angles)
    assert spec is not None and len(spec["cases"]) >= 3
    for case in spec["cases"]:
        ids, section, d_k, base = case.args
        assert 2 * sum(section) == d_k and ids.shape[0] == 3
        torch.testing.assert_close(case.expected, _angles(ids, section, d_k, base))


def test_a_callable_object_is_not_stored_by_name():
    """A model instance is callable but has no qualname: it was stored as ``module:`` and then
    failed to load (lesson 10's greedy-decoding cases); it must be refused, so that exercise
    gets no graded case rather than a broken one. Functions of helpers still round-trip."""
    import pytest

    from helpers.encodings import sinusoidal_encoding
    from helpers.exercises import _graded
    from helpers.exercises.transformer import ToyCopyModel

    with pytest.raises(TypeError, match="by name"):
        _graded.encode(ToyCopyModel())
    assert _graded.decode(_graded.encode(sinusoidal_encoding)) is sinusoidal_encoding
