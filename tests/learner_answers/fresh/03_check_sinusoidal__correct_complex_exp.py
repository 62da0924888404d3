"""correct: exp(i*omega*t) as complex numbers, then imaginary (sin) and real (cos) parts interleaved."""
KIND = "correct"
CHECKER = "check_sinusoidal"
LESSON = "03"
import numpy as np

def answer(num_positions, d_model):
    t = np.arange(num_positions, dtype=np.float64)[:, None]
    omega = np.exp(-np.log(10000.0) * np.arange(0, d_model, 2) / d_model)
    z = np.exp(1j * t * omega)
    pe = np.stack([z.imag, z.real], axis=-1)  # (T, d/2, 2)
    return pe.reshape(num_positions, d_model)
