"""Unit tests of helpers.training: the schedule's hand-computed values, the loss against its
formula, metrics on hand-made examples, the loop on a tiny task, bad arguments."""

import math

import pytest
import torch
from torch import nn

from helpers import seed_everything
from helpers.attention import MultiHeadAttention
from helpers.data import batch_stream, make_dataset
from helpers.training import (
    BAR_FORMAT,
    TrainingHistory,
    cooldown_factor,
    evaluate,
    exact_match,
    init_attention_like_torch,
    noam_lr,
    noam_scheduler,
    sequence_loss,
    token_accuracy,
    train,
    train_step,
)
from helpers.transformer import Transformer

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


# ---------------------------------------------------------------- schedule


def test_noam_lr_hand_computed():
    # d_model = 64, warmup = 100: d_model**-0.5 = 1/8.
    assert noam_lr(1, 64, 100) == pytest.approx(0.125 * 1 * 100**-1.5)  # 1.25e-4
    assert noam_lr(50, 64, 100) == pytest.approx(0.125 * 50 * 1e-3)  # linear warm-up
    assert noam_lr(100, 64, 100) == pytest.approx(0.0125)  # the peak: (64 * 100)**-0.5
    assert noam_lr(400, 64, 100) == pytest.approx(0.125 / 20)  # decay as 1/sqrt(step)
    assert noam_lr(400, 64, 100, factor=2.0) == pytest.approx(0.0125)
    rates = [noam_lr(s, 64, 100) for s in range(1, 1000)]
    assert max(rates) == rates[99]


def test_noam_scheduler_follows_noam_lr_from_step_one():
    optimizer = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0)
    scheduler = noam_scheduler(optimizer, 16, 10, factor=0.5)
    seen = []
    for _ in range(30):
        seen.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    assert seen == pytest.approx([noam_lr(s, 16, 10, 0.5) for s in range(1, 31)])


def test_cooldown_factor_is_a_line_down_over_the_last_steps():
    assert [cooldown_factor(s, 10, 4) for s in range(1, 11)] == [
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
        0.75,
        0.5,
        0.25,
    ]
    assert [cooldown_factor(s, 5, 0) for s in range(1, 6)] == [1.0] * 5
    assert cooldown_factor(3, 3, 3) == pytest.approx(1 / 3)


def test_noam_scheduler_with_cooldown():
    optimizer = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0)
    scheduler = noam_scheduler(optimizer, 16, 5, num_steps=20, cooldown_steps=8)
    seen = []
    for _ in range(20):
        seen.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    expected = [noam_lr(s, 16, 5) * cooldown_factor(s, 20, 8) for s in range(1, 21)]
    assert seen == pytest.approx(expected)
    assert seen[-1] == pytest.approx(noam_lr(20, 16, 5) / 8)


# ---------------------------------------------------------------- loss


def test_sequence_loss_ignores_pad_and_matches_formula():
    torch.manual_seed(0)
    logits = torch.randn(2, 3, 5)
    targets = torch.tensor([[4, 2, 0], [3, 0, 0]])  # three real labels, three pads
    log_p = torch.log_softmax(logits, dim=-1)
    expected = -(log_p[0, 0, 4] + log_p[0, 1, 2] + log_p[1, 0, 3]) / 3
    torch.testing.assert_close(sequence_loss(logits, targets), expected)
    # Changing the logits of pad positions changes nothing.
    changed = logits.clone()
    changed[1, 1:] = 100.0
    torch.testing.assert_close(sequence_loss(changed, targets), expected)


def test_label_smoothing_formula():
    torch.manual_seed(1)
    logits = torch.randn(1, 2, 4)
    targets = torch.tensor([[3, 1]])
    eps = 0.1
    log_p = torch.log_softmax(logits, dim=-1)[0]  # (2, 4)
    nll = -(log_p[0, 3] + log_p[1, 1]) / 2
    uniform = -log_p.mean(dim=-1).mean()  # cross-entropy with the uniform distribution
    expected = (1 - eps) * nll + eps * uniform
    torch.testing.assert_close(sequence_loss(logits, targets, label_smoothing=eps), expected)
    # With uniform logits every token has p = 1/4: the loss is log 4, smoothed or not.
    flat = torch.zeros(1, 2, 4)
    assert sequence_loss(flat, targets, label_smoothing=eps).item() == pytest.approx(math.log(4))


# ---------------------------------------------------------------- metrics


def test_token_accuracy_and_exact_match_by_hand():
    targets = torch.tensor([[5, 6, 2, 0], [7, 8, 9, 2]])  # 3 + 4 = 7 real tokens
    predictions = torch.tensor([[5, 6, 2, 0], [7, 8, 4, 2]])
    assert token_accuracy(predictions, targets) == pytest.approx(6 / 7)
    assert exact_match(predictions, targets) == 0.5
    # Whatever follows the target's EOS (its padding) is not scored.
    after_eos = torch.tensor([[5, 6, 2, 9], [7, 8, 9, 2]])
    assert token_accuracy(after_eos, targets) == 1.0 and exact_match(after_eos, targets) == 1.0


def test_metrics_pad_short_and_cut_long_predictions():
    targets = torch.tensor([[5, 6, 7, 2]])
    no_eos = torch.tensor([[5, 6, 7]])  # stopped before EOS: padded, so the EOS slot is wrong
    assert token_accuracy(no_eos, targets) == 0.75 and exact_match(no_eos, targets) == 0.0
    longer = torch.tensor([[5, 6, 7, 2, 0, 0]])
    assert exact_match(longer, targets) == 1.0


def test_exact_match_is_stricter_than_token_accuracy():
    targets = torch.arange(3, 13).repeat(10, 1)  # 10 rows of 10 tokens
    predictions = targets.clone()
    predictions[torch.arange(10), torch.arange(10)] = 0  # one wrong token per row
    assert token_accuracy(predictions, targets) == pytest.approx(0.9)
    assert exact_match(predictions, targets) == 0.0


# ---------------------------------------------------------------- training loop


def tiny_model(seed=0):
    seed_everything(seed)
    return Transformer(8, 8, d_model=32, num_heads=2, num_layers=1, d_ff=64, dropout=0.0)


def test_train_step_uses_shifted_targets_and_learns():
    model = tiny_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    src, tgt = make_dataset("reverse", 8, num_symbols=5, min_len=3, max_len=5, seed=1)
    with torch.no_grad():
        expected = sequence_loss(model(src, tgt[:, :-1], None, None), tgt[:, 1:]).item()
    # No padding-free batch here: the masks matter, so compare with the masked forward.
    from helpers.attention import padding_mask

    with torch.no_grad():
        masked = model(src, tgt[:, :-1], padding_mask(src, 0), padding_mask(tgt[:, :-1], 0))
    first = train_step(model, src, tgt, optimizer)
    assert first == pytest.approx(sequence_loss(masked, tgt[:, 1:]).item(), rel=1e-5)
    assert first != pytest.approx(expected, rel=1e-3)  # padding really is masked
    losses = [train_step(model, src, tgt, optimizer) for _ in range(100)]
    assert losses[-1] < 0.1 * first


def test_train_records_schedule_and_solves_a_tiny_copy_task(capsys):
    model = tiny_model()
    batches = batch_stream("copy", 32, num_symbols=5, min_len=4, seed=0)
    history = train(model, batches, 200, warmup_steps=30, cooldown_steps=50, progress=False)
    assert isinstance(history, TrainingHistory)
    assert len(history.losses) == len(history.learning_rates) == 200
    expected = [noam_lr(s, 32, 30) * cooldown_factor(s, 200, 50) for s in range(1, 201)]
    assert history.learning_rates == pytest.approx(expected)
    assert history.losses[-1] < 0.1 < history.losses[0]
    src, tgt = make_dataset("copy", 200, num_symbols=5, min_len=4, seed=99)
    scores = evaluate(model, src, tgt)
    assert scores["exact_match"] >= 0.95 and scores["token_accuracy"] >= 0.98
    assert capsys.readouterr() == ("", "")  # progress=False: silent


def test_progress_bar_text_has_no_time_or_rate(capsys):
    model = tiny_model()
    train(model, batch_stream("copy", 4, num_symbols=5, min_len=3), 3, progress=True, desc="demo")
    err = capsys.readouterr().err
    assert "demo: 100%" in err and "3/3 steps" in err
    assert "it/s" not in err and "00:0" not in err
    assert "elapsed" not in BAR_FORMAT and "rate" not in BAR_FORMAT


class CopyOracle(nn.Module):
    """Decodes the source perfectly (then EOS); a model that needs no training."""

    def encode(self, src, src_mask=None):
        return src

    def decode(self, tgt, memory, src_mask=None, tgt_mask=None):
        t = tgt.shape[1] - 1  # index of the token to produce
        lengths = (memory != 0).sum(dim=1)
        nxt = torch.where(t < lengths, memory[:, min(t, memory.shape[1] - 1)], 2)
        return nn.functional.one_hot(nxt, 20).float()[:, None, :].expand(-1, tgt.shape[1], -1)


def test_evaluate_scores_a_perfect_model_and_an_untrained_one():
    src, tgt = make_dataset("copy", 50, min_len=2, max_len=6, seed=3)
    assert evaluate(CopyOracle(), src, tgt) == {"token_accuracy": 1.0, "exact_match": 1.0}
    untrained = Transformer(13, 13, d_model=16, num_heads=2, num_layers=1, d_ff=32)
    scores = evaluate(untrained, src, tgt)
    assert scores["exact_match"] == 0.0 and scores["token_accuracy"] < 0.5


# ---------------------------------------------------------------- bad arguments


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="step"):
        noam_lr(0, 64, 100)
    with pytest.raises(ValueError, match="warmup_steps"):
        noam_lr(1, 64, 0)
    with pytest.raises(ValueError, match="factor"):
        noam_lr(1, 64, 10, factor=0.0)
    with pytest.raises(ValueError, match="lr"):
        noam_scheduler(torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1), 64, 10)
    sgd = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0)
    with pytest.raises(ValueError, match="num_steps"):
        noam_scheduler(sgd, 64, 10, cooldown_steps=5)
    with pytest.raises(ValueError, match="cooldown_steps"):
        noam_scheduler(sgd, 64, 10, num_steps=4, cooldown_steps=5)
    with pytest.raises(ValueError, match="step"):
        cooldown_factor(11, 10, 2)
    with pytest.raises(ValueError, match="cooldown_steps"):
        cooldown_factor(1, 10, -1)
    logits, targets = torch.zeros(2, 3, 5), torch.zeros(2, 3, dtype=torch.long)
    with pytest.raises(ValueError, match="label_smoothing"):
        sequence_loss(logits, targets, label_smoothing=1.0)
    with pytest.raises(ValueError, match="targets"):
        sequence_loss(logits, targets[:, :2])
    with pytest.raises(TypeError, match="predictions"):
        token_accuracy(torch.zeros(2, 3), targets)
    with pytest.raises(ValueError, match="batch size"):
        exact_match(targets[:1], targets)
    model = tiny_model()
    with pytest.raises(ValueError, match="num_steps"):
        train(model, batch_stream("copy", 2), 0)
    with pytest.raises(ValueError, match="clip_norm"):
        train(model, batch_stream("copy", 2), 1, clip_norm=-1.0, progress=False)
    with pytest.raises(TypeError, match="model.d_model"):
        train(nn.Linear(2, 2), batch_stream("copy", 2), 1)


# ---------------------------------------------------------------- initialisation


def test_init_attention_like_torch_draws_what_torch_multihead_attention_draws():
    ours = MultiHeadAttention(16, 4)
    out_proj = ours.out_proj.weight.detach().clone()
    theirs = nn.MultiheadAttention(16, 4)
    torch.manual_seed(3)
    theirs._reset_parameters()  # PyTorch's own initialisation: in_proj first, then zero biases
    torch.manual_seed(3)
    assert init_attention_like_torch(ours) is ours
    weights = (ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight)
    for mine, reference in zip(weights, theirs.in_proj_weight.chunk(3), strict=True):
        torch.testing.assert_close(mine, reference, rtol=0, atol=0)
    biases = torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias])
    torch.testing.assert_close(biases, theirs.in_proj_bias, rtol=0, atol=0)
    torch.testing.assert_close(ours.out_proj.bias, theirs.out_proj.bias, rtol=0, atol=0)
    torch.testing.assert_close(ours.out_proj.weight, out_proj, rtol=0, atol=0)  # untouched


def test_init_attention_like_torch_bound_and_scope_in_a_transformer():
    seed_everything(0)
    model = Transformer(13, 13, d_model=64, num_heads=4, num_layers=1, d_ff=256, dropout=0.0)
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    init_attention_like_torch(model)
    bound = math.sqrt(6 / (4 * 64))  # 0.153, against sqrt(6 / 128) = 0.217 for one matrix
    changed = {name for name, p in model.named_parameters() if not torch.equal(p, before[name])}
    attentions = ("self_attn", "cross_attn")
    for name, p in model.named_parameters():
        in_attention = any(a in name for a in attentions)
        if in_attention and name.endswith("bias"):
            assert not p.any(), name  # zero
        elif in_attention and "out_proj" not in name:  # W_Q, W_K, W_V
            assert name in changed and p.abs().max() <= bound
            assert p.abs().max() > 0.95 * bound  # uniform up to the bound: 4,096 draws
        else:
            assert name not in changed, name
    assert len([m for m in model.modules() if isinstance(m, MultiHeadAttention)]) == 3


def test_init_attention_like_torch_rejects_a_model_without_attention():
    with pytest.raises(ValueError, match="MultiHeadAttention"):
        init_attention_like_torch(nn.Linear(4, 4))
    with pytest.raises(TypeError, match="model must be a torch.nn.Module"):
        init_attention_like_torch("model")
