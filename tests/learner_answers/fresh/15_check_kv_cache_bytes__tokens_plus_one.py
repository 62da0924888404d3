"""Adds one token for the next prediction (num_tokens + 1)."""
KIND = "wrong"
CHECKER = "check_kv_cache_bytes"
LESSON = "15"


def answer(num_layers, num_heads, d_head, num_tokens, bytes_per_value):
    return 2 * num_layers * num_heads * d_head * (num_tokens + 1) * bytes_per_value
