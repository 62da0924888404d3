"""Counts only the keys, forgetting the factor 2 for the values."""
KIND = "wrong"
CHECKER = "check_kv_cache_bytes"
LESSON = "15"


def answer(num_layers, num_heads, d_head, num_tokens, bytes_per_value):
    return num_layers * num_heads * d_head * num_tokens * bytes_per_value
