"""Every item within edit distance 1 or 2 of a query, found without a scan.

Symmetric deletions (FastSS: T. Bocek, E. Hunt, B. Stiller, "Fast
similarity search in large dictionaries", University of Zurich, 2007; the
idea of W. Garbe's SymSpell): if ``d(x, y) <= t``, deleting at most ``t`` characters from each
of ``x`` and ``y`` reaches a common string (a substitution is a deletion on
both sides, an insertion one on the other). So an index of every string
obtained from each item by at most ``depth`` deletions, looked up with the
query's own deletions, returns every item within ``t <= depth`` of it: a
lossless candidate set for short strings, found in time independent of the
base size.

Deletion variants are kept as 64-bit polynomial hashes (their length mixed
in), computed for all deletion positions at once from prefix hashes. Two
variants sharing a hash could only add an item to verify, never lose one.
"""

import numpy as np
from numba import njit

from ...utils import (
    available_memory,
    hash_order,
    run_starts,
    saved_array,
    saved_class,
    saved_int,
    to_code_points,
)

_BASE = np.uint64(0x100000001B3)
_LENGTH_MIX = np.uint64(0x9E3779B97F4A7C15)
# Index entries allowed per item before the index is not worth its memory
# (a string of length L has 1 + L + L(L-1)/2 variants of depth 2: 37 at
# length 8, 211 at length 20).
_MAX_ENTRIES_PER_ITEM = 256
# Bytes a build allocates per entry at its peak: the hashes, rows and
# deletions of every variant (13), their argsort (8) and one sorted column
# (measured with tracemalloc on words: 29, of which 13 stay).
_BUILD_BYTES_PER_ENTRY = 29
# Entries allowed in all: None sizes the budget from the memory available
# when the index is built (a build taking at most _MEMORY_SHARE of it, and
# never fewer than _MIN_BUDGET entries, ~870 MB kept); a number fixes it.
_MAX_ENTRIES = None
_MEMORY_SHARE = 1 / 3
_MIN_BUDGET = 2**26


def deletion_entries(lengths, depth):
    """Number of deletion variants of strings of ``lengths`` with up to ``depth`` deletions."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = np.ones_like(lengths)
    if depth >= 1:
        total += lengths
    if depth >= 2:
        total += lengths * (lengths - 1) // 2
    return total


def deletion_index(strings, depth=2):
    """The :class:`DeletionIndex` of ``strings``, or ``None`` when it would not fit its budget.

    Short strings only: at most 256 variants per string on average (about
    22 characters), and in all as many as a build taking a third of the
    memory available allows (at least 2**26, about 870 MB kept; 29 bytes per
    variant while building, 13 kept). Levenshtein's and Indel's
    ``near_lookup``.

    Parameters
    ----------
    strings : sequence of str
    depth : {1, 2}, default=2

    Returns
    -------
    index : DeletionIndex or None
    """
    if within_budget(deletion_entries(list(map(len, strings)), depth)):
        return DeletionIndex(strings, depth)
    return None


def deletion_index_bytes(lengths, depth=2):
    """Bytes that building :func:`deletion_index` over strings of ``lengths``
    allocates at its peak (0 when it would not be built)."""
    entries = deletion_entries(lengths, depth)
    return int(entries.sum()) * _BUILD_BYTES_PER_ENTRY if within_budget(entries) else 0


def within_budget(entries):
    if not len(entries):
        return False
    return entries.mean() <= _MAX_ENTRIES_PER_ITEM and entries.sum() <= _entries_budget()


def _entries_budget():
    if _MAX_ENTRIES is not None:
        return _MAX_ENTRIES
    available = available_memory()
    if available is None:
        return _MIN_BUDGET
    return max(_MIN_BUDGET, int(available * _MEMORY_SHARE) // _BUILD_BYTES_PER_ENTRY)


@saved_class(formerly=("sklearn_ed.distances._deletions.DeletionIndex",))
class DeletionIndex:
    """Items of a string base within edit distance ``depth`` of queries, exactly.

    Parameters
    ----------
    strings : sequence of str
        The base.
    depth : {1, 2}, default=2
        Largest distance the index answers for.

    Examples
    --------
    >>> from sklearn_ed.distances import DeletionIndex
    >>> index = DeletionIndex(["kitten", "sitting", "mitten", "kit"])
    >>> [(items.tolist(), deletions.tolist())
    ...  for items, deletions in index.within(["kitten", "mittens"], [1, 2])]
    [([0, 2], [0, 1]), ([0, 2], [2, 1])]
    """

    def __init__(self, strings, depth=2):
        self.depth = depth
        self.n_items = len(strings)
        self._longest = max(map(len, strings), default=0)
        hashes, items, deleted = deletion_variants(strings, depth)
        # Each column is replaced by its sorted copy in turn, so that the
        # build holds at most one column twice (its peak bounds the budget).
        sorted_hashes, order = hash_order(hashes)
        del hashes
        self._hashes = SortedHashes(sorted_hashes)
        self._items = items[order]
        del items
        self._deleted = deleted[order]

    def __setstate__(self, state):
        # Format 1 saved the arrays themselves (the hashes as a plain array);
        # the kernels index with them, so each is checked, and the hashes'
        # bucket table is rebuilt, never read.
        hashes = state.get("_hashes")
        hashes = hashes.hashes if isinstance(hashes, SortedHashes) else hashes
        hashes = saved_array(hashes, "_hashes", "u", shape=(None,), order="nondecreasing")
        depth = saved_int(state.get("depth"), "depth", low=1, high=3)
        n_items = saved_int(state.get("n_items"), "n_items", low=0)
        shape = (len(hashes),)
        items = saved_array(state.get("_items"), "_items", "iu", shape=shape, low=0, high=n_items)
        deleted = state.get("_deleted")
        vars(self).update(
            depth=depth,
            n_items=n_items,
            _longest=saved_int(state.get("_longest"), "_longest", low=0),
            _hashes=SortedHashes(hashes.astype(np.uint64)),
            _items=items,
            _deleted=saved_array(deleted, "_deleted", "iu", shape=shape, low=0, high=depth + 1),
        )

    def within(self, queries, limits):
        """Items within edit distance ``limits[i]`` of query ``i`` (and a few more).

        Parameters
        ----------
        queries : sequence of str
        limits : array-like of shape (n_queries,)
            At most ``depth`` each.

        Returns
        -------
        found : list of (ndarray of int64, ndarray of int64)
            Per query, ascending item indices and, for each, the fewest
            deletions per side that reach a shared variant: a lower bound of
            the edit distance. Every item within the limit is there, and
            items sharing a variant (or its hash) without being within it,
            which the caller verifies.
        """
        limits = np.floor(np.asarray(limits, dtype=np.float64)).astype(np.int64)
        if limits.size and (limits.max() > self.depth or limits.min() < 0):
            raise ValueError(f"limits must be in [0, {self.depth}]")
        # A query longer than every item by more than its limit shares no
        # variant with any: its own variants (quadratic in its length) are
        # not made.
        lengths = np.fromiter(map(len, queries), dtype=np.int64, count=len(queries))
        reachable = np.flatnonzero(lengths <= self._longest + limits)
        hashes, rows, deleted = deletion_variants([queries[row] for row in reachable], self.depth)
        rows = reachable[rows]
        keep = deleted <= limits[rows]
        hashes, rows, deleted = hashes[keep], rows[keep], deleted[keep]
        start, counts = self._hashes.runs(hashes)
        entries = expand_ranges(start, counts)
        entry_rows = np.repeat(rows, counts)
        # Both sides reach the shared variant within the query's limit.
        needed = np.maximum(np.repeat(deleted, counts), self._deleted[entries])
        keep = needed <= limits[entry_rows]
        keys = entry_rows[keep].astype(np.int64) * self.n_items + self._items[entries[keep]]
        # The fewest deletions per (query, item): first of each key by (key, needed).
        order = np.lexsort((needed[keep], keys))
        keys, needed = keys[order], needed[keep][order]
        first = run_starts(keys)
        keys, needed = keys[first], needed[first].astype(np.int64)
        bounds = np.searchsorted(keys, np.arange(len(limits) + 1) * self.n_items)
        return [
            (keys[start:stop] - row * self.n_items, needed[start:stop])
            for row, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:]))
        ]


class SortedHashes:
    """Sorted 64-bit hashes, and where each run of equal hashes lies.

    A binary search of a hundred million hashes misses the cache at most of
    its 27 steps (it was most of a deletion lookup's time). The hashes are
    spread (finalized), so their top bits split them into buckets of about
    32: a table of where each bucket starts leaves a search of a few dozen
    neighbouring hashes, for 8 bytes per 32 hashes.
    """

    def __init__(self, hashes):
        self.hashes = hashes
        bits = max(1, int(np.log2(max(len(hashes) / 32, 2))))
        self._shift = np.uint64(64 - bits)
        buckets = np.arange(2**bits + 1, dtype=np.uint64)
        self._starts = np.searchsorted(hashes >> self._shift, buckets).astype(np.int64)

    def __len__(self):
        return len(self.hashes)

    def runs(self, needles):
        """``(start, count)`` of each needle's run (``count`` 0: absent)."""
        return _runs(self.hashes, self._starts, np.asarray(needles, np.uint64), self._shift)


@njit(cache=True, nogil=True)
def _runs(hashes, starts, needles, shift):
    first = np.zeros(len(needles), dtype=np.int64)
    counts = np.zeros(len(needles), dtype=np.int64)
    for i in range(len(needles)):
        needle = needles[i]
        bucket = needle >> shift
        low, high = starts[bucket], starts[bucket + 1]
        while low < high:  # the first hash >= needle
            middle = (low + high) // 2
            if hashes[middle] < needle:
                low = middle + 1
            else:
                high = middle
        start, high = low, starts[bucket + 1]
        while low < high:  # the first hash > needle
            middle = (low + high) // 2
            if hashes[middle] <= needle:
                low = middle + 1
            else:
                high = middle
        first[i], counts[i] = start, low - start
    return first, counts


def expand_ranges(starts, counts):
    """Concatenated ``arange(start, start + count)`` for each range."""
    offsets = np.repeat(np.cumsum(counts) - counts, counts)
    return np.arange(counts.sum()) - offsets + np.repeat(starts, counts)


def deletion_variants(strings, depth):
    """Hashes of every deletion variant of every string, its string and its deletions."""
    code_points, offsets = to_code_points(strings)
    counts = deletion_entries(np.diff(offsets), depth)
    starts = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    hashes = np.empty(starts[-1], dtype=np.uint64)
    rows = np.empty(starts[-1], dtype=np.int32)
    deleted = np.empty(starts[-1], dtype=np.int8)
    _hash_deletions(code_points, offsets, depth, starts, hashes, rows, deleted)
    return hashes, rows, deleted


@njit(cache=True, nogil=True)
def _hash_deletions(code_points, offsets, depth, starts, hashes, rows, deleted):
    """Fill the variants of string ``row`` at ``starts[row]``: the polynomial hash
    of the string with up to ``depth`` characters left out (symbols are code
    points plus one), from prefix hashes, then mixed with the variant's length."""
    longest = 0
    for row in range(len(offsets) - 1):
        longest = max(longest, offsets[row + 1] - offsets[row])
    powers = np.ones(longest + 1, dtype=np.uint64)
    for position in range(longest):
        powers[position + 1] = powers[position] * _BASE
    prefix = np.zeros(longest + 1, dtype=np.uint64)
    for row in range(len(offsets) - 1):
        first, length = offsets[row], offsets[row + 1] - offsets[row]
        for position in range(length):
            symbol = np.uint64(code_points[first + position]) + np.uint64(1)
            prefix[position + 1] = prefix[position] * _BASE + symbol
        out = starts[row]
        hashes[out], deleted[out] = _mixed(prefix[length], length), 0
        out += 1
        for one in range(length if depth >= 1 else 0):
            left = prefix[one] * powers[length - 1 - one]
            hashes[out] = _mixed(left + _piece(prefix, powers, one + 1, length), length - 1)
            deleted[out] = 1
            out += 1
        for one in range(length if depth >= 2 else 0):
            left = prefix[one] * powers[length - 2 - one]
            for two in range(one + 1, length):
                middle = _piece(prefix, powers, one + 1, two) * powers[length - 1 - two]
                right = _piece(prefix, powers, two + 1, length)
                hashes[out], deleted[out] = _mixed(left + middle + right, length - 2), 2
                out += 1
        rows[starts[row] : out] = row


@njit(cache=True, nogil=True, inline="always")
def _piece(prefix, powers, start, stop):
    return prefix[stop] - prefix[start] * powers[stop - start]


@njit(cache=True, nogil=True, inline="always")
def _mixed(value, variant_length):
    """The variant's hash with its length mixed in, spread (splitmix64's finalizer)."""
    value = value + np.uint64(variant_length) * _LENGTH_MIX
    value = (value ^ (value >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    value = (value ^ (value >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return value ^ (value >> np.uint64(31))
