"""Caches queries as well as keys and values (factor 3)."""
KIND = "wrong"
CHECKER = "check_kv_cache_bytes"
LESSON = "15"


def answer(num_layers, num_heads, d_head, num_tokens, bytes_per_value):
    return 3 * num_layers * num_heads * d_head * num_tokens * bytes_per_value
