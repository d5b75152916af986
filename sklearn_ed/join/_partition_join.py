"""The partition join: the candidates of the partition filter, verified.

Only the candidates of the partition filter (:mod:`._partition`) are
compared, which is lossless for the metrics whose threshold implies a
Levenshtein bound: those whose :class:`~sklearn_ed.distances.Metric` has a
``levenshtein_radius`` (Levenshtein, Indel, OSA, Damerau-Levenshtein,
LCSseq and the normalized Levenshtein and Indel; the proofs are in
:func:`~sklearn_ed.distances.edit_radius`'s module). Jaro, Jaro-Winkler,
token_set and Hamming have none: they are joined by ``"brute"``.
"""

import numpy as np

from ..distances import pairwise_distances_within
from ._bag import bag_bound_within, character_counts, limit_table
from ._partition import partition_candidates
from ._verify import verified

# Below this many pairs, comparing all of them costs less than building the filter.
BRUTE_PAIRS = 2_000_000
# Shortest mean segment for which the filter prunes: shorter ones match anywhere.
MIN_SEGMENT = 3


def partition_refusal(spec, limit):
    """Why the partition filter cannot serve ``spec``, or None."""
    if spec.levenshtein_radius is None:
        return (
            f"method='partition' needs a metric whose threshold bounds the Levenshtein "
            f"distance; {spec.name!r} has none. Use method='brute' or 'auto'."
        )
    return None


def partition_cost(left, right, spec, limit):
    """Pairs compared, stating the rule "auto" has followed as a cost: where
    the sides hold more than ``BRUTE_PAIRS`` pairs and the median string is
    cut into segments of at least ``MIN_SEGMENT`` characters, the filter
    costs about ``BRUTE_PAIRS`` comparisons; elsewhere it prunes too little
    and counts as twice brute force."""
    n_pairs = len(left) * len(left if right is None else right)
    if n_pairs > BRUTE_PAIRS:
        lengths = np.fromiter(map(len, left), np.int64, len(left))
        bound = spec.levenshtein_radius(limit)
        if np.median(lengths / (bound(lengths, lengths) + 1)) >= MIN_SEGMENT:
            return BRUTE_PAIRS
    return 2 * n_pairs


def partition_join(left, right, spec, threshold, n_jobs):
    """The blocks of pairs within ``threshold`` among the candidates of the filter."""
    bound = spec.levenshtein_radius(threshold)
    index_side = left if right is None else right
    # The probing threads check the bag distance of their own candidates.
    sides = _Sides(left, index_side, bound)
    short, blocks = partition_candidates(
        index_side,
        left,
        bound,
        self_join=right is None,
        pair_filter=sides.bag_filtered,
        n_jobs=n_jobs,
    )
    is_short = np.zeros(len(index_side), dtype=bool)
    is_short[short] = True
    for probe_rows, index_rows in blocks:
        if right is None:  # each pair once (index row < probe row); short rows are done apart
            keep = ~is_short[probe_rows]
            probe_rows, index_rows = index_rows[keep], probe_rows[keep]
        yield verified(spec, left, index_side, probe_rows, index_rows, threshold, n_jobs)
    if short.size:
        yield _short_pairs(spec, left, right, short, is_short, threshold, n_jobs)


class _Sides:
    """The character counts of both sides of a partition join, to check the
    bag distance of its candidates before verifying them."""

    def __init__(self, left, right, bound):
        self.left = character_counts(left)
        self.right = self.left if right is left else character_counts(right)
        self.limits = limit_table(bound, self.left.lengths, self.right.lengths)

    def bag_filtered(self, left_rows, right_rows):
        """The candidate pairs whose bag distance is within their Levenshtein
        bound: the others (most pairs that share only one segment) cannot be.
        All of them for strings too long for the table of bounds."""
        if self.limits is None:
            return left_rows, right_rows
        within = bag_bound_within(self.left, self.right, left_rows, right_rows, self.limits)
        return left_rows[within], right_rows[within]


def _short_pairs(spec, left, right, short, is_short, threshold, n_jobs):
    """Pairs with an indexed row too short to cut, by comparing it to every probe."""
    rows, columns, distances = pairwise_distances_within(
        (left if right is None else right)[short],
        left,
        spec,
        limits=threshold,
        n_jobs=n_jobs,
        check_input=False,
    )
    index_rows = short[rows]
    if right is None:
        # Pairs of two short rows appear twice (keep one); never an item with itself.
        keep = (index_rows != columns) & ~(is_short[columns] & (columns < index_rows))
        low = np.minimum(index_rows[keep], columns[keep])
        high = np.maximum(index_rows[keep], columns[keep])
        order = np.lexsort((high, low))
        return low[order], high[order], distances[keep][order]
    order = np.lexsort((index_rows, columns))
    return columns[order], index_rows[order], distances[order]
