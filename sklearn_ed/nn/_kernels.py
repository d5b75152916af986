"""Numba kernels of the neural embedders: lookup-table inference of affine
networks (CNN-ED) and the learned CGK' walk (GRU, Phase 3)."""

from numba import njit, prange


@njit(parallel=True, cache=True, nogil=True, fastmath=True)
def lookup_sum(symbols, offsets, table, bias, out):
    """``out[i] = bias + sum_t table[symbols of string i at t, t]``.

    symbols : int32 (total,), offsets : int64 (n + 1,), table : float32
    (n_symbols, M, d), bias : float32 (d,), out : float32 (n, d). Positions
    beyond M are ignored (truncation); padding (symbol 0) has a zero row.
    """
    n = offsets.shape[0] - 1
    max_length = table.shape[1]
    d = table.shape[2]
    for i in prange(n):
        start = offsets[i]
        length = min(offsets[i + 1] - start, max_length)
        acc = bias.copy()
        for t in range(length):
            row = table[symbols[start + t], t]
            for j in range(d):
                acc[j] += row[j]
        for j in range(d):
            out[i, j] = acc[j]
    return out


@njit(cache=True, nogil=True)
def learned_cgk_prime_walk(symbols, table, threshold, positions, duplicated):
    """Algorithm 3 of Zhang et al. (2020) on padded symbols (N, M): where each step goes.

    ``positions[n, i]`` is the output position of input step ``i`` and
    ``duplicated[n, i]`` whether it is also written at ``positions + 1``
    (``table[symbol, position] >= threshold``; padding, symbol 0, never is).
    """
    n, m = symbols.shape
    for row in range(n):
        j = 0
        for i in range(m):
            symbol = symbols[row, i]
            positions[row, i] = j
            twice = symbol != 0 and table[symbol, j] >= threshold
            duplicated[row, i] = twice
            j += 2 if twice else 1
