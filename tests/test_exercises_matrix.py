"""Every checker x every kind of odd learner function: always a one-line verdict, never a wrong one.

A learner's function may return None, a string, a dict, a generator, a ragged list, complex
numbers or the wrong shape; it may raise, loop forever, print a lot, change its arguments in
place or answer in float32. Each run must end in a verdict line (no traceback), right answers
(float32 included) must pass, known wrong answers must fail, and nothing a learner does may
change the hidden cases of a later run.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F  # noqa: N812

import helpers.exercises as exercises
from helpers.attention import causal_mask, padding_mask, scaled_dot_product_attention
from helpers.encodings import (
    alibi_slopes,
    apply_rotary,
    binary_encoding,
    frequencies,
    laplacian_pe,
    mrope_position_ids,
    offset_matrix,
    random_walk_pe,
    relative_positions,
    sinusoidal_encoding,
)
from helpers.exercises import _core
from helpers.exercises import length_extrapolation as le
from helpers.exercises import long_context as lc
from helpers.exercises import order_blind as order_blind_ex
from helpers.exercises import per_layer as per_layer_ex
from helpers.exercises import production as production_ex
from helpers.exercises import rotary_microscope as rotary_microscope_ex
from helpers.exercises import transformer as transformer_ex
from helpers.training import noam_lr
from helpers.transformer import greedy_decode


def _causal_self_attention(x, w_q, w_k, w_v):
    weights = order_blind_ex._causal_weights(x, w_q, w_k, w_v)
    return weights @ (x @ w_v), weights


def _token_and_position(tokens, weight, pe):
    return weight[tokens] * weight.shape[1] ** 0.5 + pe[: tokens.shape[1]]


# checker name -> (right answer, a known wrong answer)
RIGHT_AND_WRONG = {
    "check_sinusoidal": (sinusoidal_encoding, lambda n, d: sinusoidal_encoding(n + 1, d)[1:]),
    "check_binary_encoding": (binary_encoding, lambda p, b: 1 - binary_encoding(p, b)),
    "check_wavelengths": (
        lambda d, base: 2 * np.pi / frequencies(d, base),
        lambda d, base: 1 / frequencies(d, base),
    ),
    "check_offset_matrix": (offset_matrix, lambda phi, d: offset_matrix(phi, d).T),
    "check_token_and_position": (
        _token_and_position,
        lambda tokens, weight, pe: weight[tokens] + pe[: tokens.shape[1]],
    ),
    "check_relative_positions": (
        relative_positions,
        lambda q, k, m: -relative_positions(q, k, m),
    ),
    "check_rotary": (apply_rotary, lambda x, p: apply_rotary(x, p + 1)),
    "check_alibi_slopes": (alibi_slopes, lambda n: alibi_slopes(n).flip(0)),
    "check_ntk_frequencies": (
        lc._ntk_frequencies,
        lambda d, factor, base: lc._ntk_frequencies(d, factor, base) * 1.01,
    ),
    "check_kv_cache_bytes": (
        lc._kv_cache_bytes,
        lambda *args: lc._kv_cache_bytes(*args) // 2,
    ),
    "check_llama3_frequencies": (
        production_ex._llama3_frequencies,
        lambda *args: production_ex._llama3_frequencies(*args) * 1.01,
    ),
    "check_dynamic_ntk_frequencies": (
        production_ex._dynamic_frequencies,
        lambda *args: production_ex._dynamic_frequencies(*args) * 1.01,
    ),
    "check_window_positions": (
        production_ex._window_positions,
        lambda *args: production_ex._window_positions(*args) + 1,
    ),
    "check_laplacian_pe": (laplacian_pe, lambda a, k: laplacian_pe(a, k)[:, ::-1]),
    "check_random_walk_pe": (random_walk_pe, lambda a, k: random_walk_pe(a, k) * 2),
    "check_accuracy_by_position": (
        le._accuracy_by_position,
        lambda logits, tokens: le._accuracy_by_position(logits, tokens) * 0.5,
    ),
    "check_attention": (
        scaled_dot_product_attention,
        lambda q, k, v, m: scaled_dot_product_attention(q * 2, k, v, m),
    ),
    "check_causal_mask": (causal_mask, lambda n: ~causal_mask(n)),
    "check_causal_self_attention": (
        _causal_self_attention,
        lambda x, w_q, w_k, w_v: _causal_self_attention(x, w_k, w_q, w_v),
    ),
    "check_padding_mask": (padding_mask, lambda tokens, pad: ~padding_mask(tokens, pad)),
    "check_layer_norm": (
        lambda x, g, b, eps: F.layer_norm(x, (x.shape[-1],), g, b, eps),
        lambda x, g, b, eps: F.layer_norm(x, (x.shape[-1],), None, None, eps),
    ),
    "check_smoothing_floor": (
        transformer_ex._smoothing_floor,
        lambda v, eps: transformer_ex._smoothing_floor(v, eps) * 1.01,
    ),
    "check_noam_lr": (noam_lr, lambda step, d, w: noam_lr(step, d, w) * 1.001),
    "check_greedy_decode": (
        greedy_decode,
        lambda model, src, max_len, bos, eos: greedy_decode(model, src, max_len, 0, eos),
    ),
    "check_partial_rotary": (
        lambda x, p, r, base: apply_rotary(x, p, base, layout="half", rotary_dim=r),
        lambda x, p, r, base: apply_rotary(x, p, base, layout="half", rotary_dim=r).flip(-1),
    ),
    "check_mrope_angles": (
        lambda ids, section, d_k, base: rotary_microscope_ex._angles(ids, section, d_k, base),
        lambda ids, section, d_k, base: rotary_microscope_ex._angles(ids, section, d_k, base) + 1,
    ),
    "check_mrope_position_ids": (mrope_position_ids, lambda s: mrope_position_ids(s) + 1),
    "check_proportional_frequencies": (
        per_layer_ex._proportional,
        lambda d, p, base: per_layer_ex._proportional(d, p, base) * 1.01,
    ),
    "check_sink_weights": (
        per_layer_ex._sink_weights,
        lambda scores, sinks: torch.softmax(scores, dim=-1),
    ),
    "check_llama4_temperature": (
        per_layer_ex._temperature,
        lambda t, floor_scale, attn_scale: per_layer_ex._temperature(
            t + 1, floor_scale, attn_scale
        ),
    ),
}

CHECKERS = sorted(RIGHT_AND_WRONG)


def _to_float32(value):
    if isinstance(value, tuple):
        return tuple(_to_float32(v) for v in value)
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.float()
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value.astype(np.float32)
    if isinstance(value, float):
        return np.float32(value)
    return value


def _mutate(args):
    """Change every tensor/array argument in place, as a careless learner might."""
    for arg in args:
        if isinstance(arg, torch.Tensor):
            arg.add_(1)
        elif isinstance(arg, np.ndarray):
            arg //= 2  # the correct loop `positions //= 2` of a binary encoder


def _loop_forever():
    for _ in itertools.count():
        pass


def _raise(error: Exception):
    raise error


# What an odd learner's function does, by kind: a factory of its result (or of its failure).
ODD_RESULTS = {
    "none": lambda: None,
    "str": lambda: "my answer",
    "dict": lambda: {"answer": 1},
    "generator": lambda: (x for x in range(3)),
    "ragged": lambda: [[1.0, 2.0], [3.0]],
    "complex": lambda: np.ones(3) * 1j,
    "wrong_shape": lambda: np.zeros((2, 3, 4, 5, 6)),
    "raises": lambda: _raise(ValueError("my bug")),
    "not_implemented": lambda: _raise(NotImplementedError()),
    "loops": _loop_forever,
    "object_list": lambda: [None, None],
}
ODD_KINDS = list(ODD_RESULTS)


def _odd(kind):
    """A learner's function of the given kind, whatever its arguments."""

    def fn(*args):
        return ODD_RESULTS[kind]()

    return fn


@pytest.fixture(autouse=True)
def _short_time_limit(monkeypatch):
    monkeypatch.setattr(_core, "TIME_LIMIT_S", 0.5)


def _verdict(checker, fn, capsys):
    result = checker(fn)
    out = capsys.readouterr().out
    assert "Traceback" not in out
    first = out.splitlines()[0]
    assert first.startswith(checker.__name__ + ": ")
    assert ("FAILED" in first) or ("pass" in first) or ("not yet implemented" in first)
    assert len(out) < 2000, out
    return result, out


def test_namespace_shows_checkers_only():
    assert exercises.__all__ == [n for n in exercises.__all__ if n.startswith("check_")]
    assert sorted(exercises.__all__) == CHECKERS
    for name in ("Case", "Mistake", "run_checker", "as_numpy"):
        assert not hasattr(exercises, name)


@pytest.mark.parametrize("name", CHECKERS)
@pytest.mark.parametrize("kind", ODD_KINDS)
def test_odd_functions_get_a_one_line_verdict(name, kind, capsys, monkeypatch):
    checker = getattr(exercises, name)
    if kind == "loops":  # the loop spins until the limit: a short one (0.5 s x 30 checkers)
        monkeypatch.setattr(_core, "TIME_LIMIT_S", 0.05)
    result, out = _verdict(checker, _odd(kind), capsys)
    assert result is False
    if kind == "loops":
        assert "took longer than 0.05 s: an infinite loop?" in out
    if kind == "not_implemented":
        assert out == f"{name}: not yet implemented (your function raises NotImplementedError).\n"
    if kind in ("none", "str", "dict", "generator"):
        assert "returned" in out


@pytest.mark.parametrize("name", CHECKERS)
def test_right_answers_pass_also_in_float32_and_wrong_ones_fail(name, capsys):
    checker = getattr(exercises, name)
    right, wrong = RIGHT_AND_WRONG[name]
    assert _verdict(checker, right, capsys)[0] is True
    assert _verdict(checker, lambda *a: _to_float32(right(*a)), capsys)[0] is True
    assert _verdict(checker, wrong, capsys)[0] is False


@pytest.mark.parametrize("name", CHECKERS)
def test_an_answer_that_changes_its_arguments_in_place_fails_and_leaks_nothing(name, capsys):
    checker = getattr(exercises, name)
    right = RIGHT_AND_WRONG[name][0]

    mutated = []  # whether an argument was an array the answer could change

    def careless(*args):
        answer = right(*args)
        answer = answer.clone() if isinstance(answer, torch.Tensor) else np.copy(answer)
        mutated.extend(a for a in args if isinstance(a, torch.Tensor | np.ndarray))
        _mutate(args)
        return answer

    if name == "check_causal_self_attention":

        def careless(x, w_q, w_k, w_v):  # noqa: F811 - a pair: copy both before changing x
            output, weights = right(x, w_q, w_k, w_v)
            output, weights = output.clone(), weights.clone()
            mutated.append(x)
            x.mul_(2)
            return output, weights

    if name == "check_attention":

        def careless(q, k, v, mask):  # noqa: F811 - a pair: copy both before changing v
            output, weights = right(q, k, v, mask)
            output, weights = output.clone(), weights.clone()
            mutated.append(v)
            v.mul_(2)
            return output, weights

    passed, printed = _verdict(checker, careless, capsys)
    if mutated:  # the caller's data is gone: fails, naming it
        assert passed is False and "in place" in printed, printed
    else:  # only numbers and lists: nothing to change
        assert passed is True, printed
    assert _verdict(checker, right, capsys)[0] is True  # the hidden cases are intact


@pytest.mark.parametrize("name", CHECKERS)
def test_printed_output_is_shown_truncated(name, capsys):
    checker = getattr(exercises, name)
    right = RIGHT_AND_WRONG[name][0]

    def chatty(*args):
        print("x" * 5000)
        return right(*args)

    result, out = _verdict(checker, chatty, capsys)
    assert result is True
    assert "Your function printed: xxx" in out and "more characters" in out


def test_failure_shows_enough_digits(capsys):
    exercises.check_offset_matrix(lambda phi, d: offset_matrix(phi, d) * (1 + 1e-4))
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "first difference" in x)
    expected, got = line.split("expected ")[1].split(", got ")
    assert expected != got


def test_float_additive_mask_is_valid_and_float_01_mask_gets_the_hint(capsys):
    def additive(n):
        return torch.zeros(n, n).masked_fill(~causal_mask(n), -math.inf)

    assert exercises.check_causal_mask(additive) is True
    assert "Hint" not in capsys.readouterr().out
    assert exercises.check_causal_mask(lambda n: causal_mask(n).float()) is False
    out = capsys.readouterr().out
    assert "boolean mask" in out and "ADDED to the scores" in out


def test_complex_results_are_rejected_not_cast(capsys):
    assert exercises.check_sinusoidal(lambda n, d: sinusoidal_encoding(n, d) + 0j) is False
    assert "complex" in capsys.readouterr().out


def test_sinusoidal_accepts_a_list_of_lists_for_zero_positions(capsys):
    def as_lists(n, d):
        return sinusoidal_encoding(n, d).tolist()

    assert exercises.check_sinusoidal(as_lists) is True


def test_greedy_decode_catches_max_len_ignored_and_copying(capsys):
    def ignores_max_len(model, src, max_len, bos, eos):
        return greedy_decode(model, src, src.shape[1] + 1, bos, eos)

    def copies_source(model, src, max_len, bos, eos):
        return greedy_decode(exercises.transformer.ToyCopyModel(), src, max_len, bos, eos)

    assert exercises.check_greedy_decode(ignores_max_len) is False
    assert "max_len=3" in capsys.readouterr().out  # the first case
    assert exercises.check_greedy_decode(copies_source) is False
    assert "adds 1" in capsys.readouterr().out


def test_wrong_shape_still_names_the_mistake(capsys):
    case = _core.Case((3,), np.arange(3.0), "n=3")
    mistake = _core.Mistake(lambda n: np.arange(n + 1.0), "you counted one too many.")
    assert _core.run_checker("check_demo", lambda n: np.arange(n + 1.0), [case], [mistake]) is False
    out = capsys.readouterr().out
    assert out == (
        "check_demo: FAILED on n=3: expected shape (3,), got (4,).\n"
        "  Hint: you counted one too many.\n"
    )
