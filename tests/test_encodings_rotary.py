"""Unit tests of helpers.encodings.rotary: hand values, RoPE's properties, layouts, bad inputs."""

import math

import pytest
import torch

from helpers.encodings import (
    apply_rotary,
    interleaved_to_half_permutation,
    rotary_frequencies,
    rotate_half,
    rotate_interleaved,
)


def _random(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_frequencies_use_the_pair_index():
    omega = rotary_frequencies(8)
    torch.testing.assert_close(
        omega, torch.tensor([1.0, 10000**-0.25, 10000**-0.5, 10000**-0.75], dtype=torch.float64)
    )
    assert rotary_frequencies(4, base=100.0).tolist() == pytest.approx([1.0, 0.1])


def test_hand_computed_rotation_d4_interleaved():
    # d = 4: pair 0 (dims 0, 1) turns by t * 1, pair 1 (dims 2, 3) by t * 0.01.
    x = torch.tensor([[1.0, 0.0, 0.0, 1.0]], dtype=torch.float64)  # one row, seq_len = 1
    t = 3
    out = apply_rotary(x, torch.tensor([t]))
    expected = [math.cos(3), math.sin(3), -math.sin(0.03), math.cos(0.03)]
    torch.testing.assert_close(out[0], torch.tensor(expected, dtype=torch.float64))


def test_hand_computed_rotation_d4_half():
    # Half layout: pairs (0, 2) turn by t * 1 and (1, 3) by t * 0.01.
    x = torch.tensor([[1.0, 0.0, 0.0, 1.0]], dtype=torch.float64)
    out = apply_rotary(x, torch.tensor([3]), layout="half")
    expected = [math.cos(3), -math.sin(0.03), math.sin(3), math.cos(0.03)]
    torch.testing.assert_close(out[0], torch.tensor(expected, dtype=torch.float64))


def test_default_positions_count_from_zero():
    x = _random(2, 5, 8)
    torch.testing.assert_close(apply_rotary(x), apply_rotary(x, torch.arange(5)))
    torch.testing.assert_close(apply_rotary(x), apply_rotary(x, [0, 1, 2, 3, 4]))


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_position_zero_is_identity_and_norms_are_preserved(layout):
    x = _random(3, 7, 16)
    out = apply_rotary(x, layout=layout)
    torch.testing.assert_close(out[:, 0], x[:, 0])
    assert not torch.allclose(out[:, 1:], x[:, 1:])
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1))
    assert out.shape == x.shape and out.dtype == x.dtype


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_score_depends_only_on_offset(layout):
    d = 16
    q, k = _random(d, seed=1), _random(d, seed=2)

    def score(m, n):
        qm = apply_rotary(q[None], torch.tensor([m]), layout=layout)[0]
        kn = apply_rotary(k[None], torch.tensor([n]), layout=layout)[0]
        return float(qm @ kn)

    for offset in (-5, 0, 3, 11):
        reference = score(0, offset) if offset >= 0 else score(-offset, 0)
        for m in (20, 57, 1000):
            assert score(m, m + offset) == pytest.approx(reference, abs=1e-9)
    assert score(0, 3) != pytest.approx(score(0, 4), abs=1e-3)  # it does depend on the offset


def test_layouts_equal_up_to_a_fixed_permutation():
    x = _random(2, 9, 12)
    perm = interleaved_to_half_permutation(12)
    assert perm.tolist() == [0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11]
    torch.testing.assert_close(
        apply_rotary(x)[..., perm], apply_rotary(x[..., perm], layout="half")
    )
    # ... but they are not the same function of the same vector.
    assert not torch.allclose(apply_rotary(x), apply_rotary(x, layout="half"))


def test_mixing_layouts_breaks_the_relative_property():
    # Queries rotated with one layout, keys with the other (weights trained for one, code
    # written for the other): the score now depends on the absolute positions.
    d = 16
    q, k = _random(d, seed=3), _random(d, seed=4)

    def mixed_score(m, n):
        qm = apply_rotary(q[None], torch.tensor([m]), layout="interleaved")[0]
        kn = apply_rotary(k[None], torch.tensor([n]), layout="half")[0]
        return float(qm @ kn)

    scores = [mixed_score(m, m + 3) for m in (0, 5, 10, 40)]
    assert max(scores) - min(scores) > 0.1


def test_rotate_helpers_hand_values():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0])
    assert rotate_half(x).tolist() == [-3.0, -4.0, 1.0, 2.0]
    assert rotate_interleaved(x).tolist() == [-2.0, 1.0, -4.0, 3.0]


def test_positions_broadcast_over_batch_and_float_positions():
    x = _random(2, 4, 8)
    pos = torch.tensor([[0, 1, 2, 3], [10, 11, 12, 13]])
    out = apply_rotary(x, pos)
    torch.testing.assert_close(out[1], apply_rotary(x[1], torch.arange(10, 14)))
    torch.testing.assert_close(apply_rotary(x, torch.arange(4.0)), apply_rotary(x))


def test_float32_and_gradients():
    x = torch.randn(2, 3, 6, requires_grad=True)
    out = apply_rotary(x)
    assert out.dtype == torch.float32
    out.sum().backward()
    assert x.grad is not None and x.grad.shape == x.shape


def test_base_changes_frequency():
    x = torch.tensor([[0.0, 0.0, 1.0, 0.0]], dtype=torch.float64)
    out = apply_rotary(x, torch.tensor([2]), base=100.0)  # omega_1 = 0.1
    torch.testing.assert_close(
        out[0, 2:], torch.tensor([math.cos(0.2), math.sin(0.2)], dtype=torch.float64)
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"x": torch.zeros(3, 5)}, ValueError, "x"),
        ({"x": torch.zeros(4)}, ValueError, "x"),
        ({"x": torch.zeros(3, 4, dtype=torch.long)}, TypeError, "x"),
        ({"x": [[0.0, 1.0]]}, TypeError, "x"),
        ({"x": torch.zeros(3, 4), "positions": torch.arange(4)}, ValueError, "positions"),
        ({"x": torch.zeros(3, 4), "positions": torch.tensor(2)}, ValueError, "positions"),
        (
            {"x": torch.zeros(3, 4), "positions": torch.ones(3, dtype=torch.bool)},
            TypeError,
            "positions",
        ),
        ({"x": torch.zeros(3, 4), "positions": "012"}, TypeError, "positions"),
        ({"x": torch.zeros(3, 4), "layout": "split"}, ValueError, "layout"),
        ({"x": torch.zeros(3, 4), "base": 0.0}, ValueError, "base"),
        ({"x": torch.zeros(3, 4), "base": "big"}, TypeError, "base"),
    ],
)
def test_bad_arguments(kwargs, error, name):
    with pytest.raises(error, match=name):
        apply_rotary(**kwargs)


def test_bad_arguments_of_small_helpers():
    with pytest.raises(ValueError, match="d"):
        rotary_frequencies(5)
    with pytest.raises(ValueError, match="d"):
        interleaved_to_half_permutation(0)
    with pytest.raises(ValueError, match="x"):
        rotate_half(torch.zeros(3))
    with pytest.raises(TypeError, match="x"):
        rotate_interleaved([1.0, 2.0])


def test_interleaved_equals_complex_multiplication():
    # Independent reference (Meta's LLaMA formulation): view pairs (2k, 2k+1) as complex
    # numbers and multiply by exp(i * t * omega_k).
    x = _random(6, 10)
    t = torch.arange(6, dtype=torch.float64)
    omega = 10000.0 ** (-torch.arange(0, 10, 2, dtype=torch.float64) / 10)
    z = torch.view_as_complex(x.reshape(6, 5, 2).contiguous())
    reference = torch.view_as_real(
        z * torch.polar(torch.ones(6, 5, dtype=torch.float64), t[:, None] * omega)
    )
    torch.testing.assert_close(apply_rotary(x), reference.reshape(6, 10))
