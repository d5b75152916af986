"""Lower bounds from character counts: the characters two strings share.

For strings ``x`` and ``y`` of lengths ``n`` and ``m``, let ``s`` be the size
of their multisets' intersection, ``sum over characters of min(count in x,
count in y)``. Counting characters in fewer buckets only merges counts, and
``min(a, b) + min(c, d) <= min(a + c, b + d)``: the bucketed ``s`` is at
least the true one, and every bound below still holds with it.

Levenshtein and Indel. Every character of ``x`` beyond the shared ones is
deleted or substituted, and every one of ``y`` inserted or substituted, one
edit each at most: ``lev >= max(n, m) - s`` (the bag distance of Bartolini,
Ciaccia and Patella, SPIRE 2002), and with no substitutions ``indel >= n + m
- 2 s``. Over their normalizers: ``normalized_levenshtein >= 1 - s / max(n,
m)`` and ``normalized_indel >= 1 - 2 s / (n + m)``.

Jaro. Jaro similarity is ``(c / n + c / m + (c - t) / c) / 3`` for strings of
lengths ``n`` and ``m`` with ``c`` matching characters (``t`` half the
transpositions). Each match pairs a character of one string with an equal
character of the other, one to one, so ``c`` is at most the size ``s`` of
the two multisets' intersection, ``sum over characters of min(count in x,
count in y)``. With ``(c - t) / c <= 1``, the similarity is at most ``(s / n +
s / m + 1) / 3``, and the distance at least ``(2 - s / n - s / m) / 3``;
with no character in common (``s = 0``) there is no match, and the distance
is 1. Counting characters in fewer buckets only merges counts, and ``min(a,
b) + min(c, d) <= min(a + c, b + d)``: the bucketed ``s`` is at least the
true one, and the bound still holds.

Winkler's prefix raises the similarity ``j`` to ``j + l * 0.1 * (1 - j)``
with ``l <= 4``, an increasing function of ``j``: one minus it is at least
``0.6 * (1 - j)``, so the Jaro bound times 0.6 bounds the Jaro-Winkler
distance. Since ``s <= min(n, m)``, it is at least the length-ratio bound
(:class:`~sklearn_ed.distances.LengthRatioBound`, which takes ``s = min(n,
m)``).

Two empty strings are at 0 under all of them. On 50,000 person records and
misspelt queries, the Jaro bound leaves 0.02 % to 7 % of the items to verify
at the nearest neighbour's distance; at the tenth's, most of them. Brute
force bounds every pair by them first (``Metric.brute_force_bound``).
"""

import numpy as np
from numba import njit

from ...utils import check_strings, saved_class, to_code_points
from ._string_bounds import LowerBound

# Buckets of the character counts: 64 bytes a string below 256 characters.
N_BUCKETS = 64


def _ascii_buckets():
    """Lower-case letters, digits and the space apart (the characters of
    processed text); upper-case letters apart too; other ASCII shares one."""
    table = np.full(128, N_BUCKETS - 1, dtype=np.int64)
    table[ord("a") : ord("z") + 1] = np.arange(26)
    table[ord("A") : ord("Z") + 1] = np.arange(26, 52)
    table[ord("0") : ord("9") + 1] = np.arange(52, 62)
    table[ord(" ")] = 62
    return table


_ASCII_BUCKETS = _ascii_buckets()


def character_counts(strings):
    """Each string's characters counted in :data:`N_BUCKETS` buckets, and its length.

    Counts are uint8 when no string is longer than 255 characters, wider
    otherwise: a count is never clipped (a clipped count would break the bound).
    """
    code_points, offsets = to_code_points(list(strings))
    lengths = np.diff(offsets)
    longest = int(lengths.max(initial=0))
    dtype = np.uint8 if longest < 2**8 else np.uint16 if longest < 2**16 else np.uint32
    counts = np.zeros((len(lengths), N_BUCKETS), dtype=dtype)
    _count(code_points, offsets, _ASCII_BUCKETS, counts)
    return counts, lengths


@njit(cache=True, nogil=True)
def _count(code_points, offsets, ascii_buckets, counts):
    for row in range(len(offsets) - 1):
        for position in range(offsets[row], offsets[row + 1]):
            point = code_points[position]
            bucket = ascii_buckets[point] if point < 128 else point % counts.shape[1]
            counts[row, bucket] += 1


@njit(cache=True, nogil=True, inline="always")
def bag_distance(query_counts, query_lengths, query, item_counts, item_lengths, item):
    """The bag distance ``max(n, m) - s`` of query row ``query`` and item
    ``item``, from :func:`character_counts` of each: a lower bound of
    Levenshtein and Indel (the module's docstring), one gather of an item's
    counts, for candidate lists (brute force scans every item instead)."""
    shared = 0
    for bucket in range(query_counts.shape[1]):
        shared += min(query_counts[query, bucket], item_counts[item, bucket])
    return max(query_lengths[query], item_lengths[item]) - shared


def character_masks(counts):
    """The buckets each string uses, one bit each: 8 bytes a string where its
    counts take 64 (:func:`unshared_buckets` reads them)."""
    bits = np.packbits(counts > 0, axis=1, bitorder="little")
    return np.ascontiguousarray(bits).view(np.uint64)[:, 0]


@njit(cache=True, nogil=True, inline="always")
def unshared_buckets(query_mask, item_mask):
    """A lower bound of the bag distance from the masks alone: the buckets one
    string uses and the other does not. Each holds a character of the first
    beyond the shared ones (``n - s`` and ``m - s`` count them all)."""
    return max(_popcount(query_mask & ~item_mask), _popcount(item_mask & ~query_mask))


@njit(cache=True, nogil=True, inline="always")
def _popcount(bits):
    bits = bits - ((bits >> np.uint64(1)) & np.uint64(0x5555555555555555))
    bits = (bits & np.uint64(0x3333333333333333)) + (
        (bits >> np.uint64(2)) & np.uint64(0x3333333333333333)
    )
    bits = (bits + (bits >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (bits * np.uint64(0x0101010101010101)) >> np.uint64(56)


# Items a block of rows is compared with at once: their counts (64 bytes
# each, 256 KB) stay in the cache while every row of the block reads them.
_TILE_ITEMS = 4096
# The forms of the bound, by what the shared count ``s`` bounds.
JARO, LONGER, SUM = 0, 1, 2
# Bounds are shrunk by one part in 10^12, so that rounding never lifts one
# above the distance.
_SHRINK = 1 - 1e-12


@njit(cache=True, nogil=True)
def _bounds(query_counts, query_lengths, base_counts_by_bucket, base_lengths, form, scale):
    n_items = len(base_lengths)
    bounds = np.empty((len(query_lengths), n_items))
    shared = np.empty(n_items, dtype=np.int32)
    for row in range(len(query_lengths)):
        # Bucket by bucket over every item: a loop the compiler vectorizes,
        # and the buckets a query leaves empty cost nothing.
        shared[:] = 0
        for bucket in range(query_counts.shape[1]):
            count = query_counts[row, bucket]
            if count == 0:
                continue
            column = base_counts_by_bucket[bucket]
            for item in range(n_items):
                shared[item] += min(count, column[item])
        length = query_lengths[row]
        for item in range(n_items):
            bound = _bound(shared[item], length, base_lengths[item], form, scale)
            bounds[row, item] = bound * _SHRINK
    return bounds


@njit(cache=True, nogil=True, inline="always")
def _bound(shared, length, other_length, form, scale):
    if length == 0 and other_length == 0:
        return 0.0
    if shared == 0:
        return 1.0
    if form == JARO:
        return scale * (2.0 - shared / length - shared / other_length)
    if form == LONGER:
        return 1.0 - shared / max(length, other_length)
    return 1.0 - 2.0 * shared / (length + other_length)


class _BagBound(LowerBound):
    """The bound of ``form`` from the characters each query shares with each item."""

    form = scale = None

    def __init__(self, base):
        base = check_strings(base, name="base", allow_empty=True)
        self._strings = base
        self._counts, self._lengths = character_counts(base)
        self._counts_by_bucket = np.ascontiguousarray(self._counts.T)

    def bounds(self, queries):
        """Lower bounds of the distance for every (query, item) pair.

        Parameters
        ----------
        queries : sequence of str
            Query strings.

        Returns
        -------
        bounds : ndarray of float64, shape (n_queries, n_base)
            The bound from the characters each pair shares; 1 where they
            share none, 0 for two empty strings.
        """
        return self._bounds_at(check_strings(queries, allow_empty=True), self.scale or 0.0)

    def _bounds_at(self, queries, scale):
        """:meth:`bounds` of validated ``queries`` with the form's ``scale``."""
        counts, lengths = character_counts(queries)
        return _bounds(counts, lengths, self._counts_by_bucket, self._lengths, self.form, scale)

    def pair_filter(self, queries, threshold):
        """The :class:`BagPairFilter` of ``queries`` against the base at
        ``threshold``, or None where a string has 256 characters or more
        (its counts take more than a byte).

        Parameters
        ----------
        queries : sequence of str or None
            Validated query strings; None: the base's own (a self-join).
        threshold : float
            The largest distance of interest.

        Returns
        -------
        pair_filter : BagPairFilter or None
        """
        if queries is None:
            counts, lengths = self._counts, self._lengths
        else:
            counts, lengths = character_counts(queries)
        if counts.dtype != np.uint8 or self._counts_by_bucket.dtype != np.uint8:
            return None
        fewest_shared = _fewest_shared_table(
            self.form,
            self.scale or 0.0,
            float(threshold),
            int(lengths.max(initial=0)),
            int(self._lengths.max(initial=0)),
        )
        items = (self._counts_by_bucket, self._lengths)
        return BagPairFilter((counts, lengths), items, fewest_shared)


def radius_pair_filter(queries, items, radius, *, indel=False):
    """The :class:`BagPairFilter` of the pairs of ``queries`` and ``items``
    within a Levenshtein radius (or an Indel one), or None where a string has
    256 characters or more.

    Two strings of lengths ``n`` and ``m`` sharing ``s`` characters are at
    least ``max(n, m) - s`` apart in Levenshtein distance and ``n + m - 2 s``
    in Indel (the module's docstring): within ``r`` they share at least
    ``max(n, m) - r`` characters, or ``(n + m - r) / 2``.

    Parameters
    ----------
    queries : sequence of str
        Validated strings.
    items : sequence of str or None
        Validated strings; None: ``queries`` themselves (a self-join).
    radius : callable
        ``radius(lengths_a, lengths_b)``: the largest distance of a pair of
        those lengths (a metric's ``levenshtein_radius(threshold)``).
    indel : bool, default=False
        The radius bounds the Indel distance (at least Levenshtein's): the
        tighter count applies.

    Returns
    -------
    pair_filter : BagPairFilter or None
    """
    counts, lengths = character_counts(queries)
    item_counts, item_lengths = (counts, lengths) if items is None else character_counts(items)
    if counts.dtype != np.uint8 or item_counts.dtype != np.uint8:
        return None
    n, m = np.meshgrid(
        np.arange(int(lengths.max(initial=0)) + 1),
        np.arange(int(item_lengths.max(initial=0)) + 1),
        indexing="ij",
    )
    limit = np.asarray(radius(n.ravel(), m.ravel()), dtype=np.int64).reshape(n.shape)
    fewest = -((limit - n - m) // 2) if indel else np.maximum(n, m) - limit
    fewest = np.clip(fewest, 0, np.minimum(n, m) + 1).astype(np.int16)
    items = (np.ascontiguousarray(item_counts.T), item_lengths)
    return BagPairFilter((counts, lengths), items, fewest)


class BagPairFilter:
    """The pairs of queries and base items whose bound is within a threshold,
    a block at a time: the pairs a brute-force join needs to compare.

    The bound falls as the shared count ``s`` grows, so for each pair of
    lengths the fewest shared characters it allows at the threshold are
    tabled once (the same bound, rounding included, as :meth:`bounds`); a
    block then counts each query's shared characters with every item, a
    byte an item in a loop the compiler vectorizes, and compares. On 10,000
    token-sorted person records within 0.15 of normalized Indel: 0.9 ns a
    pair against 16 ns for rapidfuzz's distance with its cut-off, and 3
    pairs in 100,000 left to compare (``benchmarks/bench_shared_characters.py``).

    Built by :meth:`NormalizedBagBound.pair_filter` (or Jaro's) and
    :func:`radius_pair_filter`, from the queries' counts and lengths, the
    items' (counts by bucket) and the table of the fewest shared characters
    (``[query length, item length]``; ``min(n, m) + 1``: no pair of those
    lengths can be within the threshold).
    """

    def __init__(self, queries, items, fewest_shared):
        (self._counts, self._lengths), (self._item_counts, self._item_lengths) = queries, items
        self._fewest_shared = fewest_shared

    def pairs(self, rows, first, last, upper=False):
        """The pairs of query ``rows`` and items ``first`` to ``last`` (excluded)
        whose bound is within the threshold, by row then item.

        Parameters
        ----------
        rows : ndarray of int64
            Query rows.
        first, last : int
            The items compared with each row.
        upper : bool, default=False
            Compare row ``r`` with the items after it only (a self-join's
            upper triangle).

        Returns
        -------
        rows, items : ndarray of int64
        """
        rows = np.sort(np.asarray(rows, dtype=np.int64))
        slots, items = _pairs_sharing(
            self._counts,
            self._lengths,
            rows,
            self._item_counts,
            self._item_lengths,
            int(first),
            int(last),
            self._fewest_shared,
            upper,
        )
        # Found tile by tile, each tile's by row: a stable counting sort by
        # row orders them (a lexsort took 40 % of brute force's filter on
        # 100,000 words within 2 edits, which keeps 1 pair in 120).
        slots, items = _by_slot(slots, items, len(rows))
        return rows[slots], items

    def pass_rate(self, n_rows=64, n_items=4096):
        """The share of pairs kept among ``n_rows`` queries spread over the rows
        and a window of ``n_items`` items in the middle of the base."""
        n_queries, n_base = len(self._lengths), len(self._item_lengths)
        rows = np.unique(np.linspace(0, n_queries - 1, min(n_rows, n_queries)).astype(np.int64))
        first = max(0, (n_base - n_items) // 2)
        last = min(n_base, first + n_items)
        if not len(rows) or last <= first:
            return 0.0
        return len(self.pairs(rows, first, last)[0]) / (len(rows) * (last - first))


@njit(cache=True, nogil=True)
def _fewest_shared_table(form, scale, threshold, longest_query, longest_item):
    """``table[n, m]``: the fewest shared characters whose bound is within the
    threshold for lengths ``n`` and ``m`` (``min(n, m) + 1``: none is)."""
    table = np.empty((longest_query + 1, longest_item + 1), dtype=np.int16)
    for n in range(longest_query + 1):
        for m in range(longest_item + 1):
            low, high = 0, min(n, m) + 1
            while low < high:  # the bound falls as the shared count grows
                middle = (low + high) // 2
                if _bound(middle, n, m, form, scale) * _SHRINK <= threshold:
                    high = middle
                else:
                    low = middle + 1
            table[n, m] = low
    return table


@njit(cache=True, nogil=True)
def _pairs_sharing(counts, lengths, rows, item_counts, item_lengths, first, last, fewest, upper):
    width = min(_TILE_ITEMS, max(last - first, 0))
    scratch = np.empty(width, dtype=np.uint8)
    kept = np.empty(width, dtype=np.int64)
    found_slots = np.empty(1024, dtype=np.int64)
    found_items = np.empty(1024, dtype=np.int64)
    n_found = 0
    # Tile by tile of items, every row: a tile's counts stay in the cache for
    # the rows (a row against a million items read 64 MB of counts from memory,
    # and took twice as long a pair).
    for tile in range(first, last, _TILE_ITEMS):
        tile_end = min(tile + _TILE_ITEMS, last)
        for slot in range(len(rows)):
            row = rows[slot]
            start = max(tile, row + 1) if upper else tile
            if start >= tile_end:
                continue
            # Slices indexed from 0: an index the compiler cannot prove
            # non-negative (``item - first``) kept the loops scalar, 100 times slower.
            shared = scratch[: tile_end - start]
            _count_shared(shared, counts[row], item_counts, start, tile_end)
            n_kept = _kept(shared, fewest[lengths[row]], item_lengths[start:tile_end], kept)
            if n_found + n_kept > len(found_slots):
                capacity = 2 * (n_found + n_kept)
                found_slots = _grown(found_slots[:n_found], capacity)
                found_items = _grown(found_items[:n_found], capacity)
            found_slots[n_found : n_found + n_kept] = slot
            found_items[n_found : n_found + n_kept] = kept[:n_kept] + start
            n_found += n_kept
    return found_slots[:n_found], found_items[:n_found]


@njit(cache=True, nogil=True)
def _by_slot(slots, items, n_slots):
    """The pairs ``(slots, items)`` in a stable order by slot."""
    starts = np.zeros(n_slots + 1, dtype=np.int64)
    for slot in slots:
        starts[slot + 1] += 1
    starts = np.cumsum(starts)
    ordered_slots = np.empty_like(slots)
    ordered_items = np.empty_like(items)
    for i in range(len(slots)):
        at = starts[slots[i]]
        ordered_slots[at], ordered_items[at] = slots[i], items[i]
        starts[slots[i]] += 1
    return ordered_slots, ordered_items


# The two loops below apart from the one above: with its growing arrays in
# the same function, the count's loop was no longer vectorized (10 times slower).
@njit(cache=True, nogil=True)
def _count_shared(shared, counts, item_counts, start, last):
    shared[:] = 0
    for bucket in range(item_counts.shape[0]):
        if counts[bucket] != 0:
            _add_shared(shared, item_counts[bucket, start:last], np.uint8(counts[bucket]))


@njit(cache=True, nogil=True)
def _kept(shared, needed, lengths, kept):
    n_kept = 0
    for item in range(len(shared)):
        if shared[item] >= needed[lengths[item]]:
            kept[n_kept] = item
            n_kept += 1
    return n_kept


@njit(cache=True, nogil=True, inline="always")
def _add_shared(shared, column, count):
    for item in range(len(shared)):
        value = column[item]
        shared[item] += value if value < count else count


@njit(cache=True, nogil=True)
def _grown(values, capacity):
    grown = np.empty(capacity, dtype=values.dtype)
    grown[: len(values)] = values
    return grown


@saved_class()
class JaroBagBound(_BagBound):
    """``scale * (2 - s / n - s / m)`` from the ``s`` characters two strings
    share: Jaro (``scale=1/3``) and Jaro-Winkler (``scale=0.2``) distances.

    ``n`` and ``m`` are the strings' lengths; a pair sharing no character is
    at distance 1, two empty strings at 0. The proof is in the module's
    docstring: each match of the Jaro similarity pairs equal characters.

    Parameters
    ----------
    base : sequence of str
        The items bounds are computed against.
    scale : float
        ``1/3`` for Jaro, ``0.2`` for Jaro-Winkler.

    Examples
    --------
    >>> from sklearn_ed.distances import JaroBagBound
    >>> JaroBagBound(["abcd", "abdc", "wxyz"], scale=1 / 3).bounds(["abcd"]).round(3).tolist()
    [[0.0, 0.0, 1.0]]
    """

    form = JARO

    def __init__(self, base, scale):
        super().__init__(base)
        self.scale = float(scale)

    def __getstate__(self):
        # The counts are rebuilt from the strings.
        return {"scale": self.scale, "strings": self._strings}

    def __setstate__(self, state):
        self.__init__(list(state["strings"]), state["scale"])


@saved_class()
class NormalizedBagBound(_BagBound):
    """``1 - s / max(n, m)`` (normalized Levenshtein) or ``1 - 2 s / (n + m)``
    (normalized Indel) from the ``s`` characters two strings share.

    Weaker than :class:`NormalizedBound`'s q-grams for strings a few edits
    apart, and a tenth of their cost or less: brute force bounds every pair
    by it first.

    Parameters
    ----------
    base : sequence of str
        The items bounds are computed against.
    normalizer : {"longer", "sum"}
        ``max(len(x), len(y))`` or ``len(x) + len(y)``.

    Examples
    --------
    >>> from sklearn_ed.distances import NormalizedBagBound
    >>> bound = NormalizedBagBound(["kitten", "a"], normalizer="longer")
    >>> bound.bounds(["sitting"]).round(3).tolist()
    [[0.429, 1.0]]
    """

    def __init__(self, base, normalizer):
        if normalizer not in ("longer", "sum"):
            raise ValueError(f'normalizer must be "longer" or "sum", got {normalizer!r}.')
        super().__init__(base)
        self.normalizer = normalizer
        self.form = LONGER if normalizer == "longer" else SUM

    def __getstate__(self):
        return {"normalizer": self.normalizer, "strings": self._strings}

    def __setstate__(self, state):
        self.__init__(list(state["strings"]), state["normalizer"])
