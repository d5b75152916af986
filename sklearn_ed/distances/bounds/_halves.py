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
"""

import numpy as np

from ...utils import run_starts, tagged_hashes
from ._deletions import (
    SortedHashes,
    deletion_entries,
    deletion_variants,
    expand_ranges,
    within_budget,
)


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
        order = np.argsort(keys)
        self._keys = SortedHashes(keys[order])
        self._rows, self._deleted = rows[order], deleted[order]
        self._present = np.bincount(self._lengths, minlength=1) > 0

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
            Per query, ascending item indices, and for each the difference of
            the lengths (a lower bound of the distance, at most the limit).
        """
        limits = np.floor(np.asarray(limits, dtype=np.float64)).astype(np.int64)
        if limits.size and (limits.max() > self.max_distance or limits.min() < 0):
            raise ValueError(f"limits must be in [0, {self.max_distance}]")
        pieces, owners = self._pieces(queries, limits)
        keys = self._candidates(*self._matches(pieces, owners), limits)
        query_rows, items = np.divmod(keys, max(len(self._lengths), 1))
        edges = np.searchsorted(query_rows, np.arange(len(limits) + 1))
        query_lengths = np.fromiter(map(len, queries), dtype=np.int64, count=len(queries))
        found = []
        for row, (start, stop) in enumerate(zip(edges[:-1], edges[1:])):
            bounds = np.abs(self._lengths[items[start:stop]] - query_lengths[row])
            found.append((items[start:stop], bounds.astype(np.float64)))
        return found

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
        starts, counts = self._keys.runs(tagged_hashes(hashes[found], length[found], side[found]))
        entries = expand_ranges(starts, counts)
        levels = np.maximum(
            np.maximum(np.repeat(deleted[found], counts), self._deleted[entries]),
            np.repeat(offset[found], counts),
        ).astype(np.int64)
        within = levels <= np.repeat(allowed[found], counts)
        return (
            np.repeat(row[found], counts)[within],
            self._rows[entries[within]].astype(np.int64),
            np.repeat(side[found], counts)[within],
            levels[within],
        )

    def _candidates(self, query_rows, items, sides, levels, limits):
        """Sorted ``query row * n_items + item`` of the items whose halves may
        split the query's limit: with ``a`` the fewest edits a prefix match
        allows (one more than the deletions looked up when there is none) and
        ``b`` the same for the suffix, ``a + b <= limit``. A string within the
        limit splits it as ``a' + b'`` at its alignment's cut, and ``a <= a'``,
        ``b <= b'``: only the strings matched by both halves at 2 edits each,
        or by one at a single edit, are kept for 4 edits."""
        n_items = max(len(self._lengths), 1)
        # One sort of (query, item, side, level) codes, fewest edits first (levels < 4).
        coded = np.sort(((query_rows * n_items + items) * 2 + sides) * 4 + levels)
        keyed, levels = coded // 4, coded % 4
        first = run_starts(keyed)
        keys, sides = np.divmod(keyed[first], 2)
        levels = levels[first]
        new_key = run_starts(keys)
        group = np.cumsum(new_key) - 1
        keys = keys[new_key]
        unmatched = _allowed(limits[keys // n_items], self.depth) + 1
        fewest = np.stack([unmatched, unmatched])
        fewest[sides, group] = levels
        return keys[fewest.sum(axis=0) <= limits[keys // n_items]]


def _allowed(limit, depth):
    """Deletions a piece is looked up with for a limit: one of two halves
    within ``limit`` edits takes at most ``limit // 2``."""
    return np.minimum(np.asarray(limit) // 2, depth)
