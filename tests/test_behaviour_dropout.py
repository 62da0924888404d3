"""Dropout reaches every site it is meant to, at the rate asked for: attention weights (readable
and fused paths), the embedding sum, and every sub-layer of the encoder and decoder layers and
models. In training mode the statistics match the rate; in eval mode nothing is dropped."""

import pytest
import torch
from torch import nn

from helpers import seed_everything
from helpers.attention import MultiHeadAttention, scaled_dot_product_attention
from helpers.encodings import TokenAndPositionalEmbedding
from helpers.transformer import (
    DecoderLayer,
    DecoderOnlyTransformer,
    EncoderLayer,
    FeedForward,
    Transformer,
)

P = 0.2  # not PyTorch's default 0.5, so a forgotten rate shows
TINY = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 16}
L = 64


pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def assert_dropped_at_rate(x: torch.Tensor, kept_value: float, p: float = P) -> None:
    """Every entry is 0 or ``kept_value / (1 - p)``, and about a fraction ``p`` is 0."""
    zero = x == 0
    torch.testing.assert_close(x[~zero], torch.full_like(x[~zero], kept_value / (1 - p)))
    assert abs(zero.float().mean().item() - p) < 0.02


def uniform_attention_inputs(batch: int = 8):
    """q = k = 0 (uniform weights 1/L over L keys) and v = identity: the output IS the weights."""
    q = torch.zeros(batch, 1, L, 4)
    v = torch.eye(L).expand(batch, 1, L, L)
    return q, q, v


def test_attention_weights_dropped_at_dropout_p():
    seed_everything(0)
    out, weights = scaled_dot_product_attention(*uniform_attention_inputs(), dropout_p=P)
    assert_dropped_at_rate(weights, 1 / L)
    torch.testing.assert_close(out, weights)


def identity_attention(dropout: float) -> MultiHeadAttention:
    """One head, d_model = L: zero query projection, identity value and output projections."""
    attn = MultiHeadAttention(L, 1, dropout)
    with torch.no_grad():
        for proj in (attn.q_proj, attn.k_proj, attn.v_proj, attn.out_proj):
            proj.bias.zero_()
        attn.q_proj.weight.zero_()
        attn.v_proj.weight.copy_(torch.eye(L))
        attn.out_proj.weight.copy_(torch.eye(L))
    return attn


@pytest.mark.parametrize("need_weights", [True, False])
def test_multi_head_attention_drops_in_training_mode_only(need_weights):
    seed_everything(0)
    attn = identity_attention(P)
    x = torch.eye(L).expand(8, L, L)  # values = one-hot rows: the output is the weights
    out, _ = attn(x, x, x, need_weights=need_weights)
    assert_dropped_at_rate(out, 1 / L)
    attn.eval()
    out, _ = attn(x, x, x, need_weights=need_weights)
    torch.testing.assert_close(out, torch.full_like(out, 1 / L))


def test_embedding_drops_the_sum_at_its_rate():
    seed_everything(0)
    embed = TokenAndPositionalEmbedding(5, 64, positional="none", dropout=P)
    with torch.no_grad():
        embed.token_embedding.weight.fill_(1 / 8)  # every entry of sqrt(64) * E[t] is 1
    tokens = torch.zeros(16, 32, dtype=torch.long)
    assert_dropped_at_rate(embed(tokens), 1.0)
    torch.testing.assert_close(embed.eval()(tokens), torch.ones(16, 32, 64))


def test_feed_forward_drops_its_hidden_layer():
    seed_everything(0)
    ff = FeedForward(4, 256, P)
    with torch.no_grad():  # hidden = 1 everywhere, output = the mean of the hidden layer
        ff.linear1.weight.zero_()
        ff.linear1.bias.fill_(1.0)
        ff.linear2.weight.fill_(1 / 256)
        ff.linear2.bias.zero_()
    out = ff(torch.zeros(64, 16, 4))
    assert abs(out.mean().item() - 1.0) < 0.01  # inverted dropout keeps the mean
    assert out.std().item() > 0.01  # but each output now averages a random subset
    torch.testing.assert_close(ff.eval()(torch.zeros(2, 3, 4)), torch.ones(2, 3, 4))


def dropout_rates(module: nn.Module) -> list[float]:
    """The rate of every dropout site: nn.Dropout modules and every attention's weights.

    A sinusoidal table's own dropout (rate 0) is skipped: the embedding drops the sum once."""
    named = [(name, m) for name, m in module.named_modules() if "position" not in name]
    rates = [m.p for _, m in named if isinstance(m, nn.Dropout)]
    return rates + [m.dropout for _, m in named if isinstance(m, MultiHeadAttention)]


@pytest.mark.parametrize(
    ("make", "sites"),
    [
        (lambda: EncoderLayer(8, 2, 16, P), 2 + 1 + 1),  # 2 residual, FFN hidden, attention
        (lambda: EncoderLayer(8, 2, 16, P, norm_first=True), 4),
        (lambda: DecoderLayer(8, 2, 16, P), 3 + 1 + 2),  # 3 residual, FFN, 2 attentions
        (lambda: DecoderLayer(8, 2, 16, P, norm_first=True), 6),
        (lambda: TokenAndPositionalEmbedding(5, 8, dropout=P), 1),
        (lambda: Transformer(5, 5, **TINY, dropout=P), 2 + 4 + 6),
        (lambda: DecoderOnlyTransformer(5, **TINY, dropout=P), 1 + 4),
        (lambda: DecoderOnlyTransformer(5, **TINY, dropout=P, positional="rotary"), 5),
    ],
)
def test_every_dropout_site_gets_the_rate(make, sites):
    rates = dropout_rates(make())
    assert rates == [P] * sites


def test_models_in_eval_mode_drop_nothing():
    seed_everything(0)
    src = torch.randint(5, (2, 7))
    with_dropout = Transformer(5, 5, **TINY, dropout=0.5).eval()
    without = Transformer(5, 5, **TINY, dropout=0.0).eval()
    without.load_state_dict(with_dropout.state_dict())
    torch.testing.assert_close(with_dropout(src, src), without(src, src))
    with_dropout.train()
    assert (with_dropout(src, src) - without(src, src)).abs().max() > 1e-3
