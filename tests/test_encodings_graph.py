"""Unit tests of helpers.encodings.graph: hand-computed values on small graphs, the cycle's
Fourier identities, distances against networkx, isolated nodes and the sign convention."""

import networkx as nx
import numpy as np
import pytest
import torch

from helpers.encodings import laplacian_pe, random_walk_pe, shortest_path_distances

S2 = np.sqrt(2.0)


def adjacency(graph: nx.Graph) -> np.ndarray:
    return nx.to_numpy_array(graph, nodelist=range(graph.number_of_nodes()))


PATH3 = adjacency(nx.path_graph(3))  # 0 - 1 - 2
CYCLE4 = adjacency(nx.cycle_graph(4))
STAR = adjacency(nx.star_graph(3))  # centre 0, leaves 1, 2, 3
EDGE_AND_ISOLATED = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])  # 0 - 1, node 2 alone


def normalised_laplacian(a: np.ndarray) -> np.ndarray:
    degree = a.sum(1)
    d = np.where(degree > 0, 1 / np.sqrt(np.where(degree > 0, degree, 1)), 0.0)
    return np.eye(len(a)) - d[:, None] * a * d[None, :]


# ------------------------------------------------------------------------------ hand values


def test_laplacian_pe_path_of_three_by_hand():
    # Degrees 1, 2, 1; eigenvalues 0, 1, 2. Eigenvalue 1: (1, 0, -1)/sqrt(2) (a tie of
    # magnitudes: the first entry is made positive); eigenvalue 2: (1, -sqrt(2), 1)/2, whose
    # largest entry is the middle one, made positive.
    expected = np.array([[1 / S2, -0.5], [0.0, S2 / 2], [-1 / S2, -0.5]])
    pe = laplacian_pe(PATH3, 2)
    assert pe.dtype == np.float64 and pe.shape == (3, 2)
    np.testing.assert_allclose(pe, expected, atol=1e-12)


def test_laplacian_pe_isolated_node_by_hand():
    # Edge 0-1: eigenvalues 0 and 2, (1, -1)/sqrt(2) for 2. Isolated node: its row of
    # D^-1/2 A D^-1/2 is 0, so L_22 = 1 and e_2 is the eigenvector for eigenvalue 1.
    pe = laplacian_pe(EDGE_AND_ISOLATED, 2)
    expected = np.array([[0.0, 1 / S2], [0.0, -1 / S2], [1.0, 0.0]])
    np.testing.assert_allclose(pe, expected, atol=1e-12)
    assert np.isfinite(pe).all()


def test_random_walk_pe_path_of_three_by_hand():
    # D^-1 A = [[0, 1, 0], [1/2, 0, 1/2], [0, 1, 0]]: odd steps cannot return (bipartite);
    # after 2 steps the ends are back with probability 1/2, the middle with 1.
    expected = np.array([[0, 0.5, 0, 0.5], [0, 1, 0, 1], [0, 0.5, 0, 0.5]])
    pe = random_walk_pe(PATH3, 4)
    assert pe.dtype == np.float64 and pe.shape == (3, 4)
    np.testing.assert_allclose(pe, expected, atol=1e-15)


def test_random_walk_pe_cycle_of_four_by_hand():
    # 2 steps: out and back, 1/2 * 1/2 for each of 2 neighbours = 1/2. 4 steps: of the 16
    # equally likely walks, 6 take 2 steps each way and 2 go once round the cycle: 8/16.
    pe = random_walk_pe(CYCLE4, 4)
    np.testing.assert_allclose(pe, np.tile([0, 0.5, 0, 0.5], (4, 1)), atol=1e-15)


def test_random_walk_pe_star_by_hand():
    # Centre: goes to a leaf, which must come back: 1. A leaf: to the centre, then back to
    # itself with probability 1/3.
    pe = random_walk_pe(STAR, 2)
    np.testing.assert_allclose(pe, [[0, 1], [0, 1 / 3], [0, 1 / 3], [0, 1 / 3]], atol=1e-15)


def test_random_walk_pe_of_one_step_is_zero_without_self_loops():
    """k = 1: a walk of one step never stands on its start, so the column is 0 (a walk of
    two steps on the path 0 - 1 - 2 returns with probability 1/2, 1, 1/2)."""
    np.testing.assert_array_equal(random_walk_pe(PATH3, 1), np.zeros((3, 1)))
    np.testing.assert_allclose(random_walk_pe(PATH3, 2)[:, 1], [0.5, 1.0, 0.5])


def test_random_walk_pe_isolated_node_row_is_zero():
    pe = random_walk_pe(EDGE_AND_ISOLATED, 3)
    np.testing.assert_array_equal(pe, [[0, 1, 0], [0, 1, 0], [0, 0, 0]])


def test_shortest_path_distances_by_hand():
    expected_path = [[0, 1, 2], [1, 0, 1], [2, 1, 0]]
    distances = shortest_path_distances(PATH3)
    assert distances.dtype == np.int64
    np.testing.assert_array_equal(distances, expected_path)
    np.testing.assert_array_equal(
        shortest_path_distances(CYCLE4), [[0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]]
    )
    star = shortest_path_distances(STAR)
    assert star[0, 1:].tolist() == [1, 1, 1] and star[1, 2:].tolist() == [2, 2]
    np.testing.assert_array_equal(
        shortest_path_distances(EDGE_AND_ISOLATED), [[0, 1, -1], [1, 0, -1], [-1, -1, 0]]
    )


def test_single_node():
    assert shortest_path_distances(np.zeros((1, 1))).tolist() == [[0]]
    assert random_walk_pe(np.zeros((1, 1)), 2).tolist() == [[0.0, 0.0]]
    with pytest.raises(ValueError, match="k must be at most N - 1 = 0"):
        laplacian_pe(np.zeros((1, 1)), 1)


# ------------------------------------------------------------------------------ identities


@pytest.mark.parametrize("n", [5, 8, 12])
def test_cycle_laplacian_eigenvectors_are_sines_and_cosines(n):
    # The cycle's L = I - A/2 has eigenvalues 1 - cos(2 pi j / N), j = 0 .. N/2, each
    # non-zero one double (j and N - j) except j = N/2; its eigenspace is spanned by
    # cos(2 pi j t / N) and sin(2 pi j t / N).
    a = adjacency(nx.cycle_graph(n))
    pe = laplacian_pe(a, n - 1)  # (N, N - 1)
    eigenvalues = np.einsum("ti,ts,si->i", pe, normalised_laplacian(a), pe)  # Rayleigh quotients
    j = np.arange(n)
    np.testing.assert_allclose(eigenvalues, np.sort(1 - np.cos(2 * np.pi * j / n))[1:], atol=1e-12)
    t = np.arange(n)
    for column, value in zip(pe.T, eigenvalues, strict=True):
        # a computed eigenvalue 2 can be 2 + 4e-16: clip into arccos's domain [-1, 1] first
        harmonic = int(round(np.arccos(np.clip(1 - value, -1.0, 1.0)) * n / (2 * np.pi)))
        basis = np.stack(
            [np.cos(2 * np.pi * harmonic * t / n), np.sin(2 * np.pi * harmonic * t / n)]
        )
        coefficients, *_ = np.linalg.lstsq(basis.T, column, rcond=None)
        np.testing.assert_allclose(basis.T @ coefficients, column, atol=1e-10)


def test_path_laplacian_eigenvectors_are_cosines():
    # On a path of N nodes, D^-1 A maps cos(pi j t / (N - 1)) to cos(pi j / (N - 1)) times
    # itself (the ends reflect), so L's eigenvectors are D^1/2 times these cosines, with
    # eigenvalues 1 - cos(pi j / (N - 1)), all simple.
    n = 7
    a = adjacency(nx.path_graph(n))
    pe = laplacian_pe(a, n - 1)
    t = np.arange(n)
    for j, column in enumerate(pe.T, start=1):
        cosine = np.sqrt(a.sum(1)) * np.cos(np.pi * j * t / (n - 1))
        cosine /= np.linalg.norm(cosine)
        np.testing.assert_allclose(abs(column @ cosine), 1.0, atol=1e-12)


def test_cycle_return_probability_after_two_steps_is_one_half():
    for n in (3, 6, 11):
        pe = random_walk_pe(adjacency(nx.cycle_graph(n)), 2)
        np.testing.assert_allclose(pe[:, 1], 0.5, atol=1e-15)
        np.testing.assert_allclose(pe[:, 0], 0.0, atol=1e-15)
    # a triangle returns in 3 steps with probability 2 * (1/2)**3 = 1/4
    np.testing.assert_allclose(random_walk_pe(adjacency(nx.cycle_graph(3)), 3)[:, 2], 0.25)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_distances_equal_networkx(seed):
    graph = nx.gnp_random_graph(15, 0.15, seed=seed)  # often disconnected
    expected = np.full((15, 15), -1)
    for source, lengths in nx.all_pairs_shortest_path_length(graph):
        for target, hops in lengths.items():
            expected[source, target] = hops
    np.testing.assert_array_equal(shortest_path_distances(adjacency(graph)), expected)


@pytest.mark.parametrize("seed", [3, 4])
def test_laplacian_pe_columns_are_orthonormal_eigenvectors_with_fixed_signs(seed):
    graph = nx.connected_watts_strogatz_graph(12, 4, 0.3, seed=seed)
    a = adjacency(graph)
    pe = laplacian_pe(a, 5)
    np.testing.assert_allclose(pe.T @ pe, np.eye(5), atol=1e-12)
    laplacian = normalised_laplacian(a)
    values = np.linalg.eigvalsh(laplacian)
    np.testing.assert_allclose(laplacian @ pe, pe * values[1:6], atol=1e-10)
    trivial = np.sqrt(a.sum(1))  # the dropped eigenvector, for a connected graph
    np.testing.assert_allclose(trivial @ pe, 0.0, atol=1e-10)
    largest = np.abs(pe).argmax(axis=0)
    assert (pe[largest, np.arange(5)] > 0).all()


def test_random_walk_pe_is_permutation_equivariant():
    a = adjacency(nx.gnp_random_graph(10, 0.3, seed=5))
    perm = np.random.default_rng(0).permutation(10)
    permuted = a[perm][:, perm]
    np.testing.assert_allclose(random_walk_pe(permuted, 6), random_walk_pe(a, 6)[perm], atol=1e-14)
    np.testing.assert_array_equal(
        shortest_path_distances(permuted), shortest_path_distances(a)[perm][:, perm]
    )


def test_tensor_bool_and_int_adjacency_give_the_same_numpy_results():
    reference = laplacian_pe(STAR, 2)
    for version in (torch.tensor(STAR), torch.tensor(STAR > 0), STAR.astype(np.int64), STAR > 0):
        np.testing.assert_array_equal(laplacian_pe(version, 2), reference)
        assert isinstance(random_walk_pe(version, 2), np.ndarray)
        assert shortest_path_distances(version).dtype == np.int64


def test_inputs_are_not_modified():
    a = PATH3.copy()
    laplacian_pe(a, 1)
    random_walk_pe(a, 2)
    shortest_path_distances(a)
    np.testing.assert_array_equal(a, PATH3)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: laplacian_pe(PATH3, 3), ValueError, "k must be at most N - 1 = 2"),
        (lambda: laplacian_pe(PATH3, 0), ValueError, "k must be a positive integer"),
        (lambda: random_walk_pe(PATH3, 2.0), TypeError, "k must be an integer"),
        (lambda: shortest_path_distances([[0, 1], [1, 0]]), TypeError, "got list"),
        (lambda: shortest_path_distances(np.zeros((2, 3))), ValueError, "(2, 3)"),
        (lambda: shortest_path_distances(np.zeros((0, 0))), ValueError, "(0, 0)"),
        (lambda: random_walk_pe(2 * PATH3, 1), ValueError, "only 0 and 1, got the value 2.0"),
        (lambda: laplacian_pe(np.triu(CYCLE4), 1), ValueError, "symmetric"),
        (lambda: random_walk_pe(np.eye(3), 1), ValueError, "self-loops"),
        (lambda: random_walk_pe(np.array([[0.5]]), 1), ValueError, "got the value 0.5"),
        (lambda: random_walk_pe(np.diag([0, 1]), 1), ValueError, "adjacency[1, 1] = 1"),
        (lambda: laplacian_pe(np.array([["a"]]), 1), TypeError, "dtype <U1"),
        (lambda: random_walk_pe(np.full((2, 2), np.nan), 1), ValueError, "nan"),
    ],
)
def test_bad_inputs_name_the_argument(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)
