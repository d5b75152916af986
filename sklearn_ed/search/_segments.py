"""A lookup over a growing base, kept as segments so that appends stay cheap.

The metric's lower bound and near lookup are built over a fixed list of
items. Rebuilding them over the whole base at every ``partial_fit`` makes
growing a base batch by batch quadratic. :class:`SegmentedLookup` keeps
one lookup per segment of consecutive items instead and merges segments as
a binary counter does (``sklearn_ed.utils.segments_absorbed``, the
logarithmic method of Bentley and Saxe, 1980). An appended item is rebuilt into a larger segment
O(log n) times in all, a batch costs time in proportion to its own size
(amortised), and a query asks O(log n) segments.
"""

import numpy as np

from ..utils import segments_absorbed, take_items


class SegmentedLookup:
    """``within(queries, limits)`` over segments of a growing base.

    Parameters
    ----------
    build : callable
        ``build(items)`` returns the lookup of ``items`` (an object with
        ``within(queries, limits)`` returning, per query, ascending item
        indices and a value per item), or ``None`` when the lookup would not
        be worth its memory for them.
    """

    def __init__(self, build):
        self.build = build
        self._segments = []  # (first item, lookup), in item order
        self._n_items = 0
        self.available = True

    @property
    def n_segments(self):
        return len(self._segments)

    @property
    def depth(self):
        """The ``depth`` of the segments' lookups (a near lookup's largest limit)."""
        return self._segments[0][1].depth

    @property
    def max_distance(self):
        """The ``max_distance`` of the segments' lookups (a far lookup's largest limit)."""
        return self._segments[0][1].max_distance

    @property
    def stages(self):
        """The ``stages`` of the segments' lookups (a far lookup's cheap limits)."""
        return self._segments[0][1].stages

    def extend(self, items):
        """Append the tail of ``items`` (the whole base) that is not indexed yet.

        Once a segment's lookup is not worth building, the lookup is
        unavailable (``available`` is False) for good: the caller falls back
        to what it does without one.
        """
        if not self.available or len(items) == self._n_items:
            return
        start = self._n_items
        self._n_items = len(items)
        starts = [first for first, _ in self._segments]
        absorbed = segments_absorbed(starts, start, self._n_items)
        if absorbed:  # rebuilt over the absorbed segments' items and the new ones
            start = starts[-absorbed]
            del self._segments[-absorbed:]
        lookup = self.build(take_items(items, np.arange(start, self._n_items)))
        if lookup is None:
            self.available, self._segments = False, []
        else:
            self._segments.append((start, lookup))

    def within(self, queries, limits):
        """Per query, the ascending item indices of every segment and their values."""
        if len(self._segments) == 1 and self._segments[0][0] == 0:
            return self._segments[0][1].within(queries, limits)
        per_segment = [(start, lookup.within(queries, limits)) for start, lookup in self._segments]
        found = []
        for row in range(len(queries)):
            parts = [(start + result[row][0], result[row][1]) for start, result in per_segment]
            found.append(tuple(np.concatenate(column) for column in zip(*parts)))
        return found
