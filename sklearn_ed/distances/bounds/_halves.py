"""Every string within Levenshtein distance 5 of a query, from deletions of halves.

Cut every base string ``w`` at ``c = len(w) // 2``. An optimal alignment of a
query ``q`` with ``w`` passes the cut at some position ``c'`` of ``q``, which
splits its edits: ``lev(q[:c'], w[:c]) + lev(q[c':], w[c:]) = lev(q, w)``.
Within ``t`` edits in all, one of the two pieces is within ``h = t // 2``
(``t <= 2 h + 1``), and where the cut of ``q`` can lie follows from the
lengths: a prefix within ``h`` has ``|c' - c| <= h``, a suffix within ``h``
has ``|(len(q) - c') - (len(w) - c)| <= h``. Two pieces within ``h`` edits
share a string reached by at most ``h`` deletions from each (the symmetric
deletions of :mod:`._deletions`). So an index of the deletion variants of
every base string's two halves, keyed by the string's length and the side,
looked up with the variants of the query's pieces at the cuts each length
allows, returns every base string within ``t`` (and some more, which the
caller verifies).

Both halves count: a string whose prefix matches at best within ``a``
edits (``h + 1`` when it is not matched) and suffix within ``b`` is kept
only if ``a + b <= t``, since at its alignment's cut the halves take at
least that many. Within 4 edits a string must then match both halves within
2, or one within 1, where either half within 2 alone would keep most
strings of a close length.

This is what an exact search needs for the few queries whose nearest string
is 3 to 5 edits away (a misspelling nearer no word): the deletion index of
whole strings answers only up to its depth (2), and the q-gram bound prunes
nothing for short strings at distance 3 or more (it needs a shared q-gram
per ``q`` edits and more), which leaves every word of a close length to
verify. The halves are short, so the variants of depth 2 are few (16 for a
half of 5 characters), and two length-keyed pieces seldom meet by chance.

Two refinements keep the lookup within 3 edits cheap on a large base of
short words (a million words of 13 languages, queries with no word within
2 edits):

- The entries of one deletion at most are kept apart from those of two.
  Within 3 edits each half is looked up with one deletion; on that base the
  entries of two deletions were 62 % of the index and 88 % of the entries a
  lookup fetched, all of them dropped.
- A half matched within one edit says little of the other half: about 8,000
  words a query, 11 of them within 3 edits. Their bag distance (the
  characters two strings do not share, :func:`._bag_bounds.bag_distance`)
  is a lower bound of the distance, one gather of 64 counts a word, and
  leaves 1 % to 5 % of them to verify.
"""

from dataclasses import dataclass

import numpy as np
from numba import njit

from ...utils import hash_order, tagged_hashes
from ._bag_bounds import bag_distance, character_counts, character_masks, unshared_buckets
from ._deletions import (
    SortedHashes,
    deletion_entries,
    deletion_variants,
    expand_ranges,
    within_budget,
)

# Entries of at most this many deletions form the first tier of the index.
_SHALLOW = 1


@dataclass
class _Tier:
    """Index entries of ``fewest`` deletions or more: sorted keys, rows, deletions."""

    keys: SortedHashes
    rows: np.ndarray
    deleted: np.ndarray
    fewest: int

    @classmethod
    def of(cls, keys, rows, deleted, mask, fewest):
        order = np.flatnonzero(mask)
        sorted_keys, within = hash_order(keys[order])
        order = order[within]
        return cls(SortedHashes(sorted_keys), rows[order], deleted[order], fewest)


def halves_index(strings, depth=2):
    """The :class:`HalvesIndex` of ``strings``, or ``None`` when its deletion
    variants would not fit the deletion index's budget (long strings)."""
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    cuts = lengths // 2
    entries = deletion_entries(cuts, depth) + deletion_entries(lengths - cuts, depth)
    return HalvesIndex(strings, depth) if within_budget(entries) else None


class HalvesIndex:
    """Items of a string base within a Levenshtein distance of a query, up to
    ``2 * depth + 1``, with some more.

    Parameters
    ----------
    strings : sequence of str
        The base.
    depth : {1, 2}, default=2
        Deletions per half: distances up to ``2 * depth + 1`` are answered.

    Examples
    --------
    >>> from sklearn_ed.distances.bounds._halves import HalvesIndex
    >>> index = HalvesIndex(["algorithms", "logarithms", "rhythms"])
    >>> [items.tolist() for items, _ in index.within(["algorthins"], [3])]
    [[0]]
    """

    def __init__(self, strings, depth=2):
        self.depth = depth
        self.max_distance = 2 * depth + 1
        self._lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
        cuts = self._lengths // 2
        sides = (
            [string[:cut] for string, cut in zip(strings, cuts)],
            [string[cut:] for string, cut in zip(strings, cuts)],
        )
        parts = []
        for side, pieces in enumerate(sides):
            hashes, rows, deleted = deletion_variants(pieces, depth)
            parts.append((tagged_hashes(hashes, self._lengths[rows], side), rows, deleted))
        keys, rows, deleted = (np.concatenate(column) for column in zip(*parts))
        shallow = deleted <= _SHALLOW
        self._tiers = [_Tier.of(keys, rows, deleted, shallow, 0)]
        if not shallow.all():
            self._tiers.append(_Tier.of(keys, rows, deleted, ~shallow, _SHALLOW + 1))
        self._present = np.bincount(self._lengths, minlength=1) > 0
        self._counts = character_counts(strings)[0]
        self._masks = character_masks(self._counts)

    @property
    def stages(self):
        """Limits an exact search verifies first, in passes (3 and 4 edits): a
        query whose k-th neighbor is that near ends at the cheaper pass."""
        return tuple(range(3, self.max_distance))

    def within(self, queries, limits):
        """Items within Levenshtein distance ``limits[i]`` of query ``i`` (and a few more).

        Parameters
        ----------
        queries : sequence of str
        limits : array-like of shape (n_queries,)
            At most ``max_distance`` each.

        Returns
        -------
        found : list of (ndarray of int64, ndarray of float64)
            Per query, ascending item indices, and for each its bag distance
            (a lower bound of the distance, at least the difference of the
            lengths, at most the limit).
        """
        limits = np.floor(np.asarray(limits, dtype=np.float64)).astype(np.int64)
        if limits.size and (limits.max() > self.max_distance or limits.min() < 0):
            raise ValueError(f"limits must be in [0, {self.max_distance}]")
        pieces, owners = self._pieces(queries, limits)
        return self._candidates(queries, *self._matches(pieces, owners), limits)

    def _pieces(self, queries, limits):
        """The query pieces to look up, and per piece ``(query row, whole length,
        side, deletions allowed, distance of its cut from the centre)``."""
        pieces, owners = [], []
        for row, (query, limit) in enumerate(zip(queries, limits)):
            allowed = _allowed(limit, self.depth)
            n = len(query)
            for length in range(max(0, n - limit), min(n + limit, len(self._present) - 1) + 1):
                if not self._present[length]:
                    continue
                cut = length // 2
                for side, centre in ((0, cut), (1, cut + n - length)):
                    for position in range(max(0, centre - allowed), min(n, centre + allowed) + 1):
                        pieces.append(query[:position] if side == 0 else query[position:])
                        owners.append((row, length, side, allowed, abs(position - centre)))
        return pieces, np.array(owners, dtype=np.int64).reshape(-1, 5)

    def _matches(self, pieces, owners):
        """``(query rows, items, sides, levels)`` of every entry sharing a
        variant with a piece, both within the piece's deletions allowed. The
        level is the most edits a half at that cut and those deletions may
        take: the larger of the deletions and the cut's distance from the centre."""
        hashes, piece_rows, deleted = deletion_variants(pieces, self.depth)
        row, length, side, allowed, offset = owners[piece_rows].T
        found = deleted <= allowed
        hashes = tagged_hashes(hashes[found], length[found], side[found])
        variants = (row[found], side[found], allowed[found], offset[found], deleted[found])
        parts = [self._tier_matches(tier, hashes, *variants) for tier in self._tiers]
        return tuple(np.concatenate(column) for column in zip(*parts))

    @staticmethod
    def _tier_matches(tier, hashes, row, side, allowed, offset, deleted):
        """:meth:`_matches` in one tier, for the variants allowed its deletions."""
        asked = allowed >= tier.fewest
        starts, counts = tier.keys.runs(hashes[asked])
        entries = expand_ranges(starts, counts)
        levels = np.maximum(
            np.maximum(np.repeat(deleted[asked], counts), tier.deleted[entries]),
            np.repeat(offset[asked], counts),
        ).astype(np.int64)
        within = levels <= np.repeat(allowed[asked], counts)
        return (
            np.repeat(row[asked], counts)[within],
            tier.rows[entries[within]].astype(np.int64),
            np.repeat(side[asked], counts)[within],
            levels[within],
        )

    def _candidates(self, queries, query_rows, items, sides, levels, limits):
        """Per query, the items whose halves may split its limit and whose bag
        distance is within it: ascending items, and those distances.

        With ``a`` the fewest edits a prefix match allows (one more than the
        deletions looked up when there is none) and ``b`` the same for the
        suffix, ``a + b <= limit``. A string within the limit splits it as
        ``a' + b'`` at its alignment's cut, and ``a <= a'``, ``b <= b'``: only
        the strings matched by both halves at 2 edits each, or by one at a
        single edit, are kept for 4 edits."""
        query_counts, query_lengths = character_counts(queries)
        unmatched = _allowed(limits, self.depth) + 1
        masks = (character_masks(query_counts), self._masks)
        order = np.argsort(query_rows, kind="stable")
        edges = np.searchsorted(query_rows[order], np.arange(len(limits) + 1))
        found, bounds, found_edges = _split_and_bag(
            edges,
            items[order],
            sides[order].astype(np.int8),
            levels[order].astype(np.int8),
            limits,
            unmatched,
            masks,
            (query_counts, query_lengths, self._counts, self._lengths),
        )
        # Ascending items per query: a sort of the few survivors, apart from
        # the kernel (a sort inside it took seconds to compile).
        rows = np.repeat(np.arange(len(limits)), np.diff(found_edges))
        order = np.lexsort((found, rows))
        found, bounds = found[order], bounds[order].astype(np.float64)
        return [
            (found[start:stop], bounds[start:stop])
            for start, stop in zip(found_edges[:-1], found_edges[1:])
        ]


@njit(cache=True, nogil=True)
def _split_and_bag(edges, items, sides, levels, limits, unmatched, masks, counts_and_lengths):
    """:meth:`HalvesIndex._candidates` for matches grouped by query (``edges``):
    the fewest edits per side of each item touched, in a scratch pair per
    base item (reset after each query), with no sort of the matches."""
    query_masks, item_masks = masks
    query_counts, query_lengths, item_counts, item_lengths = counts_and_lengths
    untouched = np.int8(127)
    fewest = np.full((len(item_lengths), 2), untouched, dtype=np.int8)
    touched = np.empty(len(items), dtype=np.int64)
    found = np.empty(len(items), dtype=np.int64)
    bounds = np.empty(len(items), dtype=np.int64)
    found_edges = np.zeros(len(limits) + 1, dtype=np.int64)
    n_found = 0
    for row in range(len(limits)):
        n_touched = 0
        for entry in range(edges[row], edges[row + 1]):
            item, side = items[entry], sides[entry]
            if fewest[item, 0] == untouched and fewest[item, 1] == untouched:
                touched[n_touched] = item
                n_touched += 1
            fewest[item, side] = min(fewest[item, side], levels[entry])
        for position in range(n_touched):
            item = touched[position]
            prefix, suffix = fewest[item, 0], fewest[item, 1]
            fewest[item, 0] = fewest[item, 1] = untouched
            prefix = unmatched[row] if prefix == untouched else prefix
            suffix = unmatched[row] if suffix == untouched else suffix
            if prefix + suffix > limits[row]:
                continue
            # The masks (8 bytes an item) rule out most before its 64 counts are read.
            if unshared_buckets(query_masks[row], item_masks[item]) > limits[row]:
                continue
            bag = bag_distance(query_counts, query_lengths, row, item_counts, item_lengths, item)
            if bag <= limits[row]:
                found[n_found], bounds[n_found] = item, bag
                n_found += 1
        found_edges[row + 1] = n_found
    return found[:n_found], bounds[:n_found], found_edges


def _allowed(limit, depth):
    """Deletions a piece is looked up with for a limit: one of two halves
    within ``limit`` edits takes at most ``limit // 2``."""
    return np.minimum(np.asarray(limit) // 2, depth)
