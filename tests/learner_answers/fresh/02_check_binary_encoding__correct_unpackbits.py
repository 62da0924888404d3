"""correct: np.unpackbits on little-endian uint64 bytes, keeping the first num_bits bits."""
KIND = "correct"
CHECKER = "check_binary_encoding"
LESSON = "02"
import numpy as np

def answer(positions, num_bits):
    p = np.asarray(positions, dtype=np.int64).astype("<u8") % np.uint64(2**num_bits)
    bits = np.unpackbits(p.view(np.uint8).reshape(len(p), 8), axis=1, bitorder="little")
    return bits[:, :num_bits].astype(np.float64)
