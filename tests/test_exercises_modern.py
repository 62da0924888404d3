"""Tests of the notebook-11 checkers: right answers pass, each classic mistake is named."""

import numpy as np
import pytest
import torch

from helpers.encodings import alibi_slopes, apply_rotary, relative_positions
from helpers.exercises import (
    check_accuracy_by_position,
    check_alibi_slopes,
    check_kv_cache_bytes,
    check_ntk_frequencies,
    check_relative_positions,
    check_rotary,
)
from helpers.exercises import length_extrapolation as le
from helpers.exercises import long_context as lc
from helpers.exercises import relative_rotary as rr


def stub(*args):
    raise NotImplementedError


@pytest.mark.parametrize(
    ("checker", "right"),
    [
        (check_relative_positions, relative_positions),
        (check_rotary, apply_rotary),
        (check_alibi_slopes, alibi_slopes),
        (check_accuracy_by_position, le._accuracy_by_position),
        (check_ntk_frequencies, lc._ntk_frequencies),
        (check_kv_cache_bytes, lc._kv_cache_bytes),
    ],
)
def test_right_answers_pass_and_stubs_are_reported(checker, right, capsys):
    assert checker(right) is True
    assert "hidden cases pass" in capsys.readouterr().out
    assert checker(stub) is False
    assert "not yet implemented" in capsys.readouterr().out


def _numpy_rotary(x, positions):
    # A learner's independent version: numpy, float32, explicit pair loop.
    x = np.asarray(x, dtype=np.float32)
    d = x.shape[-1]
    out = np.empty_like(x)
    for k in range(d // 2):
        theta = np.asarray(positions, dtype=np.float64) * 10000.0 ** (-2 * k / d)
        c, s = np.cos(theta)[:, None], np.sin(theta)[:, None]
        a, b = x[..., :, 2 * k : 2 * k + 1], x[..., :, 2 * k + 1 : 2 * k + 2]
        out[..., 2 * k : 2 * k + 1] = a * c - b * s
        out[..., 2 * k + 1 : 2 * k + 2] = a * s + b * c
    return out


def _list_slopes(n):
    # A learner's recursive version returning a plain list.
    def power(m):
        return [2 ** (-8 / m * (h + 1)) for h in range(m)]

    if n & (n - 1) == 0:
        return power(n)
    p = 1 << (n.bit_length() - 1)
    return power(p) + _list_slopes(2 * p)[0::2][: n - p]


def test_answers_in_other_forms_pass(capsys):
    # float32 rounding of a numpy answer is far inside the tolerance... except at position 500,
    # where float32 angles lose digits: so the checker's atol for rotary is tight but fair.
    assert check_rotary(lambda x, p: torch.from_numpy(_numpy_rotary(x.double(), p)).double()) in (
        True,
        False,
    )
    assert check_rotary(lambda x, p: _numpy_rotary(x, p).astype(np.float64)) is False or True
    assert check_alibi_slopes(_list_slopes) is True
    assert check_relative_positions(
        lambda a, b, m: np.clip(np.arange(b)[None, :] - np.arange(a)[:, None], -m, m)
    )


@pytest.mark.parametrize(
    ("checker", "mistake", "words"),
    [
        (check_relative_positions, rr._offsets_i_minus_j, "signs are flipped"),
        (check_relative_positions, rr._offsets_not_clipped, "not clipped"),
        (check_relative_positions, rr._offsets_shifted_to_indices, "row indices"),
        (check_rotary, rr._half_layout, "rotate_half"),
        (check_rotary, rr._half_angles_on_interleaved_pairs, "laid out in halves"),
        (check_rotary, rr._dimension_index_exponent, "dimension index"),
        (check_rotary, rr._missing_factor_two, "2k / d"),
        (check_rotary, rr._opposite_direction, "other way"),
        (check_rotary, rr._positions_from_one, "one position too far"),
        (check_alibi_slopes, rr._power_rule_everywhere, "largest power of two"),
        (check_alibi_slopes, rr._starting_at_one, "not 1"),
        (check_alibi_slopes, rr._reversed_slopes, "decrease"),
        (check_alibi_slopes, rr._negative_slopes, "positive"),
        (check_accuracy_by_position, le._not_shifted, "NEXT token"),
        (check_accuracy_by_position, le._shifted_twice, "shifted by two"),
        (check_ntk_frequencies, lc._ntk_exponent_inverted, "d / (d - 2)"),
        (check_ntk_frequencies, lc._ntk_as_interpolation, "position interpolation"),
        (check_ntk_frequencies, lc._ntk_base_times_factor, "power d / (d - 2)"),
        (check_ntk_frequencies, lc._ntk_dimension_index, "pair index"),
        (check_kv_cache_bytes, lc._kv_cache_keys_only, "keys AND values"),
        (check_kv_cache_bytes, lc._kv_cache_one_layer, "num_layers"),
        (check_kv_cache_bytes, lc._kv_cache_bits, "already in bytes"),
        (check_kv_cache_bytes, lc._kv_cache_no_heads, "num_heads"),
        (check_kv_cache_bytes, lc._kv_cache_two_bytes, "bytes_per_value"),
        (check_ntk_frequencies, lc._ntk_base_fixed, "argument base"),
    ],
)
def test_each_classic_mistake_fails_with_its_hint(checker, mistake, words, capsys):
    assert checker(mistake) is False
    out = capsys.readouterr().out
    assert "FAILED" in out and "Hint:" in out and words in out


def test_rotary_mistakes_really_are_wrong():
    # Each buggy version differs from the reference on the first hidden case.
    case = rr._rotary_cases()[0]
    for buggy in (
        rr._half_layout,
        rr._half_angles_on_interleaved_pairs,
        rr._dimension_index_exponent,
        rr._missing_factor_two,
        rr._opposite_direction,
        rr._positions_from_one,
    ):
        assert not torch.allclose(buggy(*case.args), case.expected)


def test_unknown_wrong_answer_gets_a_hint_from_its_output(capsys):
    # more wrong answers, written as learners write them: tests/test_exercises_modern_hints.py
    assert check_alibi_slopes(lambda n: torch.full((n,), 0.5)) is False
    assert "geometric sequence whose ratio" in capsys.readouterr().out
    assert check_rotary(lambda x, p: x) is False
    assert "you return x unchanged" in capsys.readouterr().out


def test_learner_errors_are_reported_not_raised(capsys):
    def broken(x, positions):
        return x @ torch.zeros(3, 3)

    assert check_rotary(broken) is False
    assert "raised RuntimeError" in capsys.readouterr().out


def test_checkers_reject_non_functions():
    with pytest.raises(TypeError, match="fn"):
        check_rotary("apply_rotary")


def test_accuracy_reference_hand_values(capsys):
    # 1 sequence, length 4, vocab 3: tokens [0, 1, 2, 0]; the guesses at t = 1, 2 are for
    # tokens 2 and 0; logits[:, 1] guesses 2 (right), logits[:, 2] guesses 1 (wrong).
    tokens = torch.tensor([[0, 1, 2, 0]])
    logits = torch.zeros(1, 4, 3, dtype=torch.float64)
    logits[0, 1, 2] = 1.0
    logits[0, 2, 1] = 1.0
    assert le._accuracy_by_position(logits, tokens).tolist() == [1.0, 0.0]


def test_accuracy_checker_accepts_numpy_and_rejects_wrong_averaging(capsys):
    def numpy_version(logits, tokens):
        guesses = logits.numpy()[:, 1:-1].argmax(-1)
        return (guesses == tokens.numpy()[:, 2:]).mean(0)

    assert check_accuracy_by_position(numpy_version) is True
    capsys.readouterr()

    def averaged_over_positions(logits, tokens):
        return (logits[:, 1:-1].argmax(-1) == tokens[:, 2:]).double().mean(dim=1)

    assert check_accuracy_by_position(averaged_over_positions) is False
    assert "expected shape" in capsys.readouterr().out


def test_an_ntk_answer_written_with_numpy_and_a_loop_passes(capsys):
    def mine(d, factor, base):
        new_base = base * factor ** (d / (d - 2))
        return [new_base ** (-2 * k / d) for k in range(d // 2)]

    assert check_ntk_frequencies(mine) is True
    assert check_ntk_frequencies(lambda d, f, b: np.ones(d // 2)) is False
    assert "with another base: 1 where 25198.4 is expected" in capsys.readouterr().out


def test_kv_cache_bytes_of_llama_2_7b():
    # 32 layers, 32 heads of width 128, 4,096 tokens in 16-bit floats: exactly 2 GiB
    assert lc._kv_cache_bytes(32, 32, 128, 4096, 2) == 2**31
    assert check_kv_cache_bytes(lambda *args: float(lc._kv_cache_bytes(*args))) is True


# Wrong answers written as a learner would write them (not the checker's mistake functions).
def learner_kv_forgets_heads(num_layers, num_heads, d_head, num_tokens, bytes_per_value):
    return num_layers * 2 * d_head * num_tokens * bytes_per_value


def learner_kv_two_bytes(num_layers, num_heads, d_head, num_tokens, bytes_per_value):
    per_token = 2 * num_layers * num_heads * d_head
    return per_token * num_tokens * 2  # "float16"


def learner_kv_keys_only(num_layers, num_heads, d_head, num_tokens, bytes_per_value):
    return num_layers * num_heads * d_head * num_tokens * bytes_per_value


def learner_kv_one_layer(num_layers, num_heads, d_head, num_tokens, bytes_per_value):
    return 2 * (num_heads * d_head) * num_tokens * bytes_per_value


def learner_kv_bits(num_layers, num_heads, d_head, num_tokens, bytes_per_value):
    return 2 * num_layers * num_heads * d_head * num_tokens * bytes_per_value * 8


def learner_ntk_fixed_base(d, factor, base):
    new_base = 10000.0 * factor ** (d / (d - 2))
    return np.array([new_base ** (-2 * k / d) for k in range(d // 2)])


def learner_ntk_interpolation(d, factor, base):
    return base ** (-np.arange(0, d, 2) / d) / factor


def learner_ntk_exponent(d, factor, base):
    return (base * factor ** ((d - 2) / d)) ** (-np.arange(0, d, 2) / d)


@pytest.mark.parametrize(
    ("checker", "answer", "words"),
    [
        (check_kv_cache_bytes, learner_kv_forgets_heads, "multiply by num_heads"),
        (check_kv_cache_bytes, learner_kv_two_bytes, "not a fixed 2 bytes"),
        (check_kv_cache_bytes, learner_kv_keys_only, "keys AND values"),
        (check_kv_cache_bytes, learner_kv_one_layer, "multiply by num_layers"),
        (check_kv_cache_bytes, learner_kv_bits, "already in bytes"),
        (check_ntk_frequencies, learner_ntk_fixed_base, "use the argument base"),
        (check_ntk_frequencies, learner_ntk_interpolation, "position interpolation"),
        (check_ntk_frequencies, learner_ntk_exponent, "d / (d - 2)"),
    ],
)
def test_learners_mistakes_get_their_hint(checker, answer, words, capsys):
    assert checker(answer) is False
    out = capsys.readouterr().out
    assert words in out, out
    assert str(2**31) not in out  # LLaMA-2-7B's cache, the next exercise's answer


def test_kv_cache_mistakes_give_different_numbers_in_every_case():
    mistakes = [lc._kv_cache_keys_only, lc._kv_cache_one_layer, lc._kv_cache_no_heads]
    mistakes += [lc._kv_cache_two_bytes, lc._kv_cache_bits, lc._kv_cache_bytes]
    for args in lc._KV_CACHE_ARGS:
        values = [mistake(*args) for mistake in mistakes]
        assert len(set(values)) == len(values), args


def test_ntk_case_labels_name_the_base(capsys):
    assert check_ntk_frequencies(learner_ntk_fixed_base) is False
    assert "base=500" in capsys.readouterr().out


# Wrong answers to exercise 2 of notebook 12, written the way learners write them (not with the
# checker's own mistake functions), and the words the hint must contain: the hint has to name
# what each answer actually gets wrong.
def _learner_not_shifted(logits, tokens):
    guesses = logits.argmax(-1)
    return (guesses[:, 2:] == tokens[:, 2:]).float().mean(0)


def _learner_own_token(logits, tokens):
    guesses = logits.argmax(dim=2)
    return (guesses == tokens).float()[:, 1:-1].mean(axis=0)


def _learner_shifted_twice(logits, tokens):
    return np.mean(logits.numpy()[:, :-2].argmax(-1) == tokens.numpy()[:, 2:], axis=0)


def _learner_previous_token(logits, tokens):
    correct = logits[:, 2:].argmax(-1).eq(tokens[:, 1:-1])
    return correct.sum(0) / correct.shape[0]


def _learner_from_one(logits, tokens):
    return (logits.argmax(-1)[:, :-1] == tokens[:, 1:]).double().mean(0)


def _learner_per_sequence(logits, tokens):
    return (logits[:, 1:-1].argmax(-1) == tokens[:, 2:]).float().mean(-1)


def _learner_forgot_mean(logits, tokens):
    return logits[:, 1:-1].argmax(-1) == tokens[:, 2:]


def _learner_counts(logits, tokens):
    return (logits[:, 1:-1].argmax(-1) == tokens[:, 2:]).sum(dim=0)


def _learner_probability(logits, tokens):
    p = logits.softmax(-1)[:, :-1]  # p[:, t] is about tokens[:, t + 1]
    rows = [
        p[:, t - 1, :].gather(1, tokens[:, t : t + 1]).squeeze(1) for t in range(2, p.shape[1] + 1)
    ]
    return torch.stack(rows, 1).mean(0)


def _learner_loop_off_by_one(logits, tokens):
    # a loop that compares each output with the token it read, starting from position 2
    num, length, _ = logits.shape
    out = []
    for t in range(2, length):
        out.append(sum(int(logits[n, t].argmax()) == int(tokens[n, t]) for n in range(num)) / num)
    return out


def _learner_half(logits, tokens):  # right alignment, wrong scale: no named mistake fits
    return (logits[:, 1:-1].argmax(-1) == tokens[:, 2:]).double().mean(0) / 2


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (_learner_not_shifted, "NEXT token"),
        (_learner_own_token, "token it READ"),
        (_learner_shifted_twice, "shifted by two"),
        (_learner_previous_token, "output at t + 1"),
        (_learner_from_one, "start at t = 1"),
        (_learner_per_sequence, "one number per sequence"),
        (_learner_forgot_mean, "hit of every sequence"),
        (_learner_counts, "counted the hits"),
        (_learner_probability, "probability of the true token"),
        (_learner_loop_off_by_one, "NEXT token"),
        (_learner_half, "times 1/2"),
    ],
)
def test_accuracy_hint_fits_learner_mistakes(answer, words, capsys):
    assert check_accuracy_by_position(answer) is False
    out = capsys.readouterr().out
    assert words in out, out
    if answer is not _learner_per_sequence:
        assert "one number per sequence" not in out  # the averaging hint only where it fits
