"""Tests of the Transformer exercise checkers: right answers pass, each classic mistake is named."""

import math

import pytest
import torch

from helpers.exercises import (
    check_greedy_decode,
    check_layer_norm,
    check_noam_lr,
    check_smoothing_floor,
)
from helpers.exercises import transformer as ex
from helpers.training import noam_lr, sequence_loss
from helpers.transformer import greedy_decode


def stub(*args):
    raise NotImplementedError


def right_layer_norm(x, gamma, beta, eps):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (x - mean) / torch.sqrt(var + eps) + beta


def right_smoothing_floor(vocab_size, eps):
    right, other = 1 - eps + eps / vocab_size, eps / vocab_size
    return -(right * math.log(right) + (vocab_size - 1) * other * math.log(other))


def right_greedy(model, src, max_len, bos_id, eos_id):
    ys = torch.full((src.shape[0], 1), bos_id)
    done = torch.zeros(src.shape[0], dtype=torch.bool)
    for _ in range(max_len):
        nxt = model(src, ys)[:, -1].argmax(-1).masked_fill(done, 0)
        ys = torch.cat([ys, nxt[:, None]], 1)
        done |= nxt == eos_id
        if done.all():
            break
    return ys[:, 1:]


@pytest.mark.parametrize(
    ("checker", "right"),
    [
        (check_layer_norm, right_layer_norm),
        (
            check_layer_norm,
            lambda x, g, b, e: torch.nn.functional.layer_norm(x, x.shape[-1:], g, b, e).numpy(),
        ),
        (check_smoothing_floor, right_smoothing_floor),
        (
            check_smoothing_floor,
            lambda v, e: float(
                torch.distributions.Categorical(
                    probs=torch.full((v,), e / v, dtype=torch.float64).index_add(
                        0, torch.tensor([0]), torch.tensor([1 - e], dtype=torch.float64)
                    )
                ).entropy()
            ),
        ),
        (check_noam_lr, noam_lr),
        (check_noam_lr, lambda s, d, w: d**-0.5 * min(s**-0.5, s * w**-1.5)),
        (check_greedy_decode, greedy_decode),
        (check_greedy_decode, right_greedy),
    ],
)
def test_right_answers_pass_and_stubs_are_reported(checker, right, capsys):
    assert checker(right) is True
    assert "hidden cases pass" in capsys.readouterr().out
    assert checker(stub) is False
    assert "not yet implemented" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("checker", "mistake", "hint"),
    [
        (check_layer_norm, ex._unbiased_variance, "unbiased variance"),
        (check_layer_norm, ex._eps_outside_sqrt, "inside the square root"),
        (check_layer_norm, ex._over_positions, "normalised over the positions"),
        (check_layer_norm, ex._no_gain_or_bias, "scaled by gamma"),
        (check_smoothing_floor, ex._floor_over_wrong_tokens, "all vocab_size tokens"),
        (check_smoothing_floor, ex._floor_right_token_only, "the right token's term alone"),
        (check_smoothing_floor, ex._floor_in_bits, "nats"),
        (check_smoothing_floor, ex._floor_without_right_share, "its share of the spread mass"),
        (check_noam_lr, ex._no_model_width, "d_model**-0.5"),
        (check_noam_lr, ex._max_instead_of_min, "min of the two branches"),
        (check_noam_lr, ex._warmup_power_half, "warmup_steps**-1.5"),
        (check_greedy_decode, ex._starts_from_pad, "start from bos_id"),
        (check_greedy_decode, ex._no_padding_after_eos, "fill the rest of that row"),
        (check_greedy_decode, ex._first_position_logits, "LAST position"),
    ],
)
def test_each_classic_mistake_fails_with_its_hint(checker, mistake, hint, capsys):
    assert checker(mistake) is False
    out = capsys.readouterr().out
    assert "FAILED" in out and "Hint: " in out and hint in out


def test_greedy_mistake_that_keeps_bos_fails_with_the_generic_hint(capsys):
    def keeps_bos(model, src, max_len, bos_id, eos_id):
        return torch.cat(
            [
                torch.full((src.shape[0], 1), bos_id),
                greedy_decode(model, src, max_len, bos_id, eos_id),
            ],
            1,
        )

    assert check_greedy_decode(keeps_bos) is False
    out = capsys.readouterr().out
    assert "expected shape" in out


def test_toy_copy_model_copies_from_bos_and_is_lost_without_it():
    model = ex.ToyCopyModel()
    src = torch.tensor([[5, 9, 4], [7, 0, 0]])
    assert greedy_decode(model, src, 4, bos_id=1, eos_id=2).tolist() == [[5, 9, 4, 2], [7, 2, 0, 0]]
    from_pad = greedy_decode(model, src, 4, bos_id=0, eos_id=2)
    assert from_pad.tolist() == [[3, 3, 3, 3], [3, 3, 3, 3]]


@pytest.mark.parametrize(("vocab_size", "eps"), [(13, 0.1), (37_000, 0.1), (2, 0.5), (50, 0.9)])
def test_smoothing_floor_is_the_smallest_smoothed_loss(vocab_size, eps):
    # At logits log q, sequence_loss equals the floor; sharper or random predictions pay more.
    targets = torch.tensor([[1, vocab_size - 1, 1]])  # (1, 3): ids other than pad 0
    q = torch.full((1, 3, vocab_size), eps / vocab_size, dtype=torch.float64)
    q.scatter_(-1, targets[..., None], 1 - eps + eps / vocab_size)
    floor = ex._smoothing_floor(vocab_size, eps)
    assert sequence_loss(q.log(), targets, label_smoothing=eps).item() == pytest.approx(floor)
    generator = torch.Generator().manual_seed(0)
    for _ in range(20):
        logits = q.log() + 0.5 * torch.randn(q.shape, generator=generator, dtype=torch.float64)
        assert sequence_loss(logits, targets, label_smoothing=eps).item() > floor


def test_smoothing_floor_known_values():
    assert ex._smoothing_floor(13, 0.1) == pytest.approx(0.5372207144, abs=1e-9)
    assert ex._smoothing_floor(2, 0.5) == pytest.approx(0.5623351446, abs=1e-9)  # q = (3/4, 1/4)
    assert ex._smoothing_floor(13, 0.0) == 0.0  # one-hot target: 0 log 0 = 0
