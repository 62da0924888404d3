"""Position modules' set-up: a registry entry accepts exactly the builder of its entry point,
the embedding's reset redraws a learned table, relative attention builds a values table only
when asked."""

from __future__ import annotations

import pytest
import torch

from helpers import seed_everything
from helpers.encodings import (
    PositionScheme,
    RelativePositionalAttention,
    TokenAndPositionalEmbedding,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def _builder(*args):
    return None


@pytest.mark.parametrize(
    "enters, builder",
    [
        ("embedding", "embedding"),
        ("rotation", "attention"),
        ("relative", "attention"),
        ("score bias", "attn_bias"),
        ("nowhere", None),
    ],
)
def test_every_entry_point_accepts_exactly_its_builder(enters, builder):
    given = {} if builder is None else {builder: _builder}
    scheme = PositionScheme("toy", enters, "a toy scheme", **given)
    assert scheme.enters == enters
    for name in {"embedding", "attention", "attn_bias"} - set(given):
        assert getattr(scheme, name) is None


def test_the_embeddings_reset_redraws_a_learned_position_table():
    seed_everything(0)
    embedding = TokenAndPositionalEmbedding(7, 8, max_len=5, positional="learned")
    before = embedding.position.weight.detach().clone()
    embedding.reset_parameters()
    after = embedding.position.weight.detach()
    assert not torch.equal(after, before)
    assert after.std().item() == pytest.approx(before.std().item(), rel=0.5)


def test_relative_attention_builds_a_values_table_only_when_asked():
    keys_only, with_values = RelativePositionalAttention(4), RelativePositionalAttention(4, 2, True)
    assert keys_only.values is None and not keys_only.needs_weights
    assert list(keys_only.state_dict()) == ["keys.weight"]
    assert keys_only.keys.weight.shape == (2 * 16 + 1, 4)  # max_distance = 16 by default
    assert with_values.needs_weights
    assert sorted(with_values.state_dict()) == ["keys.weight", "values.weight"]
