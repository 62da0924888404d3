"""Notebooks 02-05: binary positions, the sinusoidal table and its wavelengths, the offset
matrix, token embeddings plus positions."""

from __future__ import annotations

import math

import numpy as np
import torch

from . import right, variant, wrong

# --- check_sinusoidal(num_positions, d_model) -> (T, d) ---------------------------------------


def pe_learner(
    num_positions,
    d_model,
    *,
    power=None,
    angle_of=None,
    degrees=False,
    base=10000.0,
    second="cos",
    transpose=False,
):
    t = np.arange(num_positions)[:, None]
    k = np.arange(d_model // 2)[None, :]
    omega = base ** (-2 * k / d_model) if power is None else power(k, d_model)
    angles = t * omega if angle_of is None else angle_of(t, omega)
    if degrees:
        angles = np.degrees(angles)
    pe = np.zeros((num_positions, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = {"cos": np.cos, "sin": np.sin, "-cos": lambda a: -np.cos(a)}[second](angles)
    return pe.T if transpose else pe


for name, knobs, words in [
    # lesson 13's three frequency bugs, as a learner re-types them
    ("pe_integer_exponent", {"power": lambda k, d: 1.0 / 10000 ** (2 * k // d)}, r"base\*\*\(0\)"),
    ("pe_divided_by_frequency", {"angle_of": lambda t, w: t / w}, r"base\*\*\(\+2k/r\)"),
    (
        "pe_floor_division",
        {"power": lambda k, d: np.exp(2 * k * (-math.log(10000.0) // d))},
        r"pair 0 matches, every other pair differs",
    ),
    ("pe_degrees", {"degrees": True}, r"in degrees"),
    ("pe_base_1000", {"base": 1000.0}, r"pair 0 matches, every other pair differs"),
    ("pe_exponent_k_over_d", {"power": lambda k, d: 10000.0 ** (-k / d)}, r"base\*\*\(-k/r\)"),
    (
        "pe_cos_minus",
        {"second": "-cos"},
        r"features 1 and 3 differ; where they differ, yours are the expected values with the opposite sign",
    ),
    ("pe_sin_twice", {"second": "sin"}, r"features 0 and 2 match, features 1 and 3 differ"),
    ("pe_transposed", {"transpose": True}, r"transposed"),
    (
        "pe_pairs_from_one",
        {"power": lambda k, d: 10000.0 ** (-2 * (k + 1) / d)},
        r"feature m is the expected feature m \+ 2",
    ),
]:
    wrong("check_sinusoidal", words)(variant(pe_learner, name, **knobs))


@right("check_sinusoidal")
def pe_loops(num_positions, d_model):
    table = [[0.0] * d_model for _ in range(num_positions)]
    for t in range(num_positions):
        for i in range(0, d_model, 2):
            table[t][i] = math.sin(t / 10000 ** (i / d_model))
            table[t][i + 1] = math.cos(t / 10000 ** (i / d_model))
    return np.array(table).reshape(num_positions, d_model)


@right("check_sinusoidal")
def pe_complex(num_positions, d_model):
    z = np.exp(
        1j * np.arange(num_positions)[:, None] * 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    )
    return np.stack([z.imag, z.real], axis=-1).reshape(num_positions, d_model)


@right("check_sinusoidal")
def pe_torch_float32(num_positions, d_model):
    t = torch.arange(num_positions, dtype=torch.float32)[:, None]
    div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
    pe = torch.zeros(num_positions, d_model)
    pe[:, 0::2] = torch.sin(t * div)
    pe[:, 1::2] = torch.cos(t * div)
    return pe


# --- check_binary_encoding(positions, num_bits) -> (n, num_bits), least significant first ----


def bits_learner(
    positions, num_bits, *, extra=0, shift=0, flip=False, transpose=False, no_mod=False
):
    out = np.zeros((len(positions), num_bits + extra), dtype=int)
    for row, t in enumerate(positions):
        for j in range(num_bits + extra):
            value = int(t) // 2 ** (j + shift)
            out[row, j] = value if no_mod else value % 2
    if flip:
        out = 1 - out
    return out.T if transpose else out


for name, knobs, words in [
    ("bits_one_too_many", {"extra": 1}, r"more bits than expected"),
    ("bits_from_bit_one", {"shift": 1}, r"your bit m is the expected bit m \+ 1"),
    ("bits_inverted", {"flip": True}, r"0s and 1s are exchanged"),
    ("bits_transposed", {"transpose": True}, r"transposed"),
    ("bits_without_mod", {"no_mod": True}, r"no simple relation"),
]:
    wrong("check_binary_encoding", words)(variant(bits_learner, name, **knobs))


@wrong("check_binary_encoding", r"most significant bit")
def bits_string_formatting(positions, num_bits):
    return np.array([[int(c) for c in format(int(t), f"0{num_bits}b")] for t in positions])


@wrong("check_binary_encoding", r"positions 0-2 match, position 3 differs")
def bits_clipped_to_range(positions, num_bits):
    clipped = np.minimum(positions, 2**num_bits - 1)  # no wrap past 2**num_bits
    return bits_learner(clipped, num_bits)


@wrong("check_binary_encoding", r"your bit m is the expected bit m \+ 1")
def bits_float_division(positions, num_bits):
    j = np.arange(num_bits)
    return np.floor(positions[:, None] / 2.0 ** (j + 1)) % 2  # halves one time too many


@wrong("check_binary_encoding", r"more bits than expected")
def bits_log2_count(positions, num_bits):
    n = int(math.log2(max(int(np.max(positions)), 1))) + 1  # bits the data needs, not num_bits
    return bits_learner(positions, n)


@wrong("check_binary_encoding", r"bit 0 matches, bits 1-2 differ")
def bits_power_values(positions, num_bits):
    j = np.arange(num_bits)
    return (positions[:, None] & (1 << j)).astype(float)  # the bit's value, not 0/1


@wrong("check_binary_encoding", r"fewer bits than expected .*8 instead of 10")
def bits_unpacked_from_one_byte(positions, num_bits):
    byte = np.asarray(positions).astype(np.uint8)[:, None]  # 8 bits at most
    return np.unpackbits(byte, axis=1, bitorder="little")[:, :num_bits].astype(float)


@right("check_binary_encoding")
def bits_shift_and(positions, num_bits):
    return (torch.as_tensor(positions)[:, None] >> torch.arange(num_bits)) & 1


@right("check_binary_encoding")
def bits_bool(positions, num_bits):
    return (np.asarray(positions)[:, None] // 2 ** np.arange(num_bits)) % 2 == 1


@right("check_binary_encoding")
def bits_loop(positions, num_bits):
    return bits_learner(positions, num_bits)


# --- check_wavelengths(d_model, base) -> (d/2,) ---------------------------------------------


def wavelengths_learner(
    d_model, base, *, two_pi=2 * math.pi, power=None, hard_base=None, full=False
):
    k = np.arange(d_model if full else d_model // 2)
    b = hard_base or base
    omega = b ** (-2 * k / d_model) if power is None else power(k, d_model, b)
    return two_pi / omega


for name, knobs, words in [
    ("wl_without_2pi", {"two_pi": 1.0}, r"1 / omega_k"),
    ("wl_in_degrees", {"two_pi": 360.0}, r"180/pi"),
    ("wl_exponent_k_over_d", {"power": lambda k, d, b: b ** (-k / d)}, r"not k / d_model"),
    (
        "wl_pairs_from_one",
        {"power": lambda k, d, b: b ** (-2 * (k + 1) / d)},
        r"your pair m is the expected pair m \+ 1",
    ),
    ("wl_base_hard_coded", {"hard_base": 10000.0}, r"pair 0 matches, pairs 1-2 differ"),
    ("wl_one_per_dimension", {"full": True}, r"more pairs than expected"),
    ("wl_positive_exponent", {"power": lambda k, d, b: b ** (2 * k / d)}, r"no simple relation"),
]:
    wrong("check_wavelengths", words)(variant(wavelengths_learner, name, **knobs))


@wrong("check_wavelengths", r"frequencies omega_k")
def wl_returns_frequencies(d_model, base):
    return base ** (-np.arange(0, d_model, 2) / d_model)


@wrong("check_wavelengths", r"times 1/2")
def wl_pi_not_two_pi(d_model, base):
    return math.pi * base ** (np.arange(0, d_model, 2) / d_model)


@wrong("check_wavelengths", r"no simple relation")
def wl_divided_by_d(d_model, base):
    return 2 * math.pi * base ** (np.arange(0, d_model, 2) / d_model) / d_model


@right("check_wavelengths")
def wl_loop(d_model, base):
    return [2 * math.pi * base ** (2 * k / d_model) for k in range(d_model // 2)]


@right("check_wavelengths")
def wl_torch_exp(d_model, base):
    return 2 * math.pi * torch.exp(torch.arange(0, d_model, 2).double() / d_model * math.log(base))


@right("check_wavelengths")
def wl_float32(d_model, base):
    return 2 * np.pi * np.float32(base) ** (np.arange(0, d_model, 2, dtype=np.float32) / d_model)


# --- check_offset_matrix(offset, d_model) -> (d, d) with M @ PE[t] == PE[t + offset] ----------


def offset_learner(
    offset, d_model, *, sign=1.0, unit=1.0, power=None, scale_sin=1.0, cos_only=False
):
    m = np.zeros((d_model, d_model))
    for k in range(d_model // 2):
        w = 10000.0 ** (-2 * k / d_model) if power is None else power(k, d_model)
        a = sign * unit * offset * w
        c, s = math.cos(a), math.sin(a) * scale_sin
        m[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = [
            [c, 0 if cos_only else s],
            [0 if cos_only else -s, c],
        ]
    return m


for name, knobs, words in [
    ("offset_degrees", {"unit": 180 / math.pi}, r"in degrees"),
    ("offset_exponent_k_over_d", {"power": lambda k, d: 10000.0 ** (-k / d)}, r"base\*\*\(-k/r\)"),
    (
        "offset_pairs_from_one",
        {"power": lambda k, d: 10000.0 ** (-2 * (k + 1) / d)},
        r"base\*\*\(-2\(k\+1\)/r\)",
    ),
    ("offset_cos_only", {"cos_only": True}, r"none of your pairs turns"),
    ("offset_double_angle", {"unit": 2.0}, r"2x2 blocks: yours are the expected ones times 2"),
    (
        "offset_sin_halved",
        {"scale_sin": 0.5},
        r"match on the diagonal and differ below the diagonal and above the diagonal; where they differ, yours are the expected values times 1/2",
    ),
]:
    wrong("check_offset_matrix", words)(variant(offset_learner, name, **knobs))


@wrong("check_offset_matrix", r"differ on the diagonal")
def offset_identity_plus_rotation(offset, d_model):
    return np.eye(d_model) + offset_learner(offset, d_model)


@wrong("check_offset_matrix", r"match on the diagonal and differ")
def offset_dense_rotation(offset, d_model):
    m = offset_learner(offset, d_model)
    return m + np.fliplr(np.eye(d_model)) * 0.5  # a stray anti-diagonal


@wrong("check_offset_matrix", r"no simple relation")
def offset_swapped_blocks(offset, d_model):
    m = offset_learner(offset, d_model)
    return m[::-1, ::-1].copy()  # pairs counted from the end


@wrong("check_offset_matrix", r"no simple relation")
def offset_sin_cos_rows_swapped(offset, d_model):
    m = offset_learner(offset, d_model)
    order = np.arange(d_model) ^ 1
    return m[order]


@right("check_offset_matrix")
def offset_block_diag(offset, d_model):
    blocks = []
    for k in range(d_model // 2):
        a = offset / 10000 ** (2 * k / d_model)
        blocks.append(torch.tensor([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]]))
    return torch.block_diag(*blocks)


@right("check_offset_matrix")
def offset_loop(offset, d_model):
    return offset_learner(offset, d_model)


@right("check_offset_matrix")
def offset_float32(offset, d_model):
    return offset_learner(offset, d_model).astype(np.float32)


# --- check_token_and_position(tokens, weight, pe) -------------------------------------------


@wrong("check_token_and_position", r"token parts .*times sqrt\(d_model\)")
def embed_scaled_by_d(tokens, weight, pe):
    return weight[tokens] * weight.shape[1] + pe[: tokens.shape[1]]


@wrong("check_token_and_position", r"token parts .*factor")
def embed_scaled_by_vocab(tokens, weight, pe):
    return weight[tokens] * math.sqrt(weight.shape[0]) + pe[: tokens.shape[1]]


@wrong("check_token_and_position", r"position parts .*position m \+ 1")
def embed_pe_shifted(tokens, weight, pe):
    seq_len = tokens.shape[1]
    return weight[tokens] * math.sqrt(weight.shape[1]) + pe[1 : seq_len + 1]


@wrong("check_token_and_position", r"position parts .*times 2")
def embed_pe_twice(tokens, weight, pe):
    seq_len = tokens.shape[1]
    return weight[tokens] * math.sqrt(weight.shape[1]) + 2 * pe[:seq_len]


@wrong("check_token_and_position", r"position parts .*factor")
def embed_pe_scaled(tokens, weight, pe):
    seq_len = tokens.shape[1]
    return (weight[tokens] + pe[:seq_len] / 2) * math.sqrt(weight.shape[1])


@wrong("check_token_and_position", r"no simple relation")
def embed_pe_by_batch(tokens, weight, pe):
    return weight[tokens] * math.sqrt(weight.shape[1]) + pe[: tokens.shape[0]][:, None, :]


@wrong("check_token_and_position", r"position parts .*zero everywhere")
def embed_no_position(tokens, weight, pe):
    return weight[tokens] * math.sqrt(weight.shape[1])


@wrong("check_token_and_position", r"no simple relation")
def embed_last_positions(tokens, weight, pe):
    return weight[tokens] * math.sqrt(weight.shape[1]) + pe[-tokens.shape[1] :]


@wrong("check_token_and_position", r"token parts .*factor")
def embed_log_scale(tokens, weight, pe):
    return weight[tokens] * math.log(weight.shape[1]) + pe[: tokens.shape[1]]


@wrong("check_token_and_position", r"token parts .*reverse order along the positions")
def embed_tokens_reversed(tokens, weight, pe):
    return weight[tokens.flip(1)] * math.sqrt(weight.shape[1]) + pe[: tokens.shape[1]]


@right("check_token_and_position")
def embed_one_hot(tokens, weight, pe):
    one_hot = torch.nn.functional.one_hot(tokens, weight.shape[0]).to(weight.dtype)
    return one_hot @ weight * weight.shape[1] ** 0.5 + pe[: tokens.shape[1]]


@right("check_token_and_position")
def embed_numpy(tokens, weight, pe):
    w, p = weight.numpy(), pe.numpy()
    return w[tokens.numpy()] * np.sqrt(w.shape[1]) + p[None, : tokens.shape[1]]


@right("check_token_and_position")
def embed_loop(tokens, weight, pe):
    out = torch.empty(*tokens.shape, weight.shape[1], dtype=weight.dtype)
    for b in range(tokens.shape[0]):
        for t in range(tokens.shape[1]):
            out[b, t] = weight[tokens[b, t]] * math.sqrt(weight.shape[1]) + pe[t]
    return out
