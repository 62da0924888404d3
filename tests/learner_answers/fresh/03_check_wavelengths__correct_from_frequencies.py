"""correct: 2 pi divided by the lesson's frequencies helper."""
KIND = "correct"
CHECKER = "check_wavelengths"
LESSON = "03"
import numpy as np
from helpers.encodings import frequencies

def answer(d_model, base):
    return 2 * np.pi / frequencies(d_model, base)
