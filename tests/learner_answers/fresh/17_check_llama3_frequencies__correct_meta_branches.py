"""correct: Meta's apply_scaling, a loop with three branches on the wavelength, in plain Python floats."""
KIND = "correct"
CHECKER = "check_llama3_frequencies"
LESSON = "17"
import math
import torch


def answer(d, factor, base, original_max_len, low_freq_factor, high_freq_factor):
    low_freq_wavelen = original_max_len / low_freq_factor
    high_freq_wavelen = original_max_len / high_freq_factor
    new = []
    for k in range(d // 2):
        freq = 1.0 / (base ** (2 * k / d))
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            new.append(freq)
        elif wavelen > low_freq_wavelen:
            new.append(freq / factor)
        else:
            if high_freq_factor == low_freq_factor:
                new.append(freq / factor)
                continue
            smooth = (original_max_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            new.append((1 - smooth) * freq / factor + smooth * freq)
    return torch.tensor(new, dtype=torch.float64)
