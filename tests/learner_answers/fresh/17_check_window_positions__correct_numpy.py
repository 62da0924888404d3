"""correct: NumPy with np.r_ for the kept indices and np.column_stack, returned as a NumPy int array."""
KIND = "correct"
CHECKER = "check_window_positions"
LESSON = "17"
import numpy as np


def answer(seen, sinks, window):
    if seen - sinks > window:
        text = np.r_[0:sinks, seen - window : seen]
    else:
        text = np.arange(seen)
    return np.column_stack([text, np.arange(text.size)]).astype(np.int64)
