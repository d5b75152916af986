"""q-gram counts of strings: the kernels of QGramEmbedder and of the
neighborhood sampling of the neural embedders' training sets.

Numba kernels apart from the estimators.
"""

import numpy as np
from numba import njit

from ._saved_classes import saved_class


def qgram_profiles(strings, alphabet):
    """L2-normalised binary q-gram set profiles (scipy CSR), for neighbor search.

    ``q`` is the smallest integer >= 2 with ``a ** q >= 4 * mean length``
    (``a`` the alphabet size), so that two unrelated strings share few
    q-grams: 6 for DNA reads of length 1,000, 3 for proteins, 2 for words.
    Cosine similarity of the profiles ranks strings by the share of their
    q-grams in common (the q-gram lemma: ``k`` edits change at most ``k q``
    of them). The q-grams are counted by :func:`qgram_counts`, the kernel of
    :class:`~sklearn_ed.QGramEmbedder`: these are its profiles with
    ``weighting="binary"``, ``padding=False`` and this ``q``, the columns
    numbered in order of first sight.
    """
    import scipy.sparse as sparse

    symbols, offsets = alphabet.encode(strings)
    lengths = np.diff(np.asarray(offsets, dtype=np.int64))
    n_letters = max(alphabet.n_symbols - 2, 2)
    mean_length = max(float(lengths.mean()) if len(lengths) else 1.0, 1.0)
    q = max(2, int(np.ceil(np.log(4 * mean_length) / np.log(n_letters) - 1e-9)))
    indptr, codes, _ = qgram_counts(symbols, offsets, q, qgram_code_base(alphabet.n_symbols, q))
    table = CodeTable()
    table.add(codes)
    sizes = np.diff(indptr)
    values = np.repeat((1.0 / np.sqrt(np.maximum(sizes, 1))).astype(np.float32), sizes)
    return sparse.csr_matrix(
        (values, table.columns(codes).astype(np.int32), indptr),
        shape=(len(sizes), max(table.n_codes, 1)),
    )


# Odd multiplier of the q-gram hash when exact codes would not fit 64 bits.
HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_TAG_LENGTH_MIX = np.uint64(0xC2B2AE3D27D4EB4F)


def tagged_hashes(hashes, lengths, tags):
    """64-bit hashes of pieces of strings mixed with the length of the whole
    string and a small tag (a segment's number, a side), arrays broadcast: the
    keys under which the partition join and the halves' deletions meet. Two
    keys agree for equal hashes, lengths and tags, and by rare accident
    otherwise (which only adds a candidate to verify)."""
    with np.errstate(over="ignore"):
        return (
            np.asarray(hashes, dtype=np.uint64) * HASH_MULTIPLIER
            + np.asarray(lengths, dtype=np.uint64) * _TAG_LENGTH_MIX
            + np.asarray(tags, dtype=np.uint64)
        )


def qgram_code_base(n_symbols, q):
    """Base of the q-gram codes: ``n_symbols`` when ``n_symbols ** q`` fits 64 bits.

    Then a code is the q-gram read as a number in base ``n_symbols`` (exact,
    decodable); otherwise a polynomial hash modulo 2**64 with an odd
    multiplier (distinct q-grams collide with probability about 2**-64).
    """
    if q * np.log2(max(n_symbols, 2)) < 63:
        return np.uint64(n_symbols)
    return HASH_MULTIPLIER


def qgram_counts(symbols, offsets, q, base, start_marker=-1, end_marker=-1, n_markers=1):
    """Sorted distinct q-gram codes of each string and how often each occurs.

    Parameters
    ----------
    symbols, offsets : ndarray
        Encoded strings (:meth:`sklearn_ed.utils.Alphabet.encode`).
    q : int
        q-gram length.
    base : numpy.uint64
        From :func:`qgram_code_base`.
    start_marker, end_marker : int, default=-1
        Symbols that pad every string at its start and end (``-1``: none).
    n_markers : int, default=1
        How many of each marker pad a string.

    Returns
    -------
    indptr : ndarray of int64, shape (n_strings + 1,)
    codes : ndarray of uint64
        Row ``i``'s codes, ascending, are ``codes[indptr[i]:indptr[i + 1]]``.
    counts : ndarray of int32
        Occurrences of each code in its string.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    n_start = n_markers if start_marker >= 0 else 0
    n_end = n_markers if end_marker >= 0 else 0
    padding = n_start + n_end
    windows = np.zeros(len(offsets), dtype=np.int64)
    np.cumsum(np.maximum(np.diff(offsets) + padding - q + 1, 0), out=windows[1:])
    codes = np.empty(windows[-1], dtype=np.uint64)
    counts = np.empty(windows[-1], dtype=np.int32)
    sizes = _count_qgrams(
        np.asarray(symbols, dtype=np.int32),
        offsets,
        windows,
        q,
        np.uint64(base),
        start_marker,
        end_marker,
        n_start,
        n_end,
        codes,
        counts,
    )
    indptr = np.zeros(len(offsets), dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    return indptr, *_compact(codes, counts, windows, indptr)


def qgram_sample(indptr, codes, counts, density):
    """The rows of :func:`qgram_counts` restricted to a fixed sample of q-grams.

    A q-gram is kept when a 64-bit mix of its code falls below ``density``
    times ``2 ** 64`` (FracMinHash; Irber et al., 2022): the choice depends
    on the q-gram alone, so two strings keep the same share of the q-grams
    they have in common, and the count of shared kept q-grams estimates
    ``density`` times the count of shared q-grams.

    Returns
    -------
    indptr, codes, counts : ndarray
        As :func:`qgram_counts` returns them, of the kept q-grams.
    """
    if density >= 1.0:
        return indptr, codes, counts
    keep = _mixed(codes) < np.uint64(min(int(density * 2.0**64), 2**64 - 1))
    kept_before = np.zeros(len(codes) + 1, dtype=np.int64)
    np.cumsum(keep, out=kept_before[1:])
    return kept_before[indptr], codes[keep], counts[keep]


def _mixed(codes):
    """The 64-bit finalizer of MurmurHash3: nearby codes get unrelated values."""
    mixed = codes.astype(np.uint64, copy=True)
    with np.errstate(over="ignore"):
        for multiplier in (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53):
            mixed ^= mixed >> np.uint64(33)
            mixed *= np.uint64(multiplier)
        mixed ^= mixed >> np.uint64(33)
    return mixed


@njit(cache=True, nogil=True)
def _compact(codes, counts, windows, indptr):
    """Row i's leading ``indptr[i + 1] - indptr[i]`` entries of its window slot, packed."""
    packed_codes = np.empty(indptr[-1], dtype=np.uint64)
    packed_counts = np.empty(indptr[-1], dtype=np.int32)
    for i in range(indptr.shape[0] - 1):
        for j in range(indptr[i + 1] - indptr[i]):
            packed_codes[indptr[i] + j] = codes[windows[i] + j]
            packed_counts[indptr[i] + j] = counts[windows[i] + j]
    return packed_codes, packed_counts


@njit(cache=True, nogil=True)
def drop_unseen(indptr, columns, counts):
    """CSR parts without the entries whose column is ``-1`` (q-grams unseen at fit)."""
    kept = np.zeros(indptr.shape[0], dtype=np.int64)
    kept_columns = np.empty(columns.shape[0], dtype=np.int32)
    kept_counts = np.empty(columns.shape[0], dtype=np.float32)
    n_kept = 0
    for i in range(indptr.shape[0] - 1):
        for j in range(indptr[i], indptr[i + 1]):
            if columns[j] >= 0:
                kept_columns[n_kept] = columns[j]
                kept_counts[n_kept] = counts[j]
                n_kept += 1
        kept[i + 1] = n_kept
    return kept, kept_columns[:n_kept], kept_counts[:n_kept]


@njit(cache=True, nogil=True)
def _count_qgrams(
    symbols, offsets, windows, q, base, start_marker, end_marker, n_start, n_end, codes, counts
):
    """Fill string i's slot ``[windows[i], windows[i + 1])`` with its distinct
    codes (ascending, at the front) and their counts; return the numbers of
    distinct codes."""
    n = offsets.shape[0] - 1
    sizes = np.zeros(n, dtype=np.int64)
    head = np.uint64(1)  # base ** (q - 1): weight of the symbol leaving the window
    for _ in range(q - 1):
        head *= base
    for i in range(n):
        slot, n_windows = windows[i], windows[i + 1] - windows[i]
        if n_windows == 0:
            continue
        start, length = offsets[i], offsets[i + 1] - offsets[i]
        padded = length + n_start + n_end
        code = np.uint64(0)
        for position in range(padded):
            if position >= q:
                leaving = _symbol_at(
                    symbols, start, length, n_start, start_marker, end_marker, position - q
                )
                code -= head * np.uint64(leaving)
            symbol = _symbol_at(symbols, start, length, n_start, start_marker, end_marker, position)
            code = code * base + np.uint64(symbol)
            if position >= q - 1:
                codes[slot + position - q + 1] = code
        row = np.sort(codes[slot : slot + n_windows])
        size = 0
        for w in range(n_windows):
            if w > 0 and row[w] == row[w - 1]:
                counts[slot + size - 1] += 1
            else:
                codes[slot + size] = row[w]
                counts[slot + size] = 1
                size += 1
        sizes[i] = size
    return sizes


@njit(cache=True, nogil=True)
def _symbol_at(symbols, start, length, n_start, start_marker, end_marker, position):
    """Symbol at ``position`` of the string padded by its markers."""
    if position < n_start:
        return start_marker
    if position - n_start < length:
        return symbols[start + position - n_start]
    return end_marker


# An open-addressing hash table from q-gram codes to columns: numpy's unique
# and searchsorted spent 20 s of a 25 s fit on 50M codes of 50,000 reads.
_EMPTY = -1


@njit(cache=True, nogil=True)
def _find(keys, columns, code):
    """Slot of ``code`` in a power-of-two table: its own, or the empty one to fill."""
    mask = np.uint64(keys.shape[0] - 1)
    slot = ((code * HASH_MULTIPLIER) >> np.uint64(20)) & mask
    while columns[slot] != _EMPTY and keys[slot] != code:
        slot = (slot + np.uint64(1)) & mask
    return slot


@njit(cache=True, nogil=True)
def _insert(keys, columns, codes, n_distinct):
    """Give unseen codes the next columns; stop early when the table is half full."""
    for i in range(codes.shape[0]):
        slot = _find(keys, columns, codes[i])
        if columns[slot] == _EMPTY:
            if 2 * (n_distinct + 1) > keys.shape[0]:
                return i, n_distinct
            keys[slot] = codes[i]
            columns[slot] = n_distinct
            n_distinct += 1
    return codes.shape[0], n_distinct


@njit(cache=True, nogil=True)
def _lookup(keys, columns, codes):
    found = np.empty(codes.shape[0], dtype=np.int64)
    for i in range(codes.shape[0]):
        found[i] = columns[_find(keys, columns, codes[i])]
    return found


@saved_class()
class CodeTable:
    """Columns of distinct q-gram codes, numbered in order of first sight."""

    def __init__(self, capacity=1 << 16):
        self._keys = np.zeros(capacity, dtype=np.uint64)
        self._columns = np.full(capacity, _EMPTY, dtype=np.int64)
        self.n_codes = 0

    @classmethod
    def from_codes(cls, codes):
        """Table numbering ``codes`` (distinct) ``0, 1, ...`` in their order."""
        table = cls(1 << max(16, int(2 * len(codes)).bit_length()))
        table.add(np.asarray(codes, dtype=np.uint64))
        return table

    def add(self, codes):
        """Number the codes not seen yet (the table doubles as it fills)."""
        done = 0
        while done < len(codes):
            stop, self.n_codes = _insert(self._keys, self._columns, codes[done:], self.n_codes)
            done += stop
            if done < len(codes):
                self._grow()

    def _grow(self):
        occupied = self._columns != _EMPTY
        keys = self._keys[occupied][np.argsort(self._columns[occupied])]
        self._keys = np.zeros(2 * len(self._keys), dtype=np.uint64)
        self._columns = np.full(len(self._keys), _EMPTY, dtype=np.int64)
        self.n_codes = 0
        self.add(keys)

    def codes(self):
        """The codes in column order."""
        occupied = self._columns != _EMPTY
        return self._keys[occupied][np.argsort(self._columns[occupied])]

    def columns(self, codes):
        """Column of each code, ``-1`` for codes not in the table."""
        return _lookup(self._keys, self._columns, np.asarray(codes, dtype=np.uint64))
