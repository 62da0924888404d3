"""correct: adds up the key and value tensors layer by layer."""
KIND = "correct"
CHECKER = "check_kv_cache_bytes"
LESSON = "15"


def answer(num_layers, num_heads, d_head, num_tokens, bytes_per_value):
    total = 0
    for _ in range(num_layers):
        keys = num_heads * num_tokens * d_head * bytes_per_value
        values = num_heads * num_tokens * d_head * bytes_per_value
        total += keys + values
    return total
