"""Unit tests of helpers.transformer: shapes, masking, equality with torch.nn.Transformer,
greedy decoding, the positional plumbing, overfitting a tiny batch, bad arguments."""

import pytest
import torch
from torch import nn

from helpers import seed_everything
from helpers.attention import padding_mask
from helpers.encodings import RotaryPositionalAttention, alibi_bias
from helpers.transformer import (
    DecoderLayer,
    DecoderOnlyTransformer,
    EncoderLayer,
    FeedForward,
    TorchReferenceTransformer,
    Transformer,
    count_parameters,
    greedy_decode,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


SCHEMES = ("sinusoidal", "learned", "none", "rotary", "alibi", "relative")
SMALL = {"d_model": 16, "num_heads": 2, "num_layers": 2, "d_ff": 32, "dropout": 0.0}
LM = {"d_model": 16, "num_heads": 2, "num_layers": 1, "d_ff": 32, "dropout": 0.0}


def small_transformer(**kwargs) -> Transformer:
    seed_everything(0)
    return Transformer(11, 13, **(SMALL | kwargs)).eval()


def random_tokens(batch, length, low=3, high=11, seed=1):
    return torch.randint(low, high, (batch, length), generator=torch.Generator().manual_seed(seed))


# ---------------------------------------------------------------- blocks and parameter counts


def test_feed_forward_is_position_wise_relu_mlp():
    seed_everything(0)
    ff = FeedForward(8, 32)
    x = torch.randn(2, 5, 8)
    expected = torch.relu(x @ ff.linear1.weight.T + ff.linear1.bias) @ ff.linear2.weight.T
    torch.testing.assert_close(ff(x), expected + ff.linear2.bias)
    # Position-wise: permuting positions permutes the output the same way.
    perm = torch.tensor([4, 0, 3, 1, 2])
    torch.testing.assert_close(ff(x[:, perm]), ff(x)[:, perm])


def layer_parameter_formula(d_model, d_ff, decoder):
    attention = 4 * (d_model * d_model + d_model)  # W_q, W_k, W_v, W_o with biases
    feed_forward = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)
    norm = 2 * d_model  # gain and bias
    if decoder:
        return 2 * attention + feed_forward + 3 * norm
    return attention + feed_forward + 2 * norm


@pytest.mark.parametrize(("d_model", "num_heads", "d_ff"), [(16, 2, 32), (64, 4, 256)])
def test_layer_parameter_counts_match_formula_and_pytorch(d_model, num_heads, d_ff):
    enc = EncoderLayer(d_model, num_heads, d_ff)
    dec = DecoderLayer(d_model, num_heads, d_ff)
    assert count_parameters(enc) == layer_parameter_formula(d_model, d_ff, decoder=False)
    assert count_parameters(dec) == layer_parameter_formula(d_model, d_ff, decoder=True)
    torch_enc = nn.TransformerEncoderLayer(d_model, num_heads, d_ff, batch_first=True)
    torch_dec = nn.TransformerDecoderLayer(d_model, num_heads, d_ff, batch_first=True)
    assert count_parameters(enc) == count_parameters(torch_enc)
    assert count_parameters(dec) == count_parameters(torch_dec)


@pytest.mark.parametrize("norm_first", [False, True])
def test_model_parameter_count_against_torch_nn_transformer(norm_first):
    d_model, num_layers = 32, 3
    model = Transformer(
        10, 10, d_model=d_model, num_heads=4, num_layers=num_layers, d_ff=64, norm_first=norm_first
    )
    stacks = [model.encoder_layers, model.decoder_layers, model.encoder_norm, model.decoder_norm]
    ours = sum(count_parameters(m) for m in stacks)
    # torch.nn.Transformer always ends both stacks with a LayerNorm (2 * d_model each); the
    # paper's post-LN model has none, pre-LN needs them.
    theirs = count_parameters(
        nn.Transformer(d_model, 4, num_layers, num_layers, 64, batch_first=True)
    )
    assert ours == (theirs if norm_first else theirs - 4 * d_model)
    assert isinstance(model.encoder_norm, nn.LayerNorm if norm_first else nn.Identity)
    # Embeddings (vocabulary 10, sinusoidal: no parameters) and the output projection.
    assert count_parameters(model) == ours + 2 * 10 * d_model + (d_model * 10 + 10)


# ---------------------------------------------------------------- equality with PyTorch


def copy_attention(ours, theirs):
    theirs.in_proj_weight.copy_(
        torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight])
    )
    theirs.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))
    theirs.out_proj.load_state_dict(ours.out_proj.state_dict())


def copy_layer(ours, theirs):
    theirs.linear1.load_state_dict(ours.feed_forward.linear1.state_dict())
    theirs.linear2.load_state_dict(ours.feed_forward.linear2.state_dict())
    copy_attention(ours.self_attn, theirs.self_attn)
    for name in ("norm1", "norm2", "norm3"):
        if hasattr(ours, name):
            getattr(theirs, name).load_state_dict(getattr(ours, name).state_dict())
    if hasattr(ours, "cross_attn"):
        copy_attention(ours.cross_attn, theirs.multihead_attn)


@torch.no_grad()
def copy_into_reference(ours: Transformer, ref: TorchReferenceTransformer):
    for name in ("src_embedding", "tgt_embedding", "output_projection"):
        getattr(ref, name).load_state_dict(getattr(ours, name).state_dict())
    for a, b in zip(ours.encoder_layers, ref.transformer.encoder.layers, strict=True):
        copy_layer(a, b)
    for a, b in zip(ours.decoder_layers, ref.transformer.decoder.layers, strict=True):
        copy_layer(a, b)
    if ours.norm_first:
        ref.transformer.encoder.norm.load_state_dict(ours.encoder_norm.state_dict())
        ref.transformer.decoder.norm.load_state_dict(ours.decoder_norm.state_dict())


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("general_tgt_mask", [False, True])
def test_equals_torch_nn_transformer_with_the_same_weights(norm_first, general_tgt_mask):
    ours = small_transformer(norm_first=norm_first)
    ref = TorchReferenceTransformer(11, 13, **(SMALL | {"norm_first": norm_first})).eval()
    assert count_parameters(ref) == count_parameters(ours)
    copy_into_reference(ours, ref)
    src = random_tokens(3, 7)
    src[0, 5:] = 0  # padding
    tgt = random_tokens(3, 6, seed=2)
    tgt[1, 4:] = 0
    src_mask = padding_mask(src, 0)
    tgt_mask = padding_mask(tgt, 0)
    if general_tgt_mask:  # (B, 1, T, T): also hide key 1 from every query of row 2
        tgt_mask = tgt_mask.expand(3, 1, 6, 6).clone()
        tgt_mask[2, :, :, 1] = False
    with torch.no_grad():
        expected = ref(src, tgt, src_mask, tgt_mask)
        got = ours(src, tgt, src_mask, tgt_mask)
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)


# ---------------------------------------------------------------- shapes and attention weights


def test_shapes_and_attention_weights():
    model = small_transformer()
    src, tgt = random_tokens(4, 9), random_tokens(4, 6, seed=2)
    assert model(src, tgt).shape == (4, 6, 13)
    memory, enc_weights = model.encode(src, need_weights=True)
    assert memory.shape == (4, 9, 16)
    assert [w.shape for w in enc_weights] == [(4, 2, 9, 9)] * 2
    logits, self_w, cross_w = model.decode(tgt, memory, need_weights=True)
    assert logits.shape == (4, 6, 13)
    assert [w.shape for w in self_w] == [(4, 2, 6, 6)] * 2
    assert [w.shape for w in cross_w] == [(4, 2, 6, 9)] * 2
    for w in enc_weights + self_w + cross_w:
        torch.testing.assert_close(w.sum(-1), torch.ones(w.shape[:-1]))
    # Decoder self-attention is causal: zero weight above the diagonal.
    assert torch.all(self_w[0].triu(diagonal=1) == 0)


def test_encode_then_decode_equals_forward():
    model = small_transformer()
    src, tgt = random_tokens(2, 8), random_tokens(2, 5, seed=3)
    src_mask = padding_mask(src, 0)
    with torch.no_grad():
        whole = model(src, tgt, src_mask)
        parts = model.decode(tgt, model.encode(src, src_mask), src_mask)
        weights_path = model.decode(
            tgt,
            model.encode(src, src_mask, need_weights=True)[0],
            src_mask,
            need_weights=True,
        )[0]
    torch.testing.assert_close(parts, whole, atol=0, rtol=0)
    # The readable attention path (weights returned) agrees with the fused kernel.
    torch.testing.assert_close(weights_path, whole, atol=1e-5, rtol=1e-5)


# ---------------------------------------------------------------- masking


@pytest.mark.parametrize("positional", SCHEMES)
def test_future_target_tokens_cannot_change_earlier_logits(positional):
    model = small_transformer(positional=positional)
    src, tgt = random_tokens(2, 7), random_tokens(2, 8, seed=4)
    changed = tgt.clone()
    changed[:, 5:] = random_tokens(2, 3, seed=5)
    with torch.no_grad():
        a, b = model(src, tgt), model(src, changed)
    torch.testing.assert_close(a[:, :5], b[:, :5], atol=1e-6, rtol=0)
    assert not torch.allclose(a[:, 5:], b[:, 5:])  # the test can fail: later logits do move


@pytest.mark.parametrize("positional", SCHEMES)
def test_decoder_only_is_causal(positional):
    seed_everything(0)
    model = DecoderOnlyTransformer(12, **(LM | {"num_layers": 2}), positional=positional).eval()
    tokens = random_tokens(3, 10, low=0, high=12)
    changed = tokens.clone()
    changed[:, 6] = (changed[:, 6] + 1) % 12
    with torch.no_grad():
        a, b = model(tokens), model(changed)
    assert a.shape == (3, 10, 12)
    torch.testing.assert_close(a[:, :6], b[:, :6], atol=1e-6, rtol=0)
    assert not torch.allclose(a[:, 6:], b[:, 6:])


@pytest.mark.parametrize("positional", SCHEMES)
def test_padding_cannot_change_results(positional):
    """A padded row gives the same logits as the same row alone, without padding."""
    model = small_transformer(positional=positional)
    src, tgt = random_tokens(2, 9), random_tokens(2, 7, seed=6)
    src[0, 6:] = 0  # row 0: source of length 6, target of length 5
    tgt[0, 5:] = 0
    src_mask, tgt_mask = padding_mask(src, 0), padding_mask(tgt, 0)
    with torch.no_grad():
        batched = model(src, tgt, src_mask, tgt_mask)
        alone = model(src[:1, :6], tgt[:1, :5])
        # Whatever sits in the padded slots, the real positions do not see it.
        noisy_src = src.clone()
        noisy_src[0, 6:] = torch.tensor([7, 8, 9])
        noisy = model(noisy_src, tgt, src_mask, tgt_mask)
    torch.testing.assert_close(batched[0, :5], alone[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(noisy[0, :5], batched[0, :5], atol=1e-6, rtol=0)
    # Without the source mask, the padding does leak in (so the mask is what protects).
    with torch.no_grad():
        unmasked = model(noisy_src, tgt, None, tgt_mask)
    assert not torch.allclose(unmasked[0, :5], batched[0, :5], atol=1e-4)


# ---------------------------------------------------------------- positional plumbing


def test_rope_and_relative_only_in_self_attention():
    rope = small_transformer(positional="rotary")
    for layer in [*rope.encoder_layers, *rope.decoder_layers]:
        assert isinstance(layer.self_attn.position, RotaryPositionalAttention)
    assert all(layer.cross_attn.position is None for layer in rope.decoder_layers)
    relative = small_transformer(positional="relative", relative_max_distance=5)
    for layer in [*relative.encoder_layers, *relative.decoder_layers]:
        assert layer.self_attn.position.keys.max_distance == 5
    assert all(layer.cross_attn.position is None for layer in relative.decoder_layers)
    plain = small_transformer()
    assert plain.encoder_layers[0].self_attn.position is None


@pytest.mark.parametrize("positional", ["alibi", "sinusoidal"])
def test_alibi_bias_reaches_self_attention_only(positional):
    model = small_transformer(positional=positional)
    seen = {}

    def record(attention, name):  # the layers call the attention's unchecked core
        inner = attention._forward

        def spy(*args):  # (query, key, value, mask, need_weights, attn_bias, cache)
            seen[name] = args[5]
            return inner(*args)

        attention._forward = spy

    record(model.encoder_layers[0].self_attn, "encoder self")
    record(model.decoder_layers[1].self_attn, "decoder self")
    record(model.decoder_layers[1].cross_attn, "cross")
    with torch.no_grad():
        model(random_tokens(1, 7), random_tokens(1, 5))
    if positional == "alibi":
        torch.testing.assert_close(seen["encoder self"], alibi_bias(7, 2))
        torch.testing.assert_close(seen["decoder self"], alibi_bias(5, 2))
    else:
        assert seen["encoder self"] is None and seen["decoder self"] is None
    assert seen["cross"] is None


def test_positional_none_makes_the_encoder_permutation_equivariant():
    """Without position, permuting the source permutes the encoder output: order is lost."""
    model = small_transformer(positional="none")
    src = random_tokens(1, 6)
    perm = torch.tensor([3, 1, 5, 0, 2, 4])
    with torch.no_grad():
        torch.testing.assert_close(model.encode(src[:, perm]), model.encode(src)[:, perm])
        sinusoidal = small_transformer()
        assert not torch.allclose(sinusoidal.encode(src[:, perm]), sinusoidal.encode(src)[:, perm])


def test_learned_positions_stop_at_max_len():
    model = DecoderOnlyTransformer(12, **LM, max_len=8, positional="learned")
    model(torch.zeros(1, 8, dtype=torch.long))
    with pytest.raises(ValueError, match="max_len"):
        model(torch.zeros(1, 9, dtype=torch.long))


# ---------------------------------------------------------------- greedy decoding


class CountingStub(nn.Module):
    """A fake model whose next token is (last token + 1), with EOS (2) once it reaches `stop`
    for each row; it records every decoder input."""

    def __init__(self, stop):
        super().__init__()
        self.stop = stop  # (B,)
        self.inputs = []

    def encode(self, src, src_mask=None):
        return src.float()[..., None]

    def decode(self, tgt, memory, src_mask=None, tgt_mask=None):
        self.inputs.append(tgt.clone())
        nxt = tgt[:, -1] + 1
        nxt = torch.where(nxt > self.stop, torch.full_like(nxt, 2), nxt)
        return nn.functional.one_hot(nxt, 20).float()[:, None, :].expand(-1, tgt.shape[1], -1)


def test_greedy_decode_starts_from_bos_pads_after_eos_and_stops_early():
    stub = CountingStub(stop=torch.tensor([5, 7]))
    out = greedy_decode(stub, torch.zeros(2, 3, dtype=torch.long), 10, bos_id=3, eos_id=2)
    assert out.tolist() == [[4, 5, 2, 0, 0], [4, 5, 6, 7, 2]]
    assert stub.inputs[0].tolist() == [[3], [3]]  # the first decoder input is BOS, not pad
    assert len(stub.inputs) == 5  # stopped once both rows produced EOS
    without_eos = greedy_decode(stub, torch.zeros(2, 3, dtype=torch.long), 4, bos_id=3)
    assert without_eos.tolist() == [[4, 5, 2, 3], [4, 5, 6, 7]]  # no EOS id: runs max_len steps


def test_greedy_decode_restores_training_mode_and_matches_teacher_forcing():
    model = small_transformer().train()
    src = random_tokens(3, 6)
    out = greedy_decode(model, src, 5, bos_id=1)
    assert model.training and out.shape == (3, 5)
    # Feeding the decoded prefix back with teacher forcing reproduces every greedy choice.
    model.eval()
    with torch.no_grad():
        logits = model(src, torch.cat([torch.ones(3, 1, dtype=torch.long), out[:, :-1]], 1))
    assert torch.equal(logits.argmax(-1), out)


# ---------------------------------------------------------------- learning


def test_overfits_a_tiny_batch_and_decodes_it():
    seed_everything(0)
    model = Transformer(8, 8, d_model=32, num_heads=2, num_layers=1, d_ff=64, dropout=0.0)
    src = torch.tensor([[3, 4, 5, 6], [7, 6, 5, 4], [4, 4, 7, 3], [6, 3, 7, 5]])
    tgt = torch.cat([torch.ones(4, 1, dtype=torch.long), src.flip(1), torch.full((4, 1), 2)], 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(150):
        logits = model(src, tgt[:, :-1])
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), tgt[:, 1:].flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert loss.item() < 0.05
    assert torch.equal(greedy_decode(model, src, 5, bos_id=1, eos_id=2), tgt[:, 1:])


# ---------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"src_vocab_size": 0}, ValueError, "src_vocab_size"),
        ({"tgt_vocab_size": 0}, ValueError, "tgt_vocab_size"),
        ({"d_model": 30, "num_heads": 4}, ValueError, "d_model"),
        ({"num_heads": 0}, ValueError, "num_heads"),
        ({"num_layers": 0}, ValueError, "num_layers"),
        ({"d_ff": 0}, ValueError, "d_ff"),
        ({"dropout": 1.0}, ValueError, "dropout"),
        ({"max_len": 0}, ValueError, "max_len"),
        ({"positional": "rope"}, ValueError, "positional"),
        ({"d_model": 12, "num_heads": 4, "positional": "rotary"}, ValueError, "d_k"),
        ({"d_model": 9, "num_heads": 3, "positional": "sinusoidal"}, ValueError, "d_model"),
        ({"norm_first": 1}, TypeError, "norm_first"),
        ({"relative_max_distance": 0}, ValueError, "relative_max_distance"),
        ({"d_model": 64.0}, TypeError, "d_model"),
    ],
)
def test_transformer_rejects_bad_arguments(kwargs, error, name):
    args = {"src_vocab_size": 10, "tgt_vocab_size": 10} | kwargs
    with pytest.raises(error, match=name):
        Transformer(**args)


def test_other_constructors_reject_bad_arguments():
    with pytest.raises(ValueError, match="vocab_size"):
        DecoderOnlyTransformer(0)
    with pytest.raises(ValueError, match="positional"):
        DecoderOnlyTransformer(10, positional="absolute")
    with pytest.raises(ValueError, match="positional"):
        TorchReferenceTransformer(10, 10, positional="rotary")
    with pytest.raises(ValueError, match="d_ff"):
        FeedForward(8, 0)
    with pytest.raises(ValueError, match="d_model"):
        EncoderLayer(10, 4, 32)
    with pytest.raises(ValueError, match="dropout"):
        DecoderLayer(8, 2, 16, dropout=-0.1)


def test_forward_rejects_bad_inputs_and_masks():
    model = small_transformer()
    src, tgt = random_tokens(2, 5), random_tokens(2, 4)
    with pytest.raises(TypeError, match="src"):
        model(src.float(), tgt)
    with pytest.raises(ValueError, match="tgt"):
        model(src, tgt[0])
    with pytest.raises(ValueError, match="src_mask"):
        model(src, tgt, src_mask=torch.ones(2, 1, 5, 5, dtype=torch.bool))  # not (B, 1, 1, S)
    with pytest.raises(TypeError, match="src_mask"):
        model(src, tgt, src_mask=padding_mask(src, 0).float())
    with pytest.raises(ValueError, match="tgt_mask"):
        model(src, tgt, tgt_mask=torch.ones(3, 1, 4, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match="memory"):
        model.decode(tgt, torch.zeros(2, 5, 8))
    with pytest.raises(ValueError, match="mask"):
        DecoderOnlyTransformer(12, d_model=16, num_heads=2)(
            src, mask=torch.ones(2, 5, dtype=torch.bool)
        )


def test_greedy_decode_rejects_bad_arguments():
    model = small_transformer()
    src = random_tokens(1, 4)
    with pytest.raises(ValueError, match="max_len"):
        greedy_decode(model, src, 0, bos_id=1)
    with pytest.raises(ValueError, match="bos_id"):
        greedy_decode(model, src, 3, bos_id=-1)
    with pytest.raises(ValueError, match="src"):
        greedy_decode(model, src[0], 3, bos_id=1)


def test_layers_and_helpers_check_their_inputs():
    with pytest.raises(ValueError, match="x must have last dimension d_model=8"):
        FeedForward(8, 16)(torch.zeros(1, 3, 5))
    with pytest.raises(TypeError, match="x"):
        FeedForward(8, 16)(torch.zeros(1, 3, 8, dtype=torch.long))
    with pytest.raises(ValueError, match="x must have last dimension"):
        EncoderLayer(8, 2, 16)(torch.zeros(1, 3, 5))
    with pytest.raises(ValueError, match="memory must have last dimension"):
        DecoderLayer(8, 2, 16)(torch.zeros(1, 3, 8), torch.zeros(1, 4, 5))
    ref = TorchReferenceTransformer(7, 7, d_model=8, num_heads=2, num_layers=1, d_ff=16)
    with pytest.raises(ValueError, match="memory"):
        ref.decode(torch.ones(1, 3, dtype=torch.long), torch.zeros(1, 3, 6))
    with pytest.raises(TypeError, match="model must be an nn.Module"):
        greedy_decode("model", torch.ones(1, 3, dtype=torch.long), 3, 1)
    model = Transformer(7, 7, d_model=8, num_heads=2, num_layers=1, d_ff=16)
    with pytest.raises(ValueError, match="bos_id must be < the model's tgt_vocab_size=7, got 9"):
        greedy_decode(model, torch.ones(1, 3, dtype=torch.long), 3, 9)
    with pytest.raises(ValueError, match="eos_id"):
        greedy_decode(model, torch.ones(1, 3, dtype=torch.long), 3, 1, eos_id=7)
    with pytest.raises(TypeError, match="module"):
        count_parameters("model")
