"""Numerics: masks in half precision, fully masked rows, and every key helper on every device.

- float16 and bfloat16: masking must not overflow (the classic ``-1e9`` in float16, NVIDIA/apex
  #1105) nor produce NaN, masked weights must be exactly 0, and results must agree with float32.
- A query whose keys are all masked gets zero weights and a zero output, never NaN, forward and
  backward (pytorch/pytorch #24816, #41508), on the readable and the fused path.
- Key helpers run on the CPU and, when present, on CUDA and Apple's MPS, and agree with the CPU.
  Tests for an absent device are skipped with the reason.
"""

from __future__ import annotations

import copy
import math
from types import SimpleNamespace

import pytest
import torch

from helpers import data, training
from helpers.attention import (
    MultiHeadAttention,
    causal_mask,
    padding_mask,
    scaled_dot_product_attention,
)
from helpers.encodings import (
    POSITION_SCHEMES,
    RelativePositionalAttention,
    RotaryPositionalAttention,
    SinusoidalPositionalEncoding,
    TokenAndPositionalEmbedding,
    alibi_bias,
    apply_rotary,
    relative_positions,
)
from helpers.transformer import DecoderOnlyTransformer, Transformer, greedy_decode

LOW_PRECISION = [torch.float16, torch.bfloat16]
# Largest error against float32, relative to the largest reference value. float16 keeps 11
# significant bits (about 3 decimal digits), bfloat16 8 (about 2). Measured on the CPU (torch
# 2.13): at most 0.2% (float16) and 1.7% (bfloat16) through two-layer models, so these bounds
# leave a margin of 2-3x and still catch a mask that leaks or a row that goes astray.
TOLERANCE = {torch.float16: 5e-3, torch.bfloat16: 3e-2}


def _assert_close(got: torch.Tensor, want: torch.Tensor, rel: float) -> None:
    """Largest error at most ``rel`` times the largest reference value (both moved to the CPU)."""
    got, want = got.detach().float().cpu(), want.detach().float().cpu()
    error = (got - want).abs().max().item()
    scale = max(want.abs().max().item(), 1e-12)
    assert error <= rel * scale, f"max error {error:.3g} > {rel} x max |reference| {scale:.3g}"


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return mps is not None and mps.is_available()


DEVICES = [
    pytest.param("cpu", id="cpu"),
    pytest.param(
        "cuda",
        id="cuda",
        marks=pytest.mark.skipif(
            not torch.cuda.is_available(), reason="no CUDA GPU on this machine"
        ),
    ),
    pytest.param(
        "mps",
        id="mps",
        marks=pytest.mark.skipif(
            not _mps_available(), reason="no Apple MPS device on this machine"
        ),
    ),
]


def _skip_unsupported(device: str, dtype: torch.dtype) -> None:
    try:
        torch.ones(2, 2, dtype=dtype, device=device).softmax(-1)
    except (RuntimeError, TypeError) as error:  # e.g. bfloat16 on an older MPS
        pytest.skip(f"{dtype} is not supported on {device}: {error}")


def _inputs(dtype, device="cpu", scale=3.0, batch=2, heads=2, length=5, d_k=8):
    generator = torch.Generator().manual_seed(0)
    shape = (batch, heads, length, d_k)
    q, k, v = (torch.randn(shape, generator=generator) * scale for _ in range(3))
    return [x.to(device=device, dtype=dtype) for x in (q, k, v)]


def _mask(device="cpu", batch=2, length=5) -> torch.Tensor:
    """Causal & padding, ``(batch, 1, L, L)``; batch row 1 pads its last 2 keys, and query 0 of
    batch row 0 sees no key at all (a fully masked row)."""
    mask = causal_mask(length).expand(batch, 1, length, length).clone()
    mask[1, :, :, -2:] = False
    mask[0, :, 0, :] = False
    return mask.to(device)


# ------------------------------------------------------------------------------ half precision


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", LOW_PRECISION, ids=str)
@pytest.mark.parametrize("with_bias", [False, True], ids=["no-bias", "alibi-bias"])
def test_sdpa_masks_in_low_precision(device, dtype, with_bias):
    _skip_unsupported(device, dtype)
    q, k, v = _inputs(dtype, device)
    mask = _mask(device)
    bias = alibi_bias(5, 2, device=device).to(dtype) if with_bias else None
    out, weights = scaled_dot_product_attention(q, k, v, mask, attn_bias=bias)

    assert out.dtype == weights.dtype == dtype
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    assert (weights.masked_select(~mask.expand_as(weights)) == 0).all()  # exactly 0
    visible = mask.any(dim=-1).expand(weights.shape[:-1])  # (B, H, L_q)
    sums = weights.float().sum(dim=-1)
    assert torch.allclose(sums[visible], torch.ones(()), atol=TOLERANCE[dtype])
    assert (out[0, :, 0] == 0).all() and (weights[0, :, 0] == 0).all()  # the fully masked row

    ref_bias = None if bias is None else bias.float()
    ref_out, ref_weights = scaled_dot_product_attention(
        q.float(), k.float(), v.float(), mask, attn_bias=ref_bias
    )
    _assert_close(out, ref_out, TOLERANCE[dtype])
    _assert_close(weights, ref_weights, TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", LOW_PRECISION, ids=str)
def test_sdpa_large_scores_neither_overflow_nor_lose_the_mask(dtype):
    # Scores of several thousand: exp() alone would overflow float16 (max 65504) and a -1e9
    # fill would not even be representable; the softmax must subtract the row maximum.
    q, k, v = _inputs(dtype, scale=40.0)
    scores = (q.float() @ k.float().transpose(-2, -1)).abs().max() / 8**0.5
    assert scores > 1000  # the test really exercises large scores
    mask = _mask()
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    assert (weights.masked_select(~mask.expand_as(weights)) == 0).all()
    ref_out, _ = scaled_dot_product_attention(q.float(), k.float(), v.float(), mask)
    _assert_close(out, ref_out, TOLERANCE[dtype])


def _attention_options():
    return [
        pytest.param({}, id="plain"),
        pytest.param({"position": RotaryPositionalAttention}, id="rotary"),
        pytest.param({"position": lambda d_k: RelativePositionalAttention(d_k, 2)}, id="relative"),
        pytest.param(
            {"position": lambda d_k: RelativePositionalAttention(d_k, 2, values=True)},
            id="relative-values",
        ),
    ]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", LOW_PRECISION, ids=str)
@pytest.mark.parametrize("need_weights", [True, False], ids=["weights", "fused"])
@pytest.mark.parametrize("options", _attention_options())
def test_multi_head_attention_masks_in_low_precision(device, dtype, need_weights, options):
    _skip_unsupported(device, dtype)
    torch.manual_seed(0)
    reference = MultiHeadAttention(8, 2, bias=False, **options).eval()
    module = copy.deepcopy(reference).to(device=device, dtype=dtype)
    x = torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(1)) * 2
    mask = _mask()
    out, weights = module(
        x.to(device, dtype),
        x.to(device, dtype),
        x.to(device, dtype),
        mask.to(device),
        need_weights=need_weights,
    )
    assert out.dtype == dtype and torch.isfinite(out).all()
    # No bias anywhere: a query that sees no key outputs exactly zero on both paths.
    assert (out[0, 0] == 0).all()
    ref_out, ref_weights = reference(x, x, x, mask)
    _assert_close(out, ref_out, TOLERANCE[dtype])
    if need_weights:
        assert torch.isfinite(weights).all()
        assert (weights.masked_select(~mask.to(device).expand_as(weights)) == 0).all()
        _assert_close(weights, ref_weights, TOLERANCE[dtype])
    else:
        assert weights is None


def _padded_tokens(vocab_size=11, batch=3, length=6):
    generator = torch.Generator().manual_seed(2)
    tokens = torch.randint(3, vocab_size, (batch, length), generator=generator)
    tokens[1, -2:] = 0  # two padding tokens
    tokens[2, :] = 0  # a sequence made only of padding: every key masked
    return tokens


def _tiny(cls, positional, **kwargs):
    torch.manual_seed(0)
    sizes = {"d_model": 16, "num_heads": 2, "num_layers": 2, "d_ff": 32, "max_len": 16}
    return cls(**kwargs, **sizes, dropout=0.0, positional=positional).eval()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", LOW_PRECISION, ids=str)
@pytest.mark.parametrize("positional", POSITION_SCHEMES)
def test_decoder_only_transformer_in_low_precision(device, dtype, positional):
    _skip_unsupported(device, dtype)
    reference = _tiny(DecoderOnlyTransformer, positional, vocab_size=11)
    model = copy.deepcopy(reference).to(device=device, dtype=dtype)
    tokens = _padded_tokens()
    mask = padding_mask(tokens, 0)  # (B, 1, 1, L); row 2 masks every key
    with torch.no_grad():
        logits, weights = model(tokens.to(device), mask.to(device), need_weights=True)
        fused = model(tokens.to(device), mask.to(device))  # need_weights=False: fused kernel
        ref_logits = reference(tokens, mask)
    assert logits.dtype == fused.dtype == dtype
    assert torch.isfinite(logits).all() and torch.isfinite(fused).all()
    _assert_close(fused, ref_logits, TOLERANCE[dtype])
    for w in weights:
        assert torch.isfinite(w).all()
        assert (w[2] == 0).all()  # the all-padding sequence attends to nothing
        assert (w[1, :, :, -2:] == 0).all()  # nobody attends to padding
    _assert_close(logits, ref_logits, TOLERANCE[dtype])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", LOW_PRECISION, ids=str)
@pytest.mark.parametrize("positional", POSITION_SCHEMES)
def test_encoder_decoder_transformer_in_low_precision(device, dtype, positional):
    _skip_unsupported(device, dtype)
    reference = _tiny(Transformer, positional, src_vocab_size=11, tgt_vocab_size=11)
    model = copy.deepcopy(reference).to(device=device, dtype=dtype)
    src = _padded_tokens()
    tgt = _padded_tokens()[[0, 0, 1]]
    src_mask = padding_mask(src, 0)
    with torch.no_grad():
        memory, enc_weights = model.encode(src.to(device), src_mask.to(device), True)
        logits, self_w, cross_w = model.decode(
            tgt.to(device), memory, src_mask.to(device), need_weights=True
        )
        fused = model(src.to(device), tgt.to(device), src_mask.to(device))  # fused kernel
        ref_logits = reference(src, tgt, src_mask)
    assert torch.isfinite(memory).all() and torch.isfinite(logits).all()
    assert torch.isfinite(fused).all()
    _assert_close(fused, ref_logits, TOLERANCE[dtype])
    for w in enc_weights + self_w + cross_w:
        assert torch.isfinite(w).all()
    for w in enc_weights + cross_w:  # keys from the source: padding never attended
        assert (w[1, :, :, -2:] == 0).all() and (w[2] == 0).all()
    _assert_close(logits, ref_logits, TOLERANCE[dtype])


# ------------------------------------------------------------------------------ every key masked


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, *LOW_PRECISION], ids=str)
def test_attention_with_every_key_masked_returns_zeros(dtype):
    q, k, v = _inputs(dtype)
    mask = torch.zeros(1, 1, 5, 5, dtype=torch.bool)
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert (out == 0).all() and (weights == 0).all()
    assert out.shape == (2, 2, 5, 8) and weights.shape == (2, 2, 5, 5)


@pytest.mark.parametrize("need_weights", [True, False], ids=["weights", "fused"])
def test_every_key_masked_gives_zero_output_and_finite_gradients(need_weights):
    torch.manual_seed(0)
    module = MultiHeadAttention(8, 2, bias=False)
    x = torch.randn(2, 4, 8, requires_grad=True)
    mask = torch.zeros(2, 1, 4, 4, dtype=torch.bool)
    mask[1] = causal_mask(4)  # batch row 0: every key masked; row 1: causal
    out, _ = module(x, x, x, mask, need_weights=need_weights)
    assert (out[0] == 0).all() and out[1].abs().sum() > 0
    out.sum().backward()
    assert torch.isfinite(x.grad).all()
    assert all(torch.isfinite(p.grad).all() for p in module.parameters())


def test_sdpa_gradient_through_fully_masked_rows_is_finite():
    q, k, v = (x.requires_grad_() for x in _inputs(torch.float32))
    out, _ = scaled_dot_product_attention(q, k, v, _mask())
    out.square().sum().backward()
    for x in (q, k, v):
        assert torch.isfinite(x.grad).all()
    assert (q.grad[0, :, 0] == 0).all()  # the row that sees nothing learns nothing


# ------------------------------------------------------------------------------ devices


@pytest.mark.parametrize("device", DEVICES)
def test_encodings_and_masks_run_on_device(device):
    x = torch.randn(2, 6, 8)
    module = SinusoidalPositionalEncoding(8, max_len=16).to(device)
    assert module.pe.device.type == device  # a registered buffer follows .to(device)
    y = module(x.to(device))
    assert y.device.type == device
    _assert_close(y, SinusoidalPositionalEncoding(8, max_len=16)(x), 1e-6)

    for made, on_cpu in [
        (causal_mask(5, device=device), causal_mask(5)),
        (alibi_bias(5, 4, device=device), alibi_bias(5, 4)),
        (relative_positions(4, 6, 2, device=device), relative_positions(4, 6, 2)),
        (padding_mask(_padded_tokens().to(device), 0), padding_mask(_padded_tokens(), 0)),
    ]:
        assert made.device.type == device and made.dtype == on_cpu.dtype
        assert torch.equal(made.cpu(), on_cpu)

    q = torch.randn(2, 6, 8, dtype=torch.float32)
    for layout in ("interleaved", "half"):
        rotated = apply_rotary(q.to(device), layout=layout)
        assert rotated.device.type == device
        _assert_close(rotated, apply_rotary(q, layout=layout), 1e-4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("positional", POSITION_SCHEMES)
def test_embedding_and_attention_run_on_device(device, positional):
    torch.manual_seed(0)
    embedding = TokenAndPositionalEmbedding(11, 8, max_len=16, positional=positional)
    tokens = _padded_tokens()
    on_device = copy.deepcopy(embedding).to(device)(tokens.to(device))
    assert on_device.device.type == device
    _assert_close(on_device, embedding(tokens), 1e-4)

    attention = POSITION_SCHEMES[positional].attention  # None: not inside attention
    position = (
        None
        if attention is None
        else lambda d_k: attention(d_k, SimpleNamespace(relative_max_distance=2))
    )
    reference = MultiHeadAttention(8, 2, position=position)
    module = copy.deepcopy(reference).to(device)
    x, mask = torch.randn(3, 6, 8), padding_mask(tokens, 0)
    for need_weights in (True, False):
        out, _ = module(*(x.to(device),) * 3, mask.to(device), need_weights=need_weights)
        assert out.device.type == device
        _assert_close(out, reference(x, x, x, mask)[0], 1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_models_and_decoding_run_on_device(device):
    src, tgt = data.make_batch("reverse", 3, num_symbols=8, min_len=3, max_len=6)
    src_mask = padding_mask(src, data.PAD_ID)
    vocab = data.vocab_size(8)
    reference = _tiny(Transformer, "sinusoidal", src_vocab_size=vocab, tgt_vocab_size=vocab)
    model = copy.deepcopy(reference).to(device)
    with torch.no_grad():
        logits = model(src.to(device), tgt[:, :-1].to(device), src_mask.to(device))
        assert logits.device.type == device
        _assert_close(logits, reference(src, tgt[:, :-1], src_mask), 1e-4)
    decoded = greedy_decode(model, src.to(device), 7, data.BOS_ID, data.EOS_ID, src_mask.to(device))
    assert decoded.device.type == device
    assert torch.equal(
        decoded.cpu(), greedy_decode(reference, src, 7, data.BOS_ID, data.EOS_ID, src_mask)
    )

    lm = _tiny(DecoderOnlyTransformer, "alibi", vocab_size=vocab)
    with torch.no_grad():
        out = copy.deepcopy(lm).to(device)(src.to(device), src_mask.to(device))
        _assert_close(out, lm(src, src_mask), 1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_training_step_and_evaluation_run_on_device(device):
    src, tgt = data.make_batch("copy", 4, num_symbols=8, min_len=3, max_len=6)
    vocab = data.vocab_size(8)
    reference = _tiny(Transformer, "sinusoidal", src_vocab_size=vocab, tgt_vocab_size=vocab)
    model = copy.deepcopy(reference).to(device)
    losses = []
    for m, s, t in [(reference, src, tgt), (model, src.to(device), tgt.to(device))]:
        optimizer = torch.optim.SGD(m.parameters(), lr=0.1)  # Adam would amplify round-off
        losses.append(training.train_step(m, s, t, optimizer, pad_id=data.PAD_ID))
    assert all(math.isfinite(loss) for loss in losses)
    assert abs(losses[0] - losses[1]) <= 1e-4 * abs(losses[0])
    for p, q in zip(reference.parameters(), model.parameters(), strict=True):
        assert q.device.type == device
        _assert_close(q, p, 1e-4)  # the same update on both devices

    scores = training.evaluate(model.eval(), src.to(device), tgt.to(device))
    assert scores == training.evaluate(reference.eval(), src, tgt)
