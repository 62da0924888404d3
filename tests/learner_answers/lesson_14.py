"""Notebook 14: Laplacian eigenvector and random-walk encodings."""

from __future__ import annotations

import numpy as np
import torch

from . import right, variant, wrong

# the words each loop-made answer's hint must contain
WORDS = {
    "lap_from_first_eigenvector": r"trivial eigenvector",
    "lap_skips_two": r"no simple relation",
    "lap_unnormalised": r"unnormalised Laplacian",
    "lap_largest_eigenvalues": r"no simple relation",
    "lap_rows_not_columns": r"expected shape \(5, 2\), got \(2, 5\)",
    "lap_scaled_by_two": r"times 2",
    "walk_from_step_two": r"one step late",
    "walk_rows_not_columns": r"transposed",
    "walk_row_sums": r"no simple relation",
    "walk_first_column_of_power": r"node 0 matches, nodes 1-3 differ",
}


def _inv_sqrt_degree(a):
    degree = a.sum(1)
    return np.where(degree > 0, 1 / np.sqrt(np.where(degree > 0, degree, 1)), 0.0)


# --- check_laplacian_pe(adjacency, k) -> (N, k) -------------------------------------------------


def laplacian_learner(a, k, *, first=1, normalised=True, largest=False, rows=False, scale=1.0):
    a = np.asarray(a, dtype=float)
    if normalised:
        s = _inv_sqrt_degree(a)
        lap = np.eye(len(a)) - s[:, None] * a * s[None, :]
    else:
        lap = np.diag(a.sum(1)) - a
    values, vectors = np.linalg.eigh(lap)
    if largest:
        vectors = vectors[:, ::-1]
    out = vectors[:, first : first + k] * scale
    return out.T if rows else out


for name, knobs in [
    ("lap_from_first_eigenvector", {"first": 0}),
    ("lap_skips_two", {"first": 2}),
    ("lap_unnormalised", {"normalised": False}),
    ("lap_largest_eigenvalues", {"largest": True}),
    ("lap_rows_not_columns", {"rows": True}),
    ("lap_scaled_by_two", {"scale": 2.0}),
]:
    wrong("check_laplacian_pe", WORDS[name])(variant(laplacian_learner, name, **knobs))


@wrong("check_laplacian_pe", r"no simple relation")
def lap_adjacency_eigenvectors(a, k):
    values, vectors = np.linalg.eigh(np.asarray(a, dtype=float))
    return vectors[:, 1 : k + 1]


@wrong("check_laplacian_pe", r"largest eigenvalues")
def lap_eig_unsorted(a, k):
    s = _inv_sqrt_degree(np.asarray(a, dtype=float))
    lap = np.eye(len(a)) - s[:, None] * a * s[None, :]
    values, vectors = np.linalg.eig(lap)
    return np.real(vectors[:, 1 : k + 1])


@wrong("check_laplacian_pe", r"I - D\^-1 A")
def lap_random_walk_laplacian(a, k):
    a = np.asarray(a, dtype=float)
    degree = a.sum(1)
    inv = np.where(degree > 0, 1 / np.where(degree > 0, degree, 1), 0.0)
    lap = np.eye(len(a)) - inv[:, None] * a
    values, vectors = np.linalg.eig(lap)
    order = np.argsort(values.real)
    vectors = np.real(vectors[:, order])
    return vectors[:, 1 : k + 1] / np.linalg.norm(vectors[:, 1 : k + 1], axis=0)


@wrong("check_laplacian_pe", r"no simple relation")
def lap_eigenvalues_returned(a, k):
    s = _inv_sqrt_degree(np.asarray(a, dtype=float))
    lap = np.eye(len(a)) - s[:, None] * a * s[None, :]
    values = np.linalg.eigvalsh(lap)
    return np.tile(values[1 : k + 1], (len(a), 1))


@right("check_laplacian_pe")
def lap_torch(a, k):
    a = torch.as_tensor(a, dtype=torch.float64)
    degree = a.sum(1)
    s = torch.where(degree > 0, degree.clamp(min=1e-12).rsqrt(), torch.zeros_like(degree))
    lap = torch.eye(len(a), dtype=torch.float64) - s[:, None] * a * s[None, :]
    return torch.linalg.eigh(lap).eigenvectors[:, 1 : k + 1]


@right("check_laplacian_pe")
def lap_signs_flipped(a, k):
    return -laplacian_learner(a, k)


@right("check_laplacian_pe")
def lap_loop_degrees(a, k):
    a = np.asarray(a, dtype=float)
    n = len(a)
    lap = np.eye(n)
    for i in range(n):
        for j in range(n):
            if a[i, j] and a[i].sum() and a[j].sum():
                lap[i, j] -= a[i, j] / np.sqrt(a[i].sum() * a[j].sum())
    return np.linalg.eigh(lap)[1][:, 1 : k + 1]


# --- check_random_walk_pe(adjacency, k) -> (N, k), column j = diag(P^(j+1)) ---------------------


def walk_learner(a, k, *, first=1, transpose_p=False, symmetric=False, rows=False, power_of=None):
    a = np.asarray(a, dtype=float)
    degree = a.sum(1)
    inv = np.where(degree > 0, 1 / np.where(degree > 0, degree, 1), 0.0)
    p = np.sqrt(inv)[:, None] * a * np.sqrt(inv)[None, :] if symmetric else inv[:, None] * a
    if transpose_p:
        p = p.T
    cols, m = [], np.linalg.matrix_power(p, first)
    for _ in range(k):
        cols.append(np.diag(m) if power_of is None else power_of(m))
        m = m @ p
    out = np.stack(cols, axis=1)
    return out.T if rows else out


for name, knobs in [
    ("walk_from_step_two", {"first": 2}),
    ("walk_rows_not_columns", {"rows": True}),
    ("walk_row_sums", {"power_of": lambda m: m.sum(1)}),
    ("walk_first_column_of_power", {"power_of": lambda m: m[:, 0]}),
]:
    wrong("check_random_walk_pe", WORDS[name])(variant(walk_learner, name, **knobs))


@wrong("check_random_walk_pe", r"matrix power")
def walk_powers_elementwise(a, k):
    a = np.asarray(a, dtype=float)
    degree = a.sum(1)
    p = np.where(degree[:, None] > 0, a / np.where(degree > 0, degree, 1)[:, None], 0)
    return np.stack([np.diag(p ** (j + 1)) for j in range(k)], axis=1)  # ** is elementwise


@wrong("check_random_walk_pe", r"steps 0 and 2 match, step 1 differs")
def walk_degree_not_inverted(a, k):
    a = np.asarray(a, dtype=float)
    p = a.sum(1)[:, None] * a
    m, cols = p.copy(), []
    for _ in range(k):
        cols.append(np.diag(m))
        m = m @ p
    return np.stack(cols, 1)


@wrong("check_random_walk_pe", r"one step late")
def walk_off_by_one_columns(a, k):
    return walk_learner(a, k + 1)[:, 1:]


@wrong("check_random_walk_pe", r"steps 0 and 2 match, step 1 differs")
def walk_float_degree_division_by_n(a, k):
    a = np.asarray(a, dtype=float)
    p = a / len(a)  # divides by the number of nodes
    m, cols = p.copy(), []
    for _ in range(k):
        cols.append(np.diag(m))
        m = m @ p
    return np.stack(cols, 1)


@wrong("check_random_walk_pe", r"steps 0-1 match, from step 2 on they differ")
def walk_squared_each_step(a, k):
    a = np.asarray(a, dtype=float)
    degree = a.sum(1)
    p = np.where(degree[:, None] > 0, a / np.where(degree > 0, degree, 1)[:, None], 0)
    m, cols = p.copy(), []
    for _ in range(k):
        cols.append(np.diag(m))
        m = m @ m  # P^2, P^4, ...
    return np.stack(cols, 1)


@wrong("check_random_walk_pe", r"no simple relation")
def walk_nan_for_isolated(a, k):
    a = np.asarray(a, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = a / a.sum(1, keepdims=True)
    m, cols = p.copy(), []
    for _ in range(k):
        cols.append(np.diag(m))
        m = m @ p
    return np.nan_to_num(np.stack(cols, 1), nan=1.0)


@right("check_random_walk_pe")
def walk_torch(a, k):
    a = torch.as_tensor(a, dtype=torch.float64)
    degree = a.sum(1, keepdim=True)
    p = torch.where(degree > 0, a / degree.clamp(min=1), torch.zeros_like(a))
    out, m = [], p
    for _ in range(k):
        out.append(torch.diagonal(m))
        m = m @ p
    return torch.stack(out, 1)


@right("check_random_walk_pe")
def walk_transposed_p(a, k):
    return walk_learner(a, k, transpose_p=True)  # diag(P^T^n) = diag(P^n)


@right("check_random_walk_pe")
def walk_einsum(a, k):
    p = walk_learner(a, 1)  # only to reuse nothing: compute again below
    a = np.asarray(a, dtype=float)
    degree = a.sum(1)
    q = np.divide(a, degree[:, None], out=np.zeros_like(a), where=degree[:, None] > 0)
    powers = [q]
    for _ in range(k - 1):
        powers.append(powers[-1] @ q)
    del p
    return np.stack([np.einsum("ii->i", m) for m in powers], 1)
