"""Unit tests of helpers.data: hand-made examples, task identities, seeding, bad inputs."""

import pytest
import torch

from helpers.data import (
    BOS_ID,
    EOS_ID,
    NUM_SPECIAL,
    PAD_ID,
    apply_task,
    batch_stream,
    iterate_minibatches,
    make_batch,
    make_dataset,
    to_symbols,
    vocab_size,
)


def test_special_tokens_and_vocab_size():
    assert (PAD_ID, BOS_ID, EOS_ID, NUM_SPECIAL) == (0, 1, 2, 3)
    assert vocab_size(10) == 13


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("copy", [[5, 3, 9, 0], [4, 4, 8, 6]]),
        ("reverse", [[9, 3, 5, 0], [6, 8, 4, 4]]),
        ("sort", [[3, 5, 9, 0], [4, 4, 6, 8]]),
    ],
)
def test_apply_task_by_hand_keeps_padding_at_the_end(task, expected):
    src = torch.tensor([[5, 3, 9, 0], [4, 4, 8, 6]])
    assert apply_task(task, src).tolist() == expected


def test_batch_layout_bos_target_eos_pad():
    src, tgt = make_batch(
        "reverse",
        64,
        num_symbols=10,
        min_len=3,
        max_len=8,
        generator=torch.Generator().manual_seed(1),
    )
    assert src.shape == (64, 8) and tgt.shape == (64, 10)
    assert src.dtype == tgt.dtype == torch.long
    lengths = (src != PAD_ID).sum(dim=1)
    assert lengths.min() >= 3 and lengths.max() <= 8 and len(set(lengths.tolist())) > 1
    for row in range(64):
        n = int(lengths[row])
        assert (src[row, :n] >= NUM_SPECIAL).all() and (src[row, n:] == PAD_ID).all()
        assert tgt[row, 0] == BOS_ID
        assert tgt[row, 1 : n + 1].tolist() == src[row, :n].flip(0).tolist()
        assert tgt[row, n + 1] == EOS_ID
        assert (tgt[row, n + 2 :] == PAD_ID).all()
    assert (src < NUM_SPECIAL + 10).all()


def test_sort_targets_are_sorted_permutations():
    src, tgt = make_batch(
        "sort", 32, num_symbols=5, min_len=6, generator=torch.Generator().manual_seed(2)
    )
    target = tgt[:, 1:-1]
    assert torch.equal(target, src.sort(dim=1).values)  # fixed length: no padding inside


def test_fixed_length_by_default_and_all_symbols_used():
    src, tgt = make_dataset("copy", 500, num_symbols=10, min_len=16)
    assert src.shape == (500, 16) and (src != PAD_ID).all()
    assert torch.equal(tgt[:, 1:-1], src) and (tgt[:, -1] == EOS_ID).all()
    assert set(src.unique().tolist()) == set(range(NUM_SPECIAL, NUM_SPECIAL + 10))


def test_dataset_is_seeded_and_leaves_global_state_alone():
    torch.manual_seed(0)
    expected_next = torch.rand(1)
    torch.manual_seed(0)
    first = make_dataset("reverse", 20, seed=7)
    assert torch.equal(torch.rand(1), expected_next)
    second = make_dataset("reverse", 20, seed=7)
    other = make_dataset("reverse", 20, seed=8)
    assert torch.equal(first[0], second[0]) and torch.equal(first[1], second[1])
    assert not torch.equal(first[0], other[0])


def test_batch_stream_gives_fresh_repeatable_batches():
    stream = batch_stream("copy", 4, min_len=5, seed=3)
    a, b = next(stream), next(stream)
    assert not torch.equal(a[0], b[0])
    again = batch_stream("copy", 4, min_len=5, seed=3)
    assert torch.equal(next(again)[0], a[0]) and torch.equal(next(again)[0], b[0])


def test_iterate_minibatches_covers_every_row_once():
    src, tgt = make_dataset("copy", 10, min_len=2)
    in_order = list(iterate_minibatches(src, tgt, 4))
    assert [len(s) for s, _ in in_order] == [4, 4, 2]
    assert torch.equal(torch.cat([s for s, _ in in_order]), src)
    shuffled = torch.cat([t for _, t in iterate_minibatches(src, tgt, 3, shuffle=True, seed=1)])
    assert not torch.equal(shuffled, tgt)
    assert sorted(map(tuple, shuffled.tolist())) == sorted(map(tuple, tgt.tolist()))


def test_to_symbols_strips_specials_and_stops_at_eos():
    assert to_symbols(torch.tensor([BOS_ID, 5, 3, EOS_ID, 7, PAD_ID])) == [2, 0]
    assert to_symbols([3, 4, PAD_ID]) == [0, 1]


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"task": "shuffle"}, ValueError, "task"),
        ({"batch_size": 0}, ValueError, "batch_size"),
        ({"num_symbols": 0}, ValueError, "num_symbols"),
        ({"min_len": 0}, ValueError, "min_len"),
        ({"min_len": 5, "max_len": 3}, ValueError, "max_len"),
        ({"batch_size": 2.0}, TypeError, "batch_size"),
    ],
)
def test_make_batch_rejects_bad_arguments(kwargs, error, name):
    args = {"task": "copy", "batch_size": 2} | kwargs
    with pytest.raises(error, match=name):
        make_batch(**args)


def test_other_functions_reject_bad_arguments():
    with pytest.raises(ValueError, match="num_symbols"):
        vocab_size(0)
    with pytest.raises(ValueError, match="task"):
        apply_task("rotate", torch.zeros(2, 3, dtype=torch.long))
    with pytest.raises(TypeError, match="src"):
        apply_task("copy", torch.zeros(2, 3))
    with pytest.raises(ValueError, match="seed"):
        make_dataset("copy", 3, seed=-1)
    with pytest.raises(ValueError, match="batch_size"):
        batch_stream("copy", 0)
    src, tgt = make_dataset("copy", 4, min_len=2)
    with pytest.raises(ValueError, match="src and tgt"):
        iterate_minibatches(src, tgt[:3], 2)
    with pytest.raises(ValueError, match="ids"):
        to_symbols(torch.zeros(2, 2, dtype=torch.long))
    with pytest.raises(TypeError, match="ids"):
        to_symbols("1 5 2")
