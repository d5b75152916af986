"""Numba kernels of the CGK random-walk embeddings (no estimator logic).

The random functions ``pi_j(c)`` are packed as bit masks: bit ``c`` of
``masks[j, c >> 6]`` says whether the walk advances after writing symbol
``c`` at output step ``j``. With at most 64 symbols (DNA, proteins, Latin
text) one word per step suffices and its load does not wait for the symbol,
which shortens the walk's dependency chain to one load (about 2x faster).
"""

import numpy as np
from numba import njit


def pack_walk_bits(walk_bits):
    """Pack uint8 bits (n_repetitions, n_steps, n_symbols) into uint64 masks."""
    n_repetitions, n_steps, n_symbols = walk_bits.shape
    n_words = (n_symbols + 63) // 64
    padded = np.zeros((n_repetitions, n_steps, n_words * 64), dtype=np.uint64)
    padded[:, :, :n_symbols] = walk_bits
    weights = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
    return (padded.reshape(n_repetitions, n_steps, n_words, 64) * weights).sum(
        axis=3, dtype=np.uint64
    )


@njit(cache=True, nogil=True, inline="always")
def _advances(masks, j, symbol, one_word):
    word = masks[j, 0] if one_word else masks[j, symbol >> 6]
    return (word >> np.uint64(symbol & 63)) & np.uint64(1)


@njit(cache=True, nogil=True)
def _cgk_walk(symbols, start, length, masks, one_word, out, out_start):
    # Algorithm 1: at output step j, copy the current character and advance
    # with probability 1/2 (bit of step j for that character); pad after the end.
    i = 0
    for j in range(masks.shape[0]):
        if i >= length:
            break
        symbol = symbols[start + i]
        out[out_start + j] = symbol
        i += _advances(masks, j, symbol, one_word)


@njit(cache=True, nogil=True)
def _cgk_prime_walk(symbols, start, length, masks, one_word, out, out_start):
    # Algorithm 2 (CGK'): each character is written once or twice, decided by
    # the bit of the current output position; pad after the end.
    j = 0
    for i in range(length):
        symbol = symbols[start + i]
        out[out_start + j] = symbol
        if _advances(masks, j, symbol, one_word):
            j += 1
        else:
            out[out_start + j + 1] = symbol
            j += 2


@njit(cache=True, nogil=True)
def cgk_embed(symbols, offsets, walk_masks, max_length, truncated, out):
    """Embed every string of a batch, writing symbols into ``out``.

    Parameters
    ----------
    symbols : int32 array, concatenated symbols of the batch.
    offsets : int64 array (n_strings + 1,).
    walk_masks : uint64 array (n_repetitions, out_length, n_words), from
        :func:`pack_walk_bits`.
    max_length : int, strings are cut to this many characters.
    truncated : bool, True for CGK' (Algorithm 2), False for CGK (Algorithm 1).
    out : integer array (n_strings, n_repetitions * out_length), zero-filled
        (zero is the padding symbol).
    """
    n_strings = offsets.shape[0] - 1
    n_repetitions, out_length, n_words = walk_masks.shape
    one_word = n_words == 1
    for s in range(n_strings):
        start = offsets[s]
        length = min(offsets[s + 1] - start, max_length)
        row = out[s]
        for r in range(n_repetitions):
            if truncated:
                _cgk_prime_walk(
                    symbols, start, length, walk_masks[r], one_word, row, r * out_length
                )
            else:
                _cgk_walk(symbols, start, length, walk_masks[r], one_word, row, r * out_length)
