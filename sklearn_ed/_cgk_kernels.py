"""Numba kernels of the CGK random-walk embeddings (no estimator logic)."""

from numba import njit


@njit(cache=True, nogil=True)
def _cgk_walk(symbols, start, length, bits, out, out_start):
    # Algorithm 1: at output step j, copy the current character and advance
    # with probability 1/2 (bit of step j for that character); pad after the end.
    i = 0
    for j in range(bits.shape[0]):
        if i >= length:
            break
        symbol = symbols[start + i]
        out[out_start + j] = symbol
        i += bits[j, symbol]


@njit(cache=True, nogil=True)
def _cgk_prime_walk(symbols, start, length, bits, out, out_start):
    # Algorithm 2 (CGK'): each character is written once or twice, decided by
    # the bit of the current output position; pad after the end.
    j = 0
    for i in range(length):
        symbol = symbols[start + i]
        out[out_start + j] = symbol
        if bits[j, symbol]:
            j += 1
        else:
            out[out_start + j + 1] = symbol
            j += 2


@njit(cache=True, nogil=True)
def cgk_embed(symbols, offsets, walk_bits, max_length, truncated, out):
    """Embed every string of a batch, writing symbols into ``out``.

    Parameters
    ----------
    symbols : int32 array, concatenated symbols of the batch.
    offsets : int64 array (n_strings + 1,).
    walk_bits : uint8 array (n_repetitions, out_length, n_symbols).
    max_length : int, strings are cut to this many characters.
    truncated : bool, True for CGK' (Algorithm 2), False for CGK (Algorithm 1).
    out : integer array (n_strings, n_repetitions * out_length), zero-filled
        (zero is the padding symbol).
    """
    n_strings = offsets.shape[0] - 1
    n_repetitions, out_length, _ = walk_bits.shape
    for s in range(n_strings):
        start = offsets[s]
        length = min(offsets[s + 1] - start, max_length)
        row = out[s]
        for r in range(n_repetitions):
            if truncated:
                _cgk_prime_walk(symbols, start, length, walk_bits[r], row, r * out_length)
            else:
                _cgk_walk(symbols, start, length, walk_bits[r], row, r * out_length)
