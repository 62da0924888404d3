"""Notebook 17: Llama 3's frequencies, dynamic NTK, the positions of a windowed cache."""

from __future__ import annotations

import math

import numpy as np
import torch

from . import right, variant, wrong

# --- check_llama3_frequencies(d, factor, base, original_max_len, low, high) -> (d/2,) ----------


def llama3_learner(
    d,
    factor,
    base,
    original_max_len,
    low,
    high,
    *,
    two_pi=True,
    ramp="turns",
    length_scale=1.0,
    blend=True,
    divide=True,
    pair_offset=0,
    exponent_scale=2.0,
    hard_length=None,
):
    length = (hard_length or original_max_len) * length_scale
    out = []
    for k in range(d // 2):
        omega = base ** (-exponent_scale * (k + pair_offset) / d)
        wavelength = (2 * math.pi if two_pi else 1.0) / omega
        scaled = omega / factor if divide else omega * factor
        if wavelength < length / high:
            out.append(omega)
        elif wavelength > length / low:
            out.append(scaled)
        elif not blend:
            out.append(scaled)  # the middle band divided like the slow one
        else:
            if ramp == "turns":
                s = (length / wavelength - low) / (high - low)
            else:  # linear in the wavelength between the two bounds
                s = (length / low - wavelength) / (length / low - length / high)
            out.append((1 - s) * scaled + s * omega)
    return torch.tensor(out, dtype=torch.float64)


wrong("check_llama3_frequencies", r"pair")(
    variant(llama3_learner, "llama3_wavelength_without_2pi", two_pi=False)
)
wrong("check_llama3_frequencies", r"pair")(
    variant(llama3_learner, "llama3_ramp_linear_in_wavelength", ramp="wavelength")
)
wrong("check_llama3_frequencies", r"pair")(
    variant(llama3_learner, "llama3_bounds_from_factor_times_length", length_scale=8.0)
)
wrong("check_llama3_frequencies", r"pair")(
    variant(llama3_learner, "llama3_step_without_blend", blend=False)
)
wrong("check_llama3_frequencies", r"pair|times")(
    variant(llama3_learner, "llama3_multiplies_by_factor", divide=False)
)
wrong("check_llama3_frequencies", r"pair m is the expected pair m \+ 1|shifted by one")(
    variant(llama3_learner, "llama3_pairs_counted_from_one", pair_offset=1)
)
wrong("check_llama3_frequencies", r"pair 2m holds the expected pair m|pair")(
    variant(llama3_learner, "llama3_dimension_index_exponent", exponent_scale=1.0)
)
wrong("check_llama3_frequencies", r"pair")(
    variant(llama3_learner, "llama3_hard_coded_8192", hard_length=8192)
)


@wrong("check_llama3_frequencies", r"pair")
def llama3_band_by_frequency_not_wavelength(d, factor, base, original_max_len, low, high):
    omega = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    # compares the frequency itself with the bounds (a wavelength forgotten)
    keep = omega > high / original_max_len
    divided = omega < low / original_max_len
    s = (original_max_len * omega - low) / (high - low)
    blended = (1 - s) * omega / factor + s * omega
    return torch.where(keep, omega, torch.where(divided, omega / factor, blended))


@wrong("check_llama3_frequencies", r"give other values to pairs 0 and 3-7")
def llama3_smooth_not_clamped(d, factor, base, original_max_len, low, high):
    omega = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    s = (original_max_len * omega / (2 * math.pi) - low) / (high - low)  # no clamp, no bands
    return (1 - s) * omega / factor + s * omega


@right("check_llama3_frequencies")
def llama3_numpy_where(d, factor, base, original_max_len, low, high):
    omega = 1.0 / base ** (np.arange(0, d, 2) / d)
    wavelength = 2 * np.pi / omega
    s = np.clip((original_max_len / wavelength - low) / (high - low), 0.0, 1.0)
    return (1 - s) * omega / factor + s * omega  # s = 0: divided, s = 1: kept


@right("check_llama3_frequencies")
def llama3_python_loop(d, factor, base, original_max_len, low, high):
    return llama3_learner(d, factor, base, original_max_len, low, high)


@right("check_llama3_frequencies")
def llama3_list_of_floats(d, factor, base, original_max_len, low, high):
    out = []
    for i in range(0, d, 2):
        w = math.exp(-i / d * math.log(base))
        turns = original_max_len * w / (2 * math.pi)
        if turns >= high:
            out.append(w)
        elif turns <= low:
            out.append(w / factor)
        else:
            t = (turns - low) / (high - low)
            out.append(t * w + (1 - t) * w / factor)
    return out


# --- check_dynamic_ntk_frequencies(d, factor, base, original_max_len, seq_len) -> (d/2,) -------


def dynamic_learner(
    d,
    factor,
    base,
    original_max_len,
    seq_len,
    *,
    ratio="float",
    use_factor=True,
    minus=True,
    floor=True,
    exponent="d/(d-2)",
    pair_index=False,
):
    length = max(seq_len, original_max_len) if floor else seq_len
    if ratio == "float":
        r = length / original_max_len
    elif ratio == "int":
        r = length // original_max_len
    else:
        r = math.ceil(length / original_max_len)
    stretch = (factor * r - (factor - 1) if minus else factor * r) if use_factor else r
    power = {"d/(d-2)": d / (d - 2), "(d-2)/d": (d - 2) / d, "1": 1.0}[exponent]
    new_base = base * stretch**power
    k = torch.arange(d // 2, dtype=torch.float64)
    return new_base ** (-(k if pair_index else 2 * k) / d)


wrong("check_dynamic_ntk_frequencies", r"another base")(
    variant(dynamic_learner, "dynamic_ratio_without_factor", use_factor=False)
)
wrong("check_dynamic_ntk_frequencies", r"another base")(
    variant(dynamic_learner, "dynamic_integer_division", ratio="int")
)
wrong("check_dynamic_ntk_frequencies", r"another base")(
    variant(dynamic_learner, "dynamic_ratio_rounded_up", ratio="ceil")
)
wrong("check_dynamic_ntk_frequencies", r"another base")(
    variant(dynamic_learner, "dynamic_exponent_inverted", exponent="(d-2)/d")
)
wrong("check_dynamic_ntk_frequencies", r"another base")(
    variant(dynamic_learner, "dynamic_no_exponent", exponent="1")
)
wrong("check_dynamic_ntk_frequencies", r"another base")(
    variant(dynamic_learner, "dynamic_without_minus_factor_minus_one", minus=False)
)
wrong("check_dynamic_ntk_frequencies", r"square roots of the expected")(
    variant(dynamic_learner, "dynamic_pair_index_exponent", pair_index=True)
)


@wrong("check_dynamic_ntk_frequencies", r"another base")
def dynamic_lengths_swapped(d, factor, base, original_max_len, seq_len):
    stretch = max(1.0, factor * original_max_len / seq_len - (factor - 1))
    return (base * stretch ** (d / (d - 2))) ** (-torch.arange(0, d, 2).double() / d)


@wrong("check_dynamic_ntk_frequencies", r"times|pair 0 differs|another base|pair")
def dynamic_frequencies_divided(d, factor, base, original_max_len, seq_len):
    stretch = max(1.0, factor * seq_len / original_max_len - (factor - 1))
    return base ** (-torch.arange(0, d, 2).double() / d) / stretch  # interpolation, not NTK


@wrong("check_dynamic_ntk_frequencies", r"another base")
def dynamic_min_instead_of_max(d, factor, base, original_max_len, seq_len):
    length = min(seq_len, original_max_len)
    stretch = factor * length / original_max_len - (factor - 1)
    return (base * stretch ** (d / (d - 2))) ** (-torch.arange(0, d, 2).double() / d)


@right("check_dynamic_ntk_frequencies")
def dynamic_numpy(d, factor, base, original_max_len, seq_len):
    stretch = factor * max(seq_len / original_max_len, 1.0) - factor + 1
    new_base = base * stretch ** (d / (d - 2))
    return 1.0 / new_base ** (np.arange(0, d, 2) / d)


@right("check_dynamic_ntk_frequencies")
def dynamic_if_else(d, factor, base, original_max_len, seq_len):
    if seq_len <= original_max_len:
        b = base
    else:
        b = base * ((factor * seq_len / original_max_len) - (factor - 1)) ** (d / (d - 2))
    return [b ** (-2 * k / d) for k in range(d // 2)]


@right("check_dynamic_ntk_frequencies")
def dynamic_logs(d, factor, base, original_max_len, seq_len):
    stretch = factor * max(seq_len, original_max_len) / original_max_len - (factor - 1)
    log_base = math.log(base) + d / (d - 2) * math.log(stretch)
    return torch.exp(-torch.arange(0, d, 2, dtype=torch.float64) / d * log_base)


# --- check_window_positions(seen, sinks, window) -> (n, 2) [text index, slot] ------------------


def window_learner(
    seen,
    sinks,
    window,
    *,
    clamp_sinks=True,
    slot_start=0,
    columns="index,slot",
    newest=True,
    extra=0,
    dedupe=True,
    newest_first=False,
):
    first = list(range(min(sinks, seen) if clamp_sinks else sinks))
    stop = seen if newest else seen - 1
    start = stop - window - extra
    recent = list(range(max(sinks, start) if dedupe else max(0, start), stop))
    kept = first + recent
    if newest_first:
        kept = kept[::-1]
    rows = []
    for slot, index in enumerate(kept, start=slot_start):
        rows.append([index, slot] if columns == "index,slot" else [slot, index])
    return torch.tensor(rows, dtype=torch.long).reshape(-1, 2)


wrong("check_window_positions", r"fewer|more|cached token")(
    variant(window_learner, "window_sinks_not_clamped", clamp_sinks=False)
)
wrong("check_window_positions", r"plus 1|column 0 matches, column 1 differs")(
    variant(window_learner, "window_slots_from_one", slot_start=1)
)
wrong("check_window_positions", r"two columns exchanged")(
    variant(window_learner, "window_columns_swapped", columns="slot,index")
)
wrong("check_window_positions", r"cached token|column")(
    variant(window_learner, "window_newest_left_out", newest=False)
)
wrong("check_window_positions", r"more cached tokens")(
    variant(window_learner, "window_one_too_many", extra=1)
)
wrong("check_window_positions", r"a sink, kept again in the recent part")(
    variant(window_learner, "window_overlap_counted_twice", dedupe=False)
)
wrong("check_window_positions", r"column 1 matches, column 0 differs")(
    variant(window_learner, "window_newest_first", newest_first=True)
)


@wrong("check_window_positions", r"more cached tokens")
def window_never_evicts(seen, sinks, window):
    return np.array([[t, t] for t in range(seen)]).reshape(-1, 2)


@wrong("check_window_positions", r"column 0 matches, column 1 differs|column 1")
def window_slots_counted_from_the_end(seen, sinks, window):
    kept = window_learner(seen, sinks, window)[:, 0]
    n = len(kept)
    return torch.stack([kept, torch.arange(n - 1, -1, -1)], dim=1)


@wrong("check_window_positions", r"column 0 matches, column 1 differs|column 1")
def window_rotated_at_distance(seen, sinks, window):
    kept = window_learner(seen, sinks, window)[:, 0]
    return torch.stack([kept, seen - 1 - kept], dim=1)  # distance from the newest token


@wrong("check_window_positions", r"below sinks = 2: a sink, kept again")
def window_keeps_all_while_seen_fits_the_window(seen, sinks, window):
    if seen <= window:  # nothing evicted yet... but the cache holds sinks + window tokens
        kept = list(range(seen))
    else:
        kept = list(range(min(sinks, seen))) + list(range(seen - window, seen))
    return torch.tensor([[t, slot] for slot, t in enumerate(kept)]).reshape(-1, 2)


@wrong("check_window_positions", r"below sinks = 2: a sink, kept again")
def window_recent_from_zero_once_past_the_sinks(seen, sinks, window):
    if seen <= sinks:
        kept = list(range(seen))
    else:  # the recent part may start inside the sinks: max(0, ...) where max(sinks, ...)
        kept = list(range(sinks)) + list(range(max(0, seen - window), seen))
    return torch.tensor([[t, slot] for slot, t in enumerate(kept)]).reshape(-1, 2)


@right("check_window_positions")
def window_loop(seen, sinks, window):
    rows = []
    for t in range(seen):
        if t < sinks or t >= seen - window:
            rows.append([t, len(rows)])
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


@right("check_window_positions")
def window_torch_cat(seen, sinks, window):
    head = torch.arange(min(sinks, seen))
    tail = torch.arange(min(seen, max(sinks, seen - window)), seen)  # empty, not an error
    kept = torch.cat([head, tail])
    return torch.stack([kept, torch.arange(len(kept))], dim=-1)


@right("check_window_positions")
def window_set(seen, sinks, window):
    kept = sorted(set(range(min(sinks, seen))) | set(range(max(0, seen - window), seen)))
    return [[t, slot] for slot, t in enumerate(kept)]
