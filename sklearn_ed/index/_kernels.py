"""Numba kernels of the index layer (no index logic)."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def pack_one_hot(symbols, n_symbols, out):
    """Write symbol ``s`` at position ``p`` as bit ``p * n_symbols + s`` of ``out``.

    Two codes that differ at a position differ in exactly two bits there, so
    bit Hamming distance is twice symbol Hamming distance.
    """
    n_rows, n_positions = symbols.shape
    for row in prange(n_rows):
        for byte in range(out.shape[1]):
            out[row, byte] = 0
        for position in range(n_positions):
            bit = position * n_symbols + symbols[row, position]
            out[row, bit >> 3] |= np.uint8(1) << np.uint8(bit & 7)
