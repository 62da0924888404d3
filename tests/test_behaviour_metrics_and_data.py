"""Small behaviours of the toy data and the metrics that a wrong edit would change silently."""

from __future__ import annotations

import pytest
import torch

from helpers import data, training


def test_apply_task_names_the_first_row_with_padding_inside():
    src = torch.tensor([[3, 4, 0], [3, 0, 4], [0, 3, 4]])  # rows 1 and 2 pad in the middle
    with pytest.raises(ValueError, match=r"got row 1: \[3, 0, 4\]"):
        data.apply_task("reverse", src)


def test_apply_task_accepts_padding_at_the_end_only():
    src = torch.tensor([[3, 4, 0], [5, 0, 0], [3, 4, 5]])
    reversed_ = data.apply_task("reverse", src)
    assert reversed_.tolist() == [[4, 3, 0], [5, 0, 0], [5, 4, 3]]


def test_a_stream_with_a_length_range_draws_lengths_across_it():
    src, _ = next(data.batch_stream("copy", 256, num_symbols=5, min_len=2, max_len=6, seed=0))
    lengths = (src != data.PAD_ID).sum(dim=1)
    assert set(lengths.tolist()) == {2, 3, 4, 5, 6}


def test_short_predictions_are_padded_with_pad_id_not_zero():
    # pad_id 9; the target's last token is 0 (a real token here). The missing prediction is
    # padding, so that token is not predicted: 1 of 2 counted tokens right.
    predictions, targets = torch.tensor([[5]]), torch.tensor([[5, 0]])
    assert training.token_accuracy(predictions, targets, pad_id=9) == 0.5
    assert training.exact_match(predictions, targets, pad_id=9) == 0.0


def test_token_accuracy_of_a_single_counted_token():
    assert training.token_accuracy(torch.tensor([[4, 7]]), torch.tensor([[4, 0]])) == 1.0


def test_noam_scheduler_checks_its_factor_when_built():
    model = torch.nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    with pytest.raises(ValueError, match="factor"):
        training.noam_scheduler(optimizer, 8, 4, factor=-1.0)
