"""Numba kernels of the neural embedders: lookup-table inference of affine
networks (CNN-ED) and the learned CGK' walk (GRU, Phase 3)."""

from numba import njit, prange


@njit(parallel=True, cache=True, nogil=True, fastmath=True)
def lookup_sum(codes, offsets, code_symbols, table, bias, out):
    """``out[i] = bias + sum_t table[symbol of string i's code at t, t]``.

    codes : uint8 or uint32 (total,), the characters' codes
    (:func:`sklearn_ed.io.character_codes`), offsets : int64 (n + 1,),
    code_symbols : int (n_codes,), the symbol of each code, of every code
    beyond it the last (:func:`sklearn_ed.io.symbol_table`), table : float32
    (n_symbols, M, d), bias : float32 (d,), out : float32 (n, d). Positions
    beyond M are ignored (truncation); padding (symbol 0) has a zero row.
    Mapping codes to symbols here, not in a pass of their own, saves writing
    and reading every symbol once more.
    """
    n = offsets.shape[0] - 1
    max_length = table.shape[1]
    d = table.shape[2]
    last = code_symbols.shape[0] - 1
    for i in prange(n):
        start = offsets[i]
        length = min(offsets[i + 1] - start, max_length)
        acc = bias.copy()
        for t in range(length):
            row = table[code_symbols[min(codes[start + t], last)], t]
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
