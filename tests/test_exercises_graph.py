"""Tests of the notebook-14 checkers: right answers pass (either sign per eigenvector), each
classic mistake is named, and the hidden cases have one answer up to signs."""

import numpy as np
import pytest
import torch

from helpers.encodings import laplacian_pe, random_walk_pe
from helpers.exercises import check_laplacian_pe, check_random_walk_pe
from helpers.exercises import graph as ex


def stub(*args):
    raise NotImplementedError


@pytest.mark.parametrize(
    ("checker", "right"),
    [(check_laplacian_pe, laplacian_pe), (check_random_walk_pe, random_walk_pe)],
)
def test_right_answers_pass_and_stubs_are_reported(checker, right, capsys):
    assert checker(right) is True
    assert "hidden cases pass" in capsys.readouterr().out
    assert checker(stub) is False
    assert "not yet implemented" in capsys.readouterr().out


def test_hidden_laplacian_cases_have_simple_eigenvalues():
    # Where eigenvalues repeat the answer is a basis among many and no checker could judge it.
    for a, k, label in ex._LAPLACIAN_CASES:
        np.testing.assert_array_equal(a, a.T)
        d = a.sum(1)
        inv = np.where(d > 0, 1 / np.sqrt(np.where(d > 0, d, 1)), 0.0)
        values = np.linalg.eigvalsh(np.eye(len(a)) - inv[:, None] * a * inv[None, :])
        assert np.diff(values[: k + 2]).min() > 1e-3, label
    assert any((a.sum(1) == 0).any() for a, _, _ in ex._LAPLACIAN_CASES)
    assert any((a.sum(1) == 0).any() for a, _, _ in ex._RANDOM_WALK_CASES)


def test_any_sign_per_column_passes_and_torch_answers_pass(capsys):
    def flipped(a, k):
        return laplacian_pe(a, k) * np.where(np.arange(k) % 2, -1.0, 1.0)

    assert check_laplacian_pe(flipped) is True
    assert check_laplacian_pe(lambda a, k: torch.tensor(laplacian_pe(a, k)).float()) is True
    assert check_random_walk_pe(lambda a, k: torch.tensor(random_walk_pe(a, k))) is True
    capsys.readouterr()


def _my_laplacian_pe(a, k):
    # A learner's independent version: explicit loops for the degrees, eigh, any signs.
    a = np.asarray(a, dtype=float)
    inv = np.zeros(len(a))
    for i, degree in enumerate(a.sum(1)):
        if degree > 0:
            inv[i] = degree**-0.5
    values, vectors = np.linalg.eigh(np.eye(len(a)) - inv[:, None] * a * inv[None, :])
    return -vectors[:, 1 : k + 1]


def test_an_independent_answer_passes(capsys):
    assert check_laplacian_pe(_my_laplacian_pe) is True
    capsys.readouterr()


@pytest.mark.parametrize(
    ("checker", "mistake", "words"),
    [
        (check_laplacian_pe, ex._unnormalised, "unnormalised Laplacian D - A"),
        (check_laplacian_pe, ex._trivial_kept, "trivial eigenvector"),
        (check_laplacian_pe, ex._random_walk_laplacian, "D^-1 on one side only"),
        (check_laplacian_pe, ex._zero_at_isolated, "isolated node needs L_ii = 1"),
        (check_laplacian_pe, ex._largest_eigenvalues, "largest eigenvalues"),
        (check_random_walk_pe, ex._from_step_zero, "step 0"),
        (check_random_walk_pe, ex._closed_walk_counts, "counts of closed walks"),
        (check_random_walk_pe, ex._from_step_two, "one step late"),
    ],
)
def test_each_classic_mistake_is_named(checker, mistake, words, capsys):
    assert checker(mistake) is False
    out = capsys.readouterr().out
    assert "FAILED" in out and "Hint:" in out
    assert words in out, out


def test_a_division_by_zero_at_an_isolated_node_fails_with_the_hint(capsys):
    def nan_rows(a, k):
        walk = a / a.sum(1, keepdims=True)  # 0/0 = NaN for the isolated node
        return ex._walk_powers(walk, 1, k)

    with np.errstate(invalid="ignore", divide="ignore"):
        assert check_random_walk_pe(nan_rows) is False
    out = capsys.readouterr().out
    assert "isolated node" in out and "division by zero" in out


def test_d_inverse_on_the_right_gives_the_same_return_probabilities(capsys):
    # A D^-1 = D (D^-1 A) D^-1 is similar to D^-1 A: every power has the same diagonal, so
    # putting D^-1 on the other side is not a mistake for this encoding (notebook 14 shows it).
    def right_side(a, k):
        d = a.sum(1)
        return ex._walk_powers(a * np.where(d > 0, 1 / np.where(d > 0, d, 1), 0.0)[None, :], 1, k)

    assert check_random_walk_pe(right_side) is True
    capsys.readouterr()


def test_the_networkx_convention_fails_only_on_the_isolated_node(capsys):
    # D^-1/2 (D - A) D^-1/2 with 0 for isolated nodes, built by a learner: right on every
    # connected case, wrong (L_ii = 0) on the isolated node, and the hint names the convention
    def networkx_convention(a, k):
        degree = a.sum(1)
        d = np.where(degree > 0, 1 / np.sqrt(np.where(degree > 0, degree, 1.0)), 0.0)
        laplacian = d[:, None] * (np.diag(degree) - a) * d[None, :]
        return np.linalg.eigh(laplacian)[1][:, 1 : k + 1]

    assert check_laplacian_pe(networkx_convention) is False
    out = capsys.readouterr().out
    assert "isolated node" in out and "L_ii = 1" in out, out


# ------------------------------------------------------------------------------ learners' answers
# Wrong answers written as a learner would write them (not the checker's own mistake functions),
# each run with every pattern of column signs: which sign an eigensolver returns is round-off's
# choice, so the hint must not depend on it.


def _learner_degrees(a, power):
    degree = a.sum(axis=1)
    out = np.zeros(len(a))
    out[degree > 0] = degree[degree > 0] ** -power
    return out


def _learner_normalised(a):
    d = _learner_degrees(a, 0.5)
    return np.eye(len(a)) - np.diag(d) @ a @ np.diag(d)


def learner_unnormalised(a, k):
    return np.linalg.eigh(np.diag(a.sum(axis=1)) - a)[1][:, 1 : k + 1]


def learner_trivial_kept(a, k):
    return np.linalg.eigh(_learner_normalised(a))[1][:, :k]


def learner_largest_first(a, k):
    return np.linalg.eigh(_learner_normalised(a))[1][:, ::-1][:, :k]


def learner_largest_last_k(a, k):
    return np.linalg.eigh(_learner_normalised(a))[1][:, -k:]


def learner_d_inverse_one_side(a, k):
    values, vectors = np.linalg.eig(np.eye(len(a)) - np.diag(_learner_degrees(a, 1.0)) @ a)
    order = np.argsort(values.real)[1 : k + 1]
    vectors = vectors[:, order].real
    return vectors / np.linalg.norm(vectors, axis=0)


def learner_networkx_form(a, k):
    d = np.diag(_learner_degrees(a, 0.5))
    return np.linalg.eigh(d @ (np.diag(a.sum(axis=1)) - a) @ d)[1][:, 1 : k + 1]


def learner_torch_trivial_kept(a, k):
    laplacian = torch.tensor(_learner_normalised(a), dtype=torch.float32)
    return torch.linalg.eigh(laplacian).eigenvectors[:, :k]


LEARNER_LAPLACIAN = [
    (learner_unnormalised, "unnormalised Laplacian D - A"),
    (learner_trivial_kept, "trivial eigenvector"),
    (learner_torch_trivial_kept, "trivial eigenvector"),
    (learner_largest_first, "largest eigenvalues"),
    (learner_largest_last_k, "largest eigenvalues"),
    (learner_d_inverse_one_side, "D^-1 on one side only"),
    (learner_networkx_form, "isolated node needs L_ii = 1"),
]
SIGN_PATTERNS = [np.array([(-1.0) ** (bits >> c & 1) for c in range(4)]) for bits in range(16)]


def with_signs(answer, pattern):
    def fn(a, k):
        result = answer(a, k)
        return result * (torch.tensor(pattern[:k]) if torch.is_tensor(result) else pattern[:k])

    return fn


@pytest.mark.parametrize(
    ("answer", "words"), LEARNER_LAPLACIAN, ids=lambda x: getattr(x, "__name__", "")
)
def test_learners_laplacian_mistakes_get_their_hint_for_every_sign(answer, words, capsys):
    for pattern in SIGN_PATTERNS:
        assert check_laplacian_pe(with_signs(answer, pattern)) is False
        out = capsys.readouterr().out
        assert words in out, (pattern, out)


def test_learners_right_answers_pass_for_every_sign(capsys):
    for pattern in SIGN_PATTERNS:
        assert check_laplacian_pe(with_signs(_my_laplacian_pe, pattern)) is True
    capsys.readouterr()


def learner_matrix_power_of_a(a, k):
    return np.stack([np.diag(np.linalg.matrix_power(a, j)) for j in range(1, k + 1)], axis=1)


def _learner_p(a):
    return np.diag(_learner_degrees(a, 1.0)) @ a


def learner_elementwise(a, k):
    p = _learner_p(a)
    return np.stack([np.diag(p**j) for j in range(1, k + 1)], axis=1)


def learner_lazy(a, k):
    lazy = 0.5 * (np.eye(len(a)) + _learner_p(a))
    return np.stack([np.diag(np.linalg.matrix_power(lazy, j)) for j in range(1, k + 1)], axis=1)


def learner_transposed(a, k):
    p, power, rows = _learner_p(a), np.eye(len(a)), []
    for _ in range(k):
        power = power @ p
        rows.append(np.diag(power))
    return np.array(rows)  # (k, N)


def learner_range_from_zero(a, k):
    return np.stack([np.diag(np.linalg.matrix_power(_learner_p(a), j)) for j in range(k)], axis=1)


def learner_range_from_two(a, k):
    p = _learner_p(a)
    return np.stack([np.diag(np.linalg.matrix_power(p, j)) for j in range(2, k + 2)], axis=1)


def learner_divides_by_zero(a, k):
    p = torch.tensor(a) / torch.tensor(a).sum(dim=1, keepdim=True)  # NaN rows, no warning
    return torch.stack([torch.linalg.matrix_power(p, j).diagonal() for j in range(1, k + 1)], 1)


LEARNER_RANDOM_WALK = [
    (learner_matrix_power_of_a, "counts of closed walks"),
    (learner_elementwise, "matrix power"),
    (learner_lazy, "lazy walk"),
    (learner_transposed, "transposed"),
    (learner_range_from_zero, "step 0"),
    (learner_range_from_two, "one step late"),
    (learner_divides_by_zero, "isolated node"),
]


@pytest.mark.parametrize(
    ("answer", "words"), LEARNER_RANDOM_WALK, ids=lambda x: getattr(x, "__name__", "")
)
def test_learners_random_walk_mistakes_get_their_hint(answer, words, capsys):
    assert check_random_walk_pe(answer) is False
    out = capsys.readouterr().out
    assert words in out, out
    if words != "isolated node":
        assert "isolated" not in out, out
