"""Behaviour the targeted mutation run of session 5 found untested (tests/MUTATION.md): LongRoPE's
temperature at factor 2 and its float64 factors, and the windowed cache's defaults and bounds."""

from __future__ import annotations

import math

import pytest
import torch

from helpers.encodings import rotary_frequencies, scaled_rotary_frequencies
from helpers.transformer import WindowedKVCache

SHORT = [1.0] * 48
LONG = [2.0] * 48


def test_longrope_temperature_at_factor_2_by_hand():
    _, scale = scaled_rotary_frequencies(96, "longrope", 2.0, 10000.0, 4096,
                                         short_factor=SHORT, long_factor=LONG)  # fmt: skip
    assert scale == pytest.approx(math.sqrt(1 + math.log(2) / math.log(4096)), rel=1e-14)
    assert scale > 1.03  # 1.0409: not the 1.0 of factor 1


def test_longrope_keeps_factors_in_float64():
    # a factor 1 + 1e-12 is 1.0 in float32: the result would equal plain rotary exactly
    tiny = [1.0 + 1e-12] * 48
    omega, _ = scaled_rotary_frequencies(96, "longrope", 32.0, 10000.0, 4096,
                                         short_factor=tiny, long_factor=LONG)  # fmt: skip
    plain = rotary_frequencies(96, 10000.0)
    assert omega.dtype == torch.float64
    assert not torch.equal(omega, plain)
    torch.testing.assert_close(omega, plain / (1.0 + 1e-12), rtol=1e-15, atol=0)


def test_longrope_names_the_bad_factor_set():
    for name, kwargs in (
        ("short_factor", {"short_factor": [0.0] * 48, "long_factor": LONG}),
        ("long_factor", {"short_factor": SHORT, "long_factor": [0.0] * 48}),
    ):
        with pytest.raises(ValueError, match=rf"(?<![A-Za-z_]){name}(?![A-Za-z_])"):
            scaled_rotary_frequencies(96, "longrope", 32.0, 10000.0, 4096, **kwargs)


def test_windowed_cache_defaults_to_four_sinks_and_accepts_a_window_of_one():
    assert WindowedKVCache(2, window=8).sinks == 4  # StreamingLLM's choice
    cache = WindowedKVCache(1, sinks=1, window=1)
    assert cache.window == 1
    cache.make_room(1)  # one new token always fits a window of one


def test_windowed_cache_takes_exactly_window_new_tokens_at_once():
    cache = WindowedKVCache(1, sinks=2, window=3)
    cache.make_room(3)  # a call may bring exactly `window` tokens
    with pytest.raises(ValueError, match="at most window=3"):
        cache.make_room(4)
