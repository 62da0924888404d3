"""Lesson 12's task and recipe (helpers.extrapolation): hand-checked values, the rule on every
answer, determinism, and the scoring against an oracle that knows the rule."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import torch
from torch import nn

from helpers import extrapolation as ex


@pytest.fixture(autouse=True)
def _one_thread():
    # these models are tiny: one thread is fastest, and many threads on a busy machine crawl
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


class Oracle(nn.Module):
    """Predicts every token by the rule from the two tokens before it (what a perfect model does).

    It reads only offsets 1 and 2, so a window of 3 or more tokens leaves it perfect."""

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        guess = torch.zeros_like(tokens)  # guess[:, t] is the guess for tokens[:, t + 1]
        guess[:, 1:] = (tokens[:, :-1] + tokens[:, 1:]) % ex.NUM_VALUES
        return nn.functional.one_hot(guess, ex.VOCAB).float()  # (num, length, VOCAB)


class Zeros(nn.Module):
    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        logits = torch.zeros(*tokens.shape, ex.VOCAB)
        logits[..., 0] = 1.0
        return logits


def test_constants_agree():
    assert ex.VOCAB == ex.NUM_VALUES == 8
    assert 0 < ex.RESET_RATE < 1
    assert ex.EVAL_LENGTH == 4 * ex.TRAIN_LENGTH == 128
    assert list(ex.RANGES.values()) == [(8, 32), (32, 64), (64, 128)]
    assert set(ex.MODEL_SIZE) == {"d_model", "num_heads", "num_layers", "d_ff", "dropout"}


def test_make_task_shape_values_and_determinism():
    x = ex.make_task(64, 40, gen(3))
    assert x.shape == (64, 40) and x.dtype == torch.int64
    assert int(x.min()) == 0 and int(x.max()) == ex.NUM_VALUES - 1
    assert torch.equal(x, ex.make_task(64, 40, gen(3)))
    assert not torch.equal(x, ex.make_task(64, 40, gen(4)))


def test_resets_happen_at_the_stated_rate_and_the_rest_follows_the_rule():
    x = ex.make_task(4000, 60, gen(0))
    follows = ex.answer_mask(x)[:, 2:]  # (num, 58)
    # a reset breaks the rule unless it happens to draw the rule's value (chance 1 / NUM_VALUES)
    broken = 1 - float(follows.double().mean())
    assert broken == pytest.approx(ex.RESET_RATE * (1 - 1 / ex.NUM_VALUES), abs=0.01)
    assert not ex.answer_mask(x)[:, :2].any()


def test_hand_example():
    # the rule by hand on a generated sequence: every token that is not a reset is the sum
    x = ex.make_task(1, 10, gen(0))[0].tolist()
    by_hand = [t for t in range(2, 10) if x[t] == (x[t - 2] + x[t - 1]) % 8]
    assert ex.answer_mask(torch.tensor([x]))[0].nonzero().flatten().tolist() == by_hand


def test_resets_have_no_period():
    # every position from 2 on is a reset in about the same share of sequences, and the chains
    # restart at random places: no position is special, so answers cannot be keyed on it
    x = ex.make_task(4000, 128, gen(1))
    broken = 1 - ex.answer_mask(x)[:, 2:].double().mean(dim=0)  # (positions,)
    assert float(broken.max() - broken.min()) < 0.05


def test_answer_mask_by_hand():
    tokens = torch.tensor([[3, 4, 7, 3, 2, 5, 1, 6], [0, 0, 0, 0, 0, 0, 0, 0]])
    # 3+4=7 ok, 4+7=11=3 ok, 7+3=10=2 ok, 3+2=5 ok, 2+5=7 != 1 (reset), 5+1=6 ok
    expected = [[False, False, True, True, True, True, False, True], [False, False] + [True] * 6]
    assert ex.answer_mask(tokens).tolist() == expected


def test_window_mask_by_hand():
    expected = [
        [True, False, False, False],
        [True, True, False, False],
        [False, True, True, False],
        [False, False, True, True],
    ]
    assert ex.window_mask(4, 2).tolist() == expected
    assert torch.equal(ex.window_mask(5, 5), torch.ones(5, 5, dtype=torch.bool).tril())


def test_learning_rate_schedule():
    assert math.isclose(ex.learning_rate(0), ex.PEAK_LR / ex.WARMUP)
    assert math.isclose(ex.learning_rate(ex.WARMUP - 1), ex.PEAK_LR)
    assert math.isclose(ex.learning_rate(ex.STEPS - 1), ex.PEAK_LR / (ex.STEPS - ex.WARMUP))


def test_build_model_sizes():
    torch.manual_seed(0)
    assert ex.build_model("learned").config.max_len == ex.TRAIN_LENGTH
    model = ex.build_model("alibi")
    assert model.config.max_len == ex.EVAL_LENGTH
    assert model(torch.zeros(2, ex.EVAL_LENGTH, dtype=torch.long)).shape == (
        2,
        ex.EVAL_LENGTH,
        ex.VOCAB,
    )


def test_accuracy_by_position_oracle_and_hand_count():
    x = ex.make_task(200, 50, gen(2))
    scored = ex.answer_mask(x)
    acc = ex.accuracy_by_position(Oracle(), x)
    assert acc.shape == (50,)
    assert np.isnan(acc[:2]).all()
    assert (acc[2:] == 1.0).all()
    # always guessing 0: right exactly where the answer is 0
    zeros = ex.accuracy_by_position(Zeros(), x)
    t = 20
    answers = x[scored[:, t], t]
    assert zeros[t] == pytest.approx(float((answers == 0).double().mean()))


def test_accuracy_by_position_window_reaches_the_model():
    class SeesMask(nn.Module):
        def forward(self, tokens, mask=None):
            assert mask is not None and mask.shape == (tokens.shape[1], tokens.shape[1])
            assert int(mask.sum(dim=1).max()) == 3
            return Oracle()(tokens)

    x = ex.make_task(10, 30, gen(5))
    acc = ex.accuracy_by_position(SeesMask(), x, window=3)
    assert np.nanmin(acc) == 1.0


def test_range_accuracies_oracle_and_truncation():
    assert ex.range_accuracies(Oracle()) == dict.fromkeys(ex.RANGES, 1.0)
    short = ex.range_accuracies(Oracle(), max_len_eval=ex.TRAIN_LENGTH)
    assert short["8 <= t < L"] == 1.0
    assert math.isnan(short["L <= t < 2L"]) and math.isnan(short["2L <= t < 4L"])
    # pooled over answers: the zero-guesser scores the share of zero answers in the range
    tokens = ex.evaluation_tokens()
    scored = ex.answer_mask(tokens)[:, 64:]
    share = float((tokens[:, 64:][scored] == 0).double().mean())
    assert ex.range_accuracies(Zeros())["2L <= t < 4L"] == pytest.approx(share)


def test_evaluate_gives_both_summaries_from_one_pass():
    x = ex.make_task(300, 70, gen(3))  # 70 tokens: the third range does not fit
    by_position, by_range = ex.evaluate(Zeros(), x)
    np.testing.assert_array_equal(by_position, ex.accuracy_by_position(Zeros(), x))
    scored = ex.answer_mask(x)[:, 32:64]
    # pooled over answers (not the mean of the per-position accuracies): share of zero answers
    assert by_range["L <= t < 2L"] == pytest.approx(
        float((x[:, 32:64][scored] == 0).double().mean())
    )
    assert by_range["L <= t < 2L"] != pytest.approx(float(np.mean(by_position[32:64])), abs=1e-12)
    assert math.isnan(by_range["2L <= t < 4L"])


def test_evaluation_tokens_are_unseen_in_training():
    train = ex.make_task(ex.STEPS * ex.BATCH, ex.TRAIN_LENGTH, gen(1000))  # seed 0's data
    seen = set(map(tuple, train.tolist()))
    test = ex.evaluation_tokens()[:, : ex.TRAIN_LENGTH]
    assert sum(tuple(row) in seen for row in test.tolist()) == 0


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(ex.VOCAB, 8)
        self.out = nn.Linear(8, ex.VOCAB)

    def forward(self, tokens):
        return self.out(self.embed(tokens))


def test_train_on_task_is_deterministic_in_place_and_leaves_eval_mode():
    def run():
        torch.manual_seed(0)
        model = Tiny()
        before = model.out.weight.detach().clone()
        trained = ex.train_on_task(model, seed=0)
        assert trained is model and not model.training
        assert not torch.equal(before, model.out.weight)
        return model.out.weight.detach().clone()

    assert torch.equal(run(), run())


@pytest.mark.parametrize("workers", [1, 3])
def test_train_many_gives_the_weights_of_training_one_after_another(workers):
    def fresh(seed):
        torch.manual_seed(seed)
        return Tiny()

    one_by_one = {seed: ex.train_on_task(fresh(seed), seed) for seed in range(3)}
    many = ex.train_many({seed: (fresh(seed), seed) for seed in range(3)}, workers=workers)
    assert list(many) == [0, 1, 2]
    for seed in range(3):
        assert not many[seed].training
        for a, b in zip(one_by_one[seed].parameters(), many[seed].parameters(), strict=True):
            assert torch.equal(a, b)
    assert not torch.equal(many[0].out.weight, many[1].out.weight)


def test_evaluate_takes_the_rows_a_few_at_a_time_with_the_result_of_one_pass():
    """150 rows go through the model as 64 + 64 + 22 (EVAL_ROWS), windowed or not, and the
    accuracies are those of one forward pass over all of them, counted here by hand."""
    torch.manual_seed(0)
    tiny, batches = Tiny(), []
    tiny.register_forward_pre_hook(lambda _, args: batches.append(args[0].shape[0]))
    x = ex.make_task(150, 40, gen(3))
    by_position, by_range = ex.evaluate(tiny, x)
    assert ex.EVAL_ROWS == 64 and batches == [64, 64, 22]
    with torch.no_grad():
        right = (tiny(x)[:, :-1].argmax(dim=-1) == x[:, 1:]) & ex.answer_mask(x)[:, 1:]
    counts = ex.answer_mask(x).sum(dim=0).double().numpy()
    hits = np.concatenate([[0.0], right.sum(dim=0).double().numpy()])
    expected = np.where(counts > 0, hits / np.maximum(counts, 1), np.nan)
    np.testing.assert_array_equal(by_position, expected)
    assert 0 < by_range["8 <= t < L"] < 1  # an untrained model: some right, some wrong
    oracle = ex.evaluate(Oracle(), x, window=3)[0]  # the window mask goes with every part
    assert np.nanmin(oracle[2:]) == 1.0


def test_evaluate_many_equals_evaluate_one_by_one():
    x = ex.make_task(50, 80, gen(8))
    models = {"oracle": Oracle(), "zeros": Zeros()}
    many = ex.evaluate_many(models, x, window=4, workers=2)
    assert list(many) == ["oracle", "zeros"]
    for name, model in models.items():
        by_position, by_range = ex.evaluate(model, x, window=4)
        np.testing.assert_array_equal(many[name][0], by_position)
        assert many[name][1] == pytest.approx(by_range, nan_ok=True)
    assert many["oracle"][1]["8 <= t < L"] == 1.0 and many["zeros"][1]["8 <= t < L"] < 0.3


def test_train_on_task_teaches_alibi_the_rule():
    torch.manual_seed(0)
    model = ex.train_on_task(ex.build_model("alibi"), seed=0)
    accuracies = ex.range_accuracies(model)
    assert min(accuracies.values()) > 0.7  # 0.80 to 0.84 on the machine that wrote this


# The recall probe ---------------------------------------------------------------------------


class Recaller(nn.Module):
    """Answers the recall probe by reading token 0 wherever it is visible (what a model that uses
    the whole input does); under a sliding window that hides token 0 it guesses key 0."""

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        num, length = tokens.shape
        sees_first = torch.ones(length, dtype=torch.bool) if mask is None else mask[:, 0]
        guess = torch.where(sees_first, tokens[:, :1], ex.NUM_VALUES)  # (num, length)
        return nn.functional.one_hot(guess, ex.RECALL_VOCAB).float()


def test_recall_vocabulary_by_hand():
    assert (ex.RECALL_KEYS, ex.RECALL_QUERY, ex.RECALL_VOCAB) == (4, 12, 13)
    assert ex.TASKS == ("sums", "recall")


def test_make_recall_task_one_query_then_the_first_token():
    x = ex.make_recall_task(500, 40, gen(6))
    assert x.shape == (500, 40) and x.dtype == torch.int64
    assert torch.equal(x, ex.make_recall_task(500, 40, gen(6)))
    keys = x[:, 0]
    assert bool(((keys >= ex.NUM_VALUES) & (keys < ex.RECALL_QUERY)).all())
    assert set(keys.tolist()) == {8, 9, 10, 11}  # all four keys occur in 500 draws
    is_query = x == ex.RECALL_QUERY
    assert is_query.sum(dim=1).tolist() == [1] * 500  # exactly one query per sequence
    where = is_query.int().argmax(dim=1)  # the one True: no tie to break
    assert int(where.min()) == 1 and int(where.max()) == 38  # 1 .. length - 2, both ends drawn
    assert torch.equal(x[torch.arange(500), where + 1], keys)  # the answer repeats token 0
    rest = x[:, 1:][~is_query[:, 1:]]  # fillers and answers
    fillers = rest[rest < ex.NUM_VALUES]
    assert rest.numel() - fillers.numel() == 500  # the only non-fillers are the 500 answers


def test_recall_answer_mask_marks_the_token_after_the_query():
    x = torch.tensor([[9, 3, 12, 9, 5], [11, 12, 11, 0, 2]])
    expected = [[False, False, False, True, False], [False, False, True, False, False]]
    assert ex.recall_answer_mask(x).tolist() == expected


def test_evaluate_recall_needs_the_first_token():
    tokens = ex.evaluation_tokens(task="recall")
    assert tokens.shape == (ex.NUM_TEST, ex.EVAL_LENGTH)
    full = ex.evaluate(Recaller(), tokens, task="recall")[1]
    assert full == dict.fromkeys(ex.RANGES, 1.0)
    # a window of L keys hides token 0 from every answer at t >= L + 1: it guesses key 8,
    # right only where the key is 8 (about a quarter)
    windowed = ex.evaluate(Recaller(), tokens, task="recall", window=ex.TRAIN_LENGTH)[1]
    assert windowed["8 <= t < L"] == 1.0
    scored = ex.recall_answer_mask(tokens)
    far = scored[:, 64:].any(dim=1)
    share = float((tokens[far, 0] == ex.NUM_VALUES).double().mean())
    assert windowed["2L <= t < 4L"] == pytest.approx(share)
    assert 0.15 < share < 0.35


def test_train_on_task_teaches_the_recall_probe():
    torch.manual_seed(0)
    model = ex.train_on_task(ex.build_model("alibi", task="recall"), seed=0, task="recall")
    assert model.embedding.vocab_size == ex.RECALL_VOCAB
    tokens = ex.evaluation_tokens(task="recall")
    assert min(ex.evaluate(model, tokens, task="recall")[1].values()) > 0.9  # 1.00 here


def test_clamped_rotary_scores_far_keys_at_the_clamp_by_hand():
    # one head, six positions: score (i, j) must be q_i . R(min(i - j, 2)) k_j / sqrt(d_k),
    # computed here from apply_rotary at each pair's own positions
    from helpers.encodings import RotaryPositionalAttention, apply_rotary

    torch.manual_seed(0)
    q, k = (
        torch.randn(1, 1, 6, 8, dtype=torch.float64),
        torch.randn(1, 1, 6, 8, dtype=torch.float64),
    )
    clamped = ex._ClampedRotary(RotaryPositionalAttention(8), 2)
    q_rot, k_rot = clamped.rotate(q, k, 0)
    scores = q_rot @ k_rot.transpose(-2, -1) / math.sqrt(8) + clamped.score_bias(q_rot, 6, 0)
    expected = torch.empty(6, 6, dtype=torch.float64)
    for i in range(6):
        for j in range(6):
            offset = min(i - j, 2) if j <= i else i - j  # future keys: untouched
            turned = apply_rotary(q[0, 0, i : i + 1], [offset])  # R(offset) q: the same score
            expected[i, j] = float(turned[0] @ k[0, 0, j]) / math.sqrt(8)
    torch.testing.assert_close(scores[0, 0], expected)
    assert not torch.allclose(
        scores[0, 0, 5, 0], (q_rot @ k_rot.transpose(-2, -1))[0, 0, 5, 0] / math.sqrt(8)
    )


def test_clamp_rotary_offsets_edges_and_arguments():
    from helpers.encodings import PositionalAttention

    torch.manual_seed(0)
    model = ex.build_model("rotary").double().eval()
    tokens = ex.evaluation_tokens()[:3, :40]
    with torch.no_grad():
        plain = model(tokens)
        # a clamp at the longest offset changes nothing; the original is left untouched
        torch.testing.assert_close(ex.clamp_rotary_offsets(model, 39)(tokens), plain)
        assert type(model.layers[0].self_attn.position).__name__ == "RotaryPositionalAttention"
        # a clamp at 0 scores every key as the query itself: no rotation at all
        unturned = copy.deepcopy(model)
        for layer in unturned.layers:
            layer.self_attn.position = PositionalAttention()
        torch.testing.assert_close(ex.clamp_rotary_offsets(model, 0)(tokens), unturned(tokens))
        assert (ex.clamp_rotary_offsets(model, 31)(tokens) - plain).abs().max() > 1e-3
    with pytest.raises(ValueError, match="rotary"):
        ex.clamp_rotary_offsets(ex.build_model("alibi"), 31)
    with pytest.raises(ValueError, match="max_offset"):
        ex.clamp_rotary_offsets(model, -1)
    with pytest.raises(TypeError, match="DecoderOnlyTransformer"):
        ex.clamp_rotary_offsets(nn.Linear(2, 2), 31)


def test_move_recall_key_swaps_the_key_with_one_filler():
    tokens = ex.evaluation_tokens(task="recall")
    tokens = tokens[ex.recall_answer_mask(tokens)[:, 2 * ex.TRAIN_LENGTH :].any(dim=1)]
    moved = ex.move_recall_key(tokens, gen(1))
    assert torch.equal(moved, ex.move_recall_key(tokens, gen(1)))
    rows = torch.arange(len(tokens))
    place = (moved >= ex.NUM_VALUES) & (moved < ex.RECALL_QUERY)  # key tokens: the key, the answer
    first = place.int().argmax(dim=1)  # the moved key: the first key token of each row
    assert int(first.min()) == 1 and int(first.max()) == 62  # both ends drawn
    assert torch.equal(moved[rows, first], tokens[:, 0])  # the key, now at `first`
    assert torch.equal(moved[:, 0], tokens[rows, first])  # the filler it swapped with
    assert bool((moved[:, 0] < ex.NUM_VALUES).all())
    changed = (moved != tokens).sum(dim=1)
    assert bool((changed == 2).all())  # the key and one filler, nothing else
    assert torch.equal(ex.recall_answer_mask(moved), ex.recall_answer_mask(tokens))
    with pytest.raises(ValueError, match="after position last=62"):
        ex.move_recall_key(ex.evaluation_tokens(task="recall"), gen(1))
    with pytest.raises(TypeError, match="generator"):
        ex.move_recall_key(tokens, 1)
