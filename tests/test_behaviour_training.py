"""Behaviour of the training loop that a wrong edit would change silently: gradient clipping,
the optimiser the paper prescribes, and a minibatch order that depends on its seed alone.

Each test compares with a loop written out by hand here (PyTorch's own Adam, clip and
cross-entropy), so a dropped clip, an inverted clip condition or Adam's default betas all fail.
"""

import copy

import pytest
import torch
from torch import nn

from helpers import seed_everything
from helpers.data import iterate_minibatches, make_dataset
from helpers.training import noam_lr, train, train_step
from helpers.transformer import Transformer

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def tiny_model() -> Transformer:
    seed_everything(0)
    return Transformer(8, 8, d_model=16, num_heads=2, num_layers=1, d_ff=32, dropout=0.0)


def unpadded_batches(count: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Rows of one length (no PAD anywhere), so no mask is needed by the hand-written loop."""
    src, tgt = make_dataset("reverse", 4 * count, num_symbols=5, min_len=5, seed=1)
    return list(zip(src.split(4), tgt.split(4), strict=True))


def hand_loss(model: nn.Module, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
    logits = model(src, tgt[:, :-1])  # no PAD: no masks
    return nn.functional.cross_entropy(logits.flatten(0, 1), tgt[:, 1:].flatten())


def flat_parameters(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().flatten() for p in model.parameters()])


# ---------------------------------------------------------------------------------- clipping


def test_a_tiny_clip_norm_bounds_the_step_of_sgd():
    model = tiny_model()
    before = flat_parameters(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    src, tgt = unpadded_batches(1)[0]
    train_step(model, src, tgt, optimizer, clip_norm=1e-3)
    change = (flat_parameters(model) - before).norm().item()
    assert 0 < change <= 1e-3 * (1 + 1e-5)  # SGD with lr 1 moves by the clipped gradient


def test_train_step_equals_a_hand_written_clipped_step():
    model = tiny_model()
    reference = copy.deepcopy(model)
    src, tgt = unpadded_batches(1)[0]
    train_step(model, src, tgt, torch.optim.SGD(model.parameters(), lr=0.5), clip_norm=0.01)

    optimizer = torch.optim.SGD(reference.parameters(), lr=0.5)
    hand_loss(reference, src, tgt).backward()
    nn.utils.clip_grad_norm_(reference.parameters(), 0.01)
    optimizer.step()
    torch.testing.assert_close(flat_parameters(model), flat_parameters(reference))


def test_train_step_without_clip_norm_takes_the_full_gradient():
    model = tiny_model()
    reference = copy.deepcopy(model)
    src, tgt = unpadded_batches(1)[0]
    train_step(model, src, tgt, torch.optim.SGD(model.parameters(), lr=0.5), clip_norm=None)

    optimizer = torch.optim.SGD(reference.parameters(), lr=0.5)
    hand_loss(reference, src, tgt).backward()
    optimizer.step()
    torch.testing.assert_close(flat_parameters(model), flat_parameters(reference))


# ------------------------------------------------------------------------- the whole loop


def hand_train(model, batches, warmup_steps, clip_norm, betas=(0.9, 0.98)) -> list[float]:
    """The paper's recipe written out: Adam(betas, eps=1e-9), noam schedule, global clip."""
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=betas, eps=1e-9)
    losses = []
    for step, (src, tgt) in enumerate(batches, start=1):
        for group in optimizer.param_groups:
            group["lr"] = noam_lr(step, model.d_model, warmup_steps)
        optimizer.zero_grad()
        loss = hand_loss(model, src, tgt)
        loss.backward()
        if clip_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        optimizer.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("clip_norm", [1e-3, None])
def test_train_equals_adam_with_the_papers_betas_schedule_and_clip(clip_norm):
    batches = unpadded_batches(4)
    model = tiny_model()
    reference = copy.deepcopy(model)
    history = train(model, batches, 4, warmup_steps=2, clip_norm=clip_norm, progress=False)
    losses = hand_train(reference, batches, 2, clip_norm)
    assert history.losses == pytest.approx(losses, rel=1e-5)
    torch.testing.assert_close(flat_parameters(model), flat_parameters(reference))


def test_the_hand_written_loop_tells_clipping_and_betas_apart():
    """The comparison above can fail: clipping and Adam's betas both change the parameters."""
    batches = unpadded_batches(4)
    results = {}
    for name, clip_norm, betas in [
        ("paper", 1e-3, (0.9, 0.98)),
        ("no clip", None, (0.9, 0.98)),
        ("default betas", 1e-3, (0.9, 0.999)),
    ]:
        model = tiny_model()
        hand_train(model, batches, 2, clip_norm, betas)
        results[name] = flat_parameters(model)
    for other in ("no clip", "default betas"):
        assert (results["paper"] - results[other]).abs().max() > 1e-4, other


# ------------------------------------------------------------------------------ minibatches


def shuffled_rows(seed: int) -> list[int]:
    src = torch.arange(20)[:, None]  # row i holds the number i
    return [int(r) for s, _ in iterate_minibatches(src, src, 6, True, seed) for r in s[:, 0]]


def test_shuffled_order_depends_on_the_seed_only():
    torch.manual_seed(0)
    first = shuffled_rows(seed=7)
    torch.manual_seed(123)
    torch.rand(5)  # move the global generator on
    assert shuffled_rows(seed=7) == first
    assert sorted(first) == list(range(20)) and first != list(range(20))


def test_different_seeds_give_different_orders():
    orders = {tuple(shuffled_rows(seed)) for seed in range(4)}
    assert len(orders) == 4


def test_shuffling_leaves_the_global_generator_alone():
    torch.manual_seed(3)
    expected = torch.rand(3)
    torch.manual_seed(3)
    shuffled_rows(seed=0)
    torch.testing.assert_close(torch.rand(3), expected)


def test_the_default_seed_is_zero():
    src = torch.arange(20)[:, None]
    default = [s for s, _ in iterate_minibatches(src, src, 6, shuffle=True)]
    torch.testing.assert_close(default, [s for s, _ in iterate_minibatches(src, src, 6, True, 0)])


@pytest.mark.parametrize(
    ("src", "tgt", "seed", "error"),
    [
        (torch.zeros(4, 3, dtype=torch.long), torch.zeros(4, dtype=torch.long), 0, ValueError),
        (torch.zeros(4, dtype=torch.long), torch.zeros(4, 3, dtype=torch.long), 0, ValueError),
        (torch.zeros(4, 3, dtype=torch.long), torch.zeros(4, 3), 0, TypeError),
        (torch.zeros(4, 3), torch.zeros(4, 3, dtype=torch.long), 0, TypeError),
        (torch.zeros(4, 3, dtype=torch.long), torch.zeros(4, 3, dtype=torch.long), -1, ValueError),
    ],
    ids=["tgt-1d", "src-1d", "tgt-float", "src-float", "negative-seed"],
)
def test_minibatches_reject_what_they_cannot_batch(src, tgt, seed, error):
    with pytest.raises(error):
        iterate_minibatches(src, tgt, 2, True, seed)


def test_minibatches_name_both_row_counts():
    src, tgt = torch.zeros(4, 3, dtype=torch.long), torch.zeros(3, 5, dtype=torch.long)
    with pytest.raises(ValueError, match="got 4 and 3"):
        iterate_minibatches(src, tgt, 2)
