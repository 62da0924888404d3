"""Forgets the number of heads (treats d_head as the whole width)."""
KIND = "wrong"
CHECKER = "check_kv_cache_bytes"
LESSON = "15"


def answer(num_layers, num_heads, d_head, num_tokens, bytes_per_value):
    return 2 * num_layers * d_head * num_tokens * bytes_per_value
