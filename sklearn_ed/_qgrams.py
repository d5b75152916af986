"""Binary q-gram set profiles of strings: a cheap proxy for edit-distance neighbours.

Numba kernels apart from the estimators; used by the neighbourhood sampling
of the neural embedders' training sets.
"""

import numpy as np
from numba import njit

# q-gram profiles hash q-grams into this many buckets when there are more.
_QGRAM_BUCKETS = 1 << 20


def qgram_profiles(strings, alphabet):
    """L2-normalised binary q-gram set profiles (scipy CSR), for neighbour search.

    ``q`` is the smallest integer >= 2 with ``a ** q >= 4 * mean length``
    (``a`` the alphabet size), so that two unrelated strings share few
    q-grams: 6 for DNA reads of length 1,000, 3 for proteins, 2 for words.
    The q-grams are hashed into ``_QGRAM_BUCKETS`` columns when they do not
    fit. Cosine similarity of the profiles ranks strings by the share of
    their q-grams in common (the q-gram lemma: ``k`` edits change at most
    ``k q`` of them).
    """
    import scipy.sparse as sparse

    symbols, offsets = alphabet.encode(strings)
    offsets = np.asarray(offsets, dtype=np.int64)
    n_strings = len(offsets) - 1
    lengths = np.diff(offsets)
    n_letters = max(alphabet.n_symbols - 2, 2)
    mean_length = max(float(lengths.mean()) if n_strings else 1.0, 1.0)
    q = max(2, int(np.ceil(np.log(4 * mean_length) / np.log(n_letters) - 1e-9)))
    exact_codes = q * np.log2(alphabet.n_symbols) <= np.log2(_QGRAM_BUCKETS)
    n_columns = int(alphabet.n_symbols ** q) if exact_codes else _QGRAM_BUCKETS
    windows = np.zeros(n_strings + 1, dtype=np.int64)
    np.cumsum(np.maximum(lengths - q + 1, 0), out=windows[1:])
    indices = np.empty(windows[-1], dtype=np.int32)
    sizes = _qgram_sets(np.asarray(symbols), offsets, windows, q, alphabet.n_symbols,
                        not exact_codes, _QGRAM_BUCKETS.bit_length() - 1, indices)
    indptr = np.zeros(n_strings + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    indices, data = _compact_rows(indices, windows, indptr)
    return sparse.csr_matrix((data, indices, indptr), shape=(n_strings, n_columns))


@njit(cache=True, nogil=True)
def _qgram_sets(symbols, offsets, windows, q, n_symbols, hashed, bits, indices):
    """Sorted distinct q-gram codes of string i at the start of its slot
    ``indices[windows[i]:windows[i + 1]]``; returns their counts."""
    n = offsets.shape[0] - 1
    sizes = np.zeros(n, dtype=np.int64)
    base = np.uint64(n_symbols)
    multiplier = np.uint64(0x9E3779B97F4A7C15)
    shift = np.uint64(64 - bits)
    for i in range(n):
        start, slot = offsets[i], windows[i]
        count = windows[i + 1] - slot
        for w in range(count):
            code = np.uint64(0)
            for j in range(q):
                code = code * base + np.uint64(symbols[start + w + j])
            if hashed:
                code = (code * multiplier) >> shift
            indices[slot + w] = np.int32(code)
        if count == 0:
            continue
        row = np.sort(indices[slot:slot + count])
        size = 1
        indices[slot] = row[0]
        for w in range(1, count):
            if row[w] != row[w - 1]:
                indices[slot + size] = row[w]
                size += 1
        sizes[i] = size
    return sizes


@njit(cache=True, nogil=True)
def _compact_rows(indices, windows, indptr):
    """Move row i's ``indptr[i + 1] - indptr[i]`` leading codes to ``indptr[i]``
    (rows only shrink, so in place from the front); values ``1/sqrt(size)``."""
    n = indptr.shape[0] - 1
    data = np.empty(indptr[n], dtype=np.float32)
    for i in range(n):
        size = indptr[i + 1] - indptr[i]
        value = np.float32(1.0 / np.sqrt(max(size, 1)))
        for w in range(size):
            indices[indptr[i] + w] = indices[windows[i] + w]
            data[indptr[i] + w] = value
    return indices[:indptr[n]].copy(), data
