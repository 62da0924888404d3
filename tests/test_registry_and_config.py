"""The model configuration, tied embeddings and the registry of position schemes."""

from __future__ import annotations

import dataclasses
import inspect

import pytest
import torch

from helpers import seed_everything
from helpers.attention import MultiHeadAttention, causal_mask
from helpers.encodings import POSITION_SCHEMES, PositionScheme, require_scheme
from helpers.transformer import (
    DecoderOnlyTransformer,
    TorchReferenceTransformer,
    Transformer,
    TransformerConfig,
    count_parameters,
    generate,
    greedy_decode,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py

V, D = 11, 16  # vocabulary, d_model
SIZE = {"d_model": D, "num_heads": 2, "num_layers": 2, "d_ff": 32, "dropout": 0.0}


def tokens(batch: int = 2, length: int = 6, seed: int = 1) -> torch.Tensor:
    return torch.randint(3, V, (batch, length), generator=torch.Generator().manual_seed(seed))


# ------------------------------------------------------------------------- the configuration


def test_models_keep_their_arguments_in_one_validated_config():
    model = Transformer(V, V, **SIZE, positional="alibi", norm_first=True)
    assert model.config == TransformerConfig(**SIZE, positional="alibi", norm_first=True)
    assert model.config.scheme is POSITION_SCHEMES["alibi"]
    lm = DecoderOnlyTransformer(V, **SIZE, relative_max_distance=3, positional="relative")
    assert lm.config.relative_max_distance == 3
    assert lm.layers[1].self_attn.position.keys.max_distance == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.config.d_model = 32


MODELS = {
    "Transformer": lambda config=None, **options: Transformer(V, V, config, **options),
    "DecoderOnlyTransformer": lambda config=None, **options: DecoderOnlyTransformer(
        V, config, **options
    ),
    "TorchReferenceTransformer": lambda config=None, **options: TorchReferenceTransformer(
        V, V, config, **options
    ),
}


@pytest.mark.parametrize("name", MODELS)
def test_every_model_has_the_config_defaults_and_no_others(name):
    """One set of defaults: built with nothing, each model holds ``TransformerConfig()``
    (dropout 0.1 included), and its signature spells no field of the configuration."""
    model = MODELS[name]()
    assert model.config == TransformerConfig()
    rates = {m.p for m in model.modules() if isinstance(m, torch.nn.Dropout) and m.p}
    assert rates == {0.1}  # (the sinusoidal table's own dropout stays 0: the embedding's acts)
    fields = {f.name for f in dataclasses.fields(TransformerConfig)}
    cls = type(model)
    assert not fields & set(inspect.signature(cls).parameters), cls


@pytest.mark.parametrize("name", MODELS)
def test_a_config_and_its_keywords_build_the_same_model(name):
    config = TransformerConfig(**SIZE, positional="learned", norm_first=True)
    seed_everything(0)
    given = MODELS[name](config)
    seed_everything(0)
    spelled = MODELS[name](**SIZE, positional="learned", norm_first=True)
    seed_everything(0)
    replaced = MODELS[name](TransformerConfig(**SIZE), positional="learned", norm_first=True)
    assert given.config is config and spelled.config == replaced.config == config
    for other in (spelled, replaced):  # same draws in the same order: identical weights
        state = other.state_dict()
        assert list(state) == list(given.state_dict())
        for key, value in given.state_dict().items():
            assert torch.equal(value, state[key]), key


@pytest.mark.parametrize("name", MODELS)
def test_models_refuse_a_config_that_is_not_one(name):
    with pytest.raises(TypeError, match="config must be a TransformerConfig or None, got int 16"):
        MODELS[name](16)  # the old positional d_model
    with pytest.raises(TypeError, match="unknown model option.* dmodel: expected fields"):
        MODELS[name](dmodel=16)
    with pytest.raises(ValueError, match="dropout"):  # the replaced fields are checked
        MODELS[name](TransformerConfig(), dropout=1.5)


def test_nope_layers_reach_both_stacks_of_the_encoder_decoder():
    model = Transformer(V, V, **SIZE, positional="rotary", nope_layers=(1,))
    for stack in (model.encoder_layers, model.decoder_layers):
        assert [layer.self_attn.position is None for layer in stack] == [False, True]


def test_the_reference_refuses_what_torch_nn_cannot_do():
    with pytest.raises(ValueError, match="tie_embeddings must be False.*got tie_embeddings=True"):
        TorchReferenceTransformer(V, V, tie_embeddings=True)
    with pytest.raises(ValueError, match="positional"):
        TorchReferenceTransformer(V, V, TransformerConfig(positional="rotary", nope_layers=(0,)))


def test_config_fields_are_given_by_name():
    with pytest.raises(TypeError):
        TransformerConfig(64)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"d_model": 0}, ValueError, "d_model"),
        ({"d_ff": 0}, ValueError, "d_ff"),
        ({"max_len": 0}, ValueError, "max_len"),
        ({"num_layers": 0}, ValueError, "num_layers"),
        ({"d_model": 10, "num_heads": 4}, ValueError, "divisible"),
        ({"positional": "rope"}, ValueError, "positional"),
        ({"d_model": 12, "num_heads": 4, "positional": "rotary"}, ValueError, "d_k=3"),
        ({"norm_first": 1}, TypeError, "norm_first"),
        ({"relative_max_distance": 0}, ValueError, "relative_max_distance"),
        ({"tie_embeddings": "yes"}, TypeError, "tie_embeddings"),
    ],
)
def test_config_rejects_bad_values_when_made(kwargs, error, words):
    with pytest.raises(error, match=words):
        TransformerConfig(**kwargs)


def test_models_check_inside_once_at_the_boundary(monkeypatch):
    """The layers and attention run their unchecked cores below a model's forward."""
    calls = []
    original = MultiHeadAttention._require_options

    def counting(self, *args):
        calls.append(1)
        return original(self, *args)

    monkeypatch.setattr(MultiHeadAttention, "_require_options", counting)
    model = Transformer(V, V, **SIZE)
    model(tokens(), tokens(length=4))
    DecoderOnlyTransformer(V, **SIZE)(tokens())
    assert calls == []
    x = torch.randn(1, 3, D)
    model.encoder_layers[0](x)  # a layer called by a learner checks its inputs
    assert calls == [1]


# ------------------------------------------------------------------------- tied embeddings


def test_tied_transformer_shares_one_matrix_three_ways():
    untied = Transformer(V, V, **SIZE)
    tied = Transformer(V, V, **SIZE, tie_embeddings=True)
    # shared: the target embedding (V x d_model) and the output projection's weight (V x d_model)
    assert count_parameters(untied) - count_parameters(tied) == 2 * 11 * 16
    weight = tied.src_embedding.token_embedding.weight
    assert tied.tgt_embedding.token_embedding.weight is weight
    assert tied.output_projection.weight is weight
    assert untied.output_projection.weight is not untied.tgt_embedding.token_embedding.weight


def test_tied_decoder_only_shares_the_token_embedding_with_the_projection():
    untied = DecoderOnlyTransformer(V, **SIZE)
    tied = DecoderOnlyTransformer(V, **SIZE, tie_embeddings=True)
    assert count_parameters(untied) - count_parameters(tied) == 11 * 16
    assert tied.output_projection.weight is tied.embedding.token_embedding.weight
    # the logits are dot products with the embedding rows (plus the projection's bias)
    seen = []
    tied.output_projection.register_forward_hook(lambda m, args, out: seen.append(args[0]))
    logits = tied(tokens())
    expected = seen[0] @ tied.embedding.token_embedding.weight.T + tied.output_projection.bias
    torch.testing.assert_close(logits, expected)


def test_a_gradient_step_keeps_tied_weights_one_tensor():
    seed_everything(0)
    model = Transformer(V, V, **SIZE, tie_embeddings=True)
    before = model.output_projection.weight.detach().clone()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    logits = model(tokens(), tokens(length=4))
    logits.logsumexp(-1).mean().backward()
    optimizer.step()
    weight = model.src_embedding.token_embedding.weight
    assert model.output_projection.weight is weight
    assert model.tgt_embedding.token_embedding.weight is weight
    assert not torch.equal(weight, before)  # it did learn, once, for all three uses


def test_tied_models_decode_the_same_with_and_without_the_cache():
    seed_everything(0)
    model = Transformer(V, V, **SIZE, positional="rotary", tie_embeddings=True).eval()
    src = tokens(3, 5)
    torch.testing.assert_close(
        greedy_decode(model, src, 6, bos_id=1, use_cache=True),
        greedy_decode(model, src, 6, bos_id=1, use_cache=False),
    )
    lm = DecoderOnlyTransformer(V, **SIZE, positional="alibi", tie_embeddings=True).eval()
    prompt = tokens(2, 3)
    assert torch.equal(generate(lm, prompt, 5, use_cache=True), generate(lm, prompt, 5, False))


def test_tied_embeddings_need_one_vocabulary():
    with pytest.raises(ValueError, match="src_vocab_size and tgt_vocab_size must agree"):
        Transformer(V, V + 1, **SIZE, tie_embeddings=True)


# ------------------------------------------------------------------------- the registry


def test_every_scheme_says_where_it_enters_and_models_follow():
    for name, scheme in POSITION_SCHEMES.items():
        assert scheme.name == name and scheme.summary
        lm = DecoderOnlyTransformer(V, **SIZE, positional=name)
        in_embedding = lm.embedding.position is not None
        in_attention = lm.layers[0].self_attn.position is not None
        assert in_embedding == (scheme.enters == "embedding")
        assert in_attention == (scheme.enters in ("rotation", "relative"))
        assert (lm._attn_bias(3, 3, torch.zeros(1, 3, D)) is not None) == (
            scheme.enters == "score bias"
        )


def test_scheme_constraints_are_checked_from_the_entry():
    assert require_scheme("rotary", 8, 2) is POSITION_SCHEMES["rotary"]
    with pytest.raises(ValueError, match="d_model must be even for positional='sinusoidal'"):
        require_scheme("sinusoidal", 7, 1)
    with pytest.raises(ValueError, match="even head width d_k"):
        require_scheme("rotary", 12, 4)
    require_scheme("alibi", 12, 4)  # no constraint


def test_an_entry_gives_exactly_the_builder_of_its_place():
    with pytest.raises(ValueError, match="attn_bias"):
        PositionScheme("toy", "score bias", "no bias given")
    with pytest.raises(ValueError, match="none"):
        PositionScheme("toy", "nowhere", "a builder too many", attn_bias=lambda *a: None)
    with pytest.raises(ValueError, match="enters"):
        PositionScheme("toy", "inside", "an unknown place")


def _per_example_bias(num_heads, len_q, len_k, like):
    """A bias per example, (B, H, L_q, L_k): example b penalises distance b + 1 times."""
    batch = like.shape[0]
    q_pos = torch.arange(len_k - len_q, len_k)[:, None]
    distance = (q_pos - torch.arange(len_k)[None, :]).abs().to(like.dtype)  # (L_q, L_k)
    steepness = torch.arange(1, batch + 1, dtype=like.dtype)[:, None, None, None]  # (B,1,1,1)
    return -steepness * distance.expand(batch, num_heads, len_q, len_k)


def test_a_new_scheme_is_one_registry_entry(monkeypatch):
    """A scheme with a bias per example runs through the models, with and without a cache."""
    toy = PositionScheme("toy", "score bias", "a per-example bias", attn_bias=_per_example_bias)
    monkeypatch.setitem(POSITION_SCHEMES, "toy", toy)
    seed_everything(0)
    lm = DecoderOnlyTransformer(V, **SIZE, positional="toy").eval()
    same = tokens(1, 6).expand(2, 6)  # two equal rows: only the bias tells them apart
    with torch.no_grad():
        logits = lm(same)
        assert not torch.allclose(logits[0], logits[1], atol=1e-4)
        single = lm(same[1:])  # one example: it gets the first bias, steepness 1
        torch.testing.assert_close(single[0], logits[0])
    prompt = tokens(2, 3)
    assert torch.equal(generate(lm, prompt, 4, use_cache=True), generate(lm, prompt, 4, False))


def test_attention_takes_a_bias_per_example_on_both_paths():
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2).eval()
    x = torch.randn(3, 4, 8)
    bias = torch.randn(3, 2, 4, 4)  # (B, num_heads, L_q, L_k), e.g. graph distances
    mask = causal_mask(4)
    out, _ = mha(x, x, x, mask, attn_bias=bias)
    fused, _ = mha(x, x, x, mask, need_weights=False, attn_bias=bias)
    torch.testing.assert_close(fused, out)
    for b in range(3):
        alone, _ = mha(x[b : b + 1], x[b : b + 1], x[b : b + 1], mask, attn_bias=bias[b : b + 1])
        torch.testing.assert_close(alone[0], out[b])
