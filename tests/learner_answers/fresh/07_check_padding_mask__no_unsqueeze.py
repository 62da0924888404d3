"""Returns the (batch, seq_len) comparison without adding the two broadcast axes."""
KIND = "wrong"
CHECKER = "check_padding_mask"
LESSON = "07"
import torch

def answer(tokens, pad_id):
    return tokens != pad_id
