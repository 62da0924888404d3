"""The defaults the lessons rely on, seen in what the helpers build and produce (not in their
signatures: a wrong default must change a model, a batch or a printed bar), and the edges of
the incremental-decoding and rotary-scaling code."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from helpers import data, seed_everything, training
from helpers.attention import KVCache, LayerKVCache, MultiHeadAttention
from helpers.encodings import (
    LearnedPositionalEmbedding,
    RelativePositionalAttention,
    RotaryPositionalAttention,
    SinusoidalPositionalEncoding,
    TokenAndPositionalEmbedding,
    naive,
    rotary_frequencies,
    scaled_rotary_frequencies,
)
from helpers.transformer import (
    DecoderLayer,
    DecoderOnlyTransformer,
    EncoderLayer,
    TorchReferenceTransformer,
    Transformer,
    set_rotary_scaling,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


# ------------------------------------------------------------ models built with their defaults


def test_transformer_defaults_build_the_small_model_of_the_lessons():
    model = Transformer(11, 13, positional="relative")
    assert len(model.encoder_layers) == len(model.decoder_layers) == 2
    assert model.encoder_layers[0].feed_forward.linear1.out_features == 256
    assert model.src_embedding.max_len == model.tgt_embedding.max_len == 512
    assert model.norm_first is False and isinstance(model.encoder_norm, torch.nn.Identity)
    assert model.encoder_layers[0].self_attn.position.keys.max_distance == 16


def test_decoder_only_defaults():
    model = DecoderOnlyTransformer(11, positional="relative")
    assert len(model.layers) == 2 and model.layers[0].feed_forward.linear1.out_features == 256
    assert model.embedding.max_len == 512 and isinstance(model.final_norm, torch.nn.Identity)
    assert model.layers[0].self_attn.position.keys.max_distance == 16


def test_reference_defaults_match_ours():
    reference = TorchReferenceTransformer(11, 13)
    assert (
        len(reference.transformer.encoder.layers) == len(reference.transformer.decoder.layers) == 2
    )
    assert reference.transformer.encoder.layers[0].linear1.out_features == 256
    assert reference.src_embedding.max_len == 512 and reference.norm_first is False


def test_layers_and_attention_defaults():
    assert EncoderLayer(8, 2, 16).norm_first is False
    assert DecoderLayer(8, 2, 16).norm_first is False
    assert MultiHeadAttention(8, 2, position=RotaryPositionalAttention).position.base == 10000.0
    assert TokenAndPositionalEmbedding(5, 4).max_len == 512
    assert SinusoidalPositionalEncoding(4).max_len == 512


# ------------------------------------------------------------ the toy data's defaults


def test_the_default_task_is_ten_symbols_sixteen_long():
    src, tgt = data.make_batch("copy", 64)
    assert src.shape == (64, 16) and tgt.shape == (64, 18) and tgt.dtype == torch.long
    assert int(src.max()) == data.NUM_SPECIAL + 10 - 1
    src, _ = data.make_dataset("copy", 64)
    assert src.shape == (64, 16) and int(src.max()) == data.NUM_SPECIAL + 9
    src, _ = next(data.batch_stream("copy", 64))
    assert src.shape == (64, 16) and int(src.max()) == data.NUM_SPECIAL + 9


def test_the_default_seed_is_zero():
    first = next(data.batch_stream("copy", 4))[0]
    assert torch.equal(first, next(data.batch_stream("copy", 4, seed=0))[0])
    assert not torch.equal(first, next(data.batch_stream("copy", 4, seed=1))[0])
    assert torch.equal(data.make_dataset("copy", 4)[0], data.make_dataset("copy", 4, seed=0)[0])
    assert not torch.equal(data.make_dataset("copy", 4)[0], data.make_dataset("copy", 4, seed=1)[0])


# ------------------------------------------------------------ the training loop's defaults


def tiny_model() -> Transformer:
    seed_everything(0)
    return Transformer(8, 8, d_model=16, num_heads=2, num_layers=1, d_ff=32, dropout=0.0)


def batches():
    src, tgt = data.make_dataset("reverse", 12, num_symbols=5, min_len=5, seed=1)
    return list(zip(src.split(4), tgt.split(4), strict=True))


def test_train_defaults_warm_up_over_100_steps_and_show_a_bar(capsys):
    history = training.train(tiny_model(), batches(), 3)
    assert history.learning_rates == pytest.approx(
        [training.noam_lr(s, 16, 100) for s in (1, 2, 3)], rel=1e-12
    )
    assert "training: " in capsys.readouterr().err
    explicit = training.train(tiny_model(), batches(), 3, clip_norm=1.0, progress=False)
    assert history.losses == explicit.losses


def test_train_step_clips_at_1_by_default():
    (src, tgt), losses = batches()[0], []
    for clip in ("default", 1.0, 2.0):
        model = tiny_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
        if clip == "default":
            training.train_step(model, src, tgt, optimizer)
        else:
            training.train_step(model, src, tgt, optimizer, clip_norm=clip)
        losses.append(training.sequence_loss(model(src, tgt[:, :-1]), tgt[:, 1:]).item())
    assert losses[0] == losses[1] != losses[2]


def test_train_refuses_zero_steps_by_name():
    with pytest.raises(ValueError, match="num_steps must be a positive integer, got 0"):
        training.train(tiny_model(), batches(), 0, progress=False)


# ------------------------------------------------------------ naive schemes' defaults


def test_naive_defaults_in_use():
    assert naive.random_encoding(np.arange(3)).shape == (3, 16)
    np.testing.assert_array_equal(
        naive.single_sine_encoding(np.arange(4)).ravel(), np.sin(np.arange(4))
    )

    def repeats_at_512(t):
        return (np.asarray(t) % 512)[:, None].astype(float)

    def noisy_from_50(t):
        t = np.asarray(t)
        fresh = np.random.default_rng().random(len(t))  # different on every call
        return np.where(t < 50, t, fresh)[:, None]

    assert naive.unique_per_position(repeats_at_512, verbose=False) is True
    assert naive.deterministic(noisy_from_50, verbose=False) is True


# ------------------------------------------------------------ positions with an offset


@pytest.mark.parametrize(
    "table", [SinusoidalPositionalEncoding(4, 8), LearnedPositionalEmbedding(8, 4)]
)
def test_position_tables_with_an_offset(table):
    x = torch.zeros(1, 2, 4)
    rows = table(x, offset=3)
    torch.testing.assert_close(rows, table(torch.zeros(1, 5, 4))[:, 3:])
    with pytest.raises(ValueError, match="offset must be a non-negative integer, got -1"):
        table(x, offset=-1)
    with pytest.raises(ValueError, match=r"^offset \+ seq_len=9 is longer than max_len=8"):
        table(x, offset=7)
    with pytest.raises(ValueError, match=r"^seq_len=9 is longer than max_len=8"):
        table(torch.zeros(1, 9, 4))


def test_relative_offsets_must_not_be_negative():
    from helpers.encodings import RelativePositionalEmbedding

    with pytest.raises(ValueError, match="query_offset must be a non-negative integer"):
        RelativePositionalEmbedding(2, 4).scores(torch.zeros(1, 4), 3, -1)


def test_relative_values_under_a_cache_use_the_true_offsets():
    torch.manual_seed(0)
    relative = lambda d_k: RelativePositionalAttention(d_k, 2, values=True)  # noqa: E731
    attention = MultiHeadAttention(8, 2, position=relative).eval()
    torch.nn.init.normal_(attention.position.values.weight)
    x = torch.randn(1, 5, 8)
    causal = torch.ones(5, 5, dtype=torch.bool).tril()
    full, _ = attention(x, x, x, causal)
    cache = LayerKVCache()
    first, _ = attention(x[:, :3], x[:, :3], x[:, :3], causal[:3, :3], cache=cache)
    rest, _ = attention(x[:, 3:], x[:, 3:], x[:, 3:], causal[None, None, 3:], cache=cache)
    torch.testing.assert_close(torch.cat([first, rest], dim=1), full, atol=1e-6, rtol=1e-6)


def test_cache_slots_check_what_they_store():
    slot = LayerKVCache()
    with pytest.raises(TypeError, match="k must be a floating-point"):
        slot.extend(torch.zeros(1, 2, 3, 4, dtype=torch.long), torch.zeros(1, 2, 3, 4))
    with pytest.raises(ValueError, match="k must have 4 dimensions"):
        slot.extend(torch.zeros(2, 3, 4), torch.zeros(1, 2, 3, 4))
    with pytest.raises(TypeError, match="v must be a floating-point"):
        slot.extend(torch.zeros(1, 2, 3, 4), torch.zeros(1, 2, 3, 4, dtype=torch.long))
    slot.extend(torch.zeros(1, 2, 3, 4), torch.zeros(1, 2, 3, 4))
    with pytest.raises(ValueError, match=r"matching the cached \(1, 2, 3, 4\)"):
        slot.extend(torch.zeros(1, 3, 1, 4), torch.zeros(1, 3, 1, 4))


def test_cache_type_errors_name_the_type_given():
    model = DecoderOnlyTransformer(7, d_model=8, num_heads=2, num_layers=1, d_ff=8)
    with pytest.raises(TypeError, match="got list"):
        model(torch.ones(1, 2, dtype=torch.long), cache=[])
    x = torch.zeros(1, 1, 8)
    with pytest.raises(TypeError, match="got KVCache"):
        MultiHeadAttention(8, 2)(x, x, x, cache=KVCache(1))


# ------------------------------------------------------------ rotary scaling at its edges


def test_scaled_frequencies_at_their_boundaries():
    scaled_rotary_frequencies(4, "ntk", 2.0)  # the smallest width
    scaled_rotary_frequencies(8, "ntk", 2.0, base=1.5)  # any base above 1
    scaled_rotary_frequencies(8, "yarn", 2.0, original_max_len=1)
    with pytest.raises(ValueError, match="beta_slow must be < beta_fast"):
        scaled_rotary_frequencies(8, "yarn", 2.0, original_max_len=64, beta_fast=4.0, beta_slow=4.0)
    for original_max_len in (2048, 4096):  # at 2048, beta_fast = 33 would move the ramp
        default, _ = scaled_rotary_frequencies(64, "yarn", 4.0, original_max_len=original_max_len)
        explicit, _ = scaled_rotary_frequencies(
            64, "yarn", 4.0, original_max_len=original_max_len, beta_fast=32.0, beta_slow=1.0
        )
        torch.testing.assert_close(default, explicit, rtol=0, atol=0)


def test_rotary_scaling_by_default_keeps_the_plain_frequencies():
    model = DecoderOnlyTransformer(
        7, d_model=8, num_heads=2, num_layers=1, d_ff=8, positional="rotary"
    )
    omega, scale = set_rotary_scaling(model, "linear")  # factor 1.0: nothing stretched
    torch.testing.assert_close(omega, rotary_frequencies(4), rtol=0, atol=0)
    assert scale == 1.0


def test_yarn_ramp_is_clipped_to_the_last_dimension():
    """With a small base the ramp's top (8 here) passes the last index d - 1 = 7: it is clipped
    there, as in the authors' code."""
    d, base, length, factor = 8, 10.0, 600, 4.0  # ramp from pair 1 to 8, clipped to 7

    def reference(high_clip):
        low = max(math.floor(d * math.log(length / (32 * 2 * math.pi)) / (2 * math.log(base))), 0)
        high = min(
            math.ceil(d * math.log(length / (2 * math.pi)) / (2 * math.log(base))), high_clip
        )
        ramp = ((torch.arange(d // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)
        plain = rotary_frequencies(d, base)
        return plain * (1 - ramp) + plain / factor * ramp

    omega, _ = scaled_rotary_frequencies(d, "yarn", factor, base, original_max_len=length)
    torch.testing.assert_close(omega, reference(d - 1), rtol=1e-12, atol=0)
    assert not torch.allclose(omega, reference(d + 1)) and not torch.allclose(
        omega, reference(d - 2)
    )


# ------------------------------------------------------------ checks that only this place makes


def small(**kwargs) -> Transformer:
    seed_everything(0)
    args = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 8, "dropout": 0.0}
    return Transformer(7, 7, **(args | kwargs)).eval()


def reference() -> TorchReferenceTransformer:
    return TorchReferenceTransformer(7, 7, d_model=8, num_heads=2, num_layers=1, d_ff=8).eval()


ids = torch.tensor([[3, 4, 5], [4, 5, 6]])


@pytest.mark.parametrize("build", [small, reference], ids=["ours", "reference"])
def test_models_name_a_scalar_src_or_tgt(build):
    model = build()
    with pytest.raises(ValueError, match="src must have 2 dimensions"):
        model(torch.tensor(3), ids)
    with pytest.raises(ValueError, match="tgt must have 2 dimensions"):
        model(ids, torch.tensor(3))


def test_reference_checks_the_memory_dtype():
    with pytest.raises(TypeError, match="memory must be a floating-point"):
        reference().decode(ids, torch.zeros(2, 3, 8, dtype=torch.long))


def test_reference_decoder_is_causal_without_a_target_mask():
    from test_transformer import copy_into_reference

    ours, ref = small(), reference()
    copy_into_reference(ours, ref)
    memory = ours.encode(ids)
    torch.testing.assert_close(ref.decode(ids, memory), ours.decode(ids, memory))


def test_training_names_a_one_dimensional_tgt_and_a_scalar_src():
    model = small()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    with pytest.raises(ValueError, match="tgt must have 2 dimensions"):
        training.train_step(model, ids, torch.tensor([1, 3, 2]), optimizer)
    with pytest.raises(ValueError, match="src must have 2 dimensions"):
        training.train_step(model, torch.tensor(3), ids, optimizer)
    with pytest.raises(TypeError, match="tgt must be an integer"):
        training.evaluate(model, ids, ids.float())


def test_layers_name_their_input_x():
    with pytest.raises(ValueError, match="^x must have 3 dimensions"):
        EncoderLayer(8, 2, 16)(torch.zeros(3, 8))


def test_embedding_without_position_still_checks_its_sizes():
    with pytest.raises(ValueError, match="d_model must be a positive integer"):
        TokenAndPositionalEmbedding(3, 0, 4, "none")
    with pytest.raises(ValueError, match="max_len must be a positive integer"):
        TokenAndPositionalEmbedding(3, 2, 0, "none")


def test_the_2d_encoding_shows_the_negative_width_given():
    from helpers.encodings import sinusoidal_encoding_2d

    with pytest.raises(ValueError, match="d_model must be a positive integer, got -4"):
        sinusoidal_encoding_2d(2, 2, -4)


def test_attention_names_value_by_its_name():
    x = torch.zeros(1, 3, 8)
    with pytest.raises(ValueError, match="^value must have last dimension"):
        MultiHeadAttention(8, 2)(x, x, torch.zeros(1, 3, 4))
