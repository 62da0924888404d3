"""correct: math.prod of the shape (2, layers, heads, tokens, d_head) times the bytes per value."""
KIND = "correct"
CHECKER = "check_kv_cache_bytes"
LESSON = "15"
import math


def answer(num_layers, num_heads, d_head, num_tokens, bytes_per_value):
    shape = (2, num_layers, num_heads, num_tokens, d_head)
    return math.prod(shape) * bytes_per_value
