"""Every pair of strings within a distance threshold, exactly, in blocks.

Two ways to find them: compare every pair (``"brute"``, rapidfuzz with a
score cut-off, a block of rows at a time), or compare only the candidates of
the partition filter (``"partition"``, :mod:`._partition`), which is lossless
for the metrics whose threshold implies a Levenshtein bound:

- Levenshtein: ``lev <= t``.
- Indel (insertions and deletions only): a substitution is one deletion and
  one insertion, so ``lev <= indel <= t``.
- OSA and Damerau-Levenshtein: a transposition is two substitutions, so
  ``lev <= 2 * osa <= 2 t``; LCSseq (``max(|a|, |b|) - lcs``):
  ``indel = |a| + |b| - 2 lcs <= 2 lcsseq``, so ``lev <= 2 t``.
- normalized Levenshtein (``lev / max(|a|, |b|)``): ``lev <= t max(|a|, |b|)``;
  normalized Indel (``indel / (|a| + |b|)``): ``lev <= t (|a| + |b|)``.

Jaro, Jaro-Winkler and Hamming have no such bound here: they are joined by
``"brute"``.
"""

from functools import partial

import numpy as np

from ._bag import bag_bound_within, character_counts, limit_table
from ._distinct import Distinct, copies_pairs, expanded_pairs, self_distances
from ._pairwise import pairwise_distances_within
from ._partition import partition_candidates
from ._prefix_bound import PrefixBound
from ._registry import get_metric

_EPSILON = 1e-9


def _floor(values):
    return np.floor(np.asarray(values, dtype=np.float64) + _EPSILON).astype(np.int64)


LEVENSHTEIN_BOUNDS = {
    "levenshtein": lambda t: lambda a, b: np.full(len(a), _floor(t)),
    "indel": lambda t: lambda a, b: np.full(len(a), _floor(t)),
    "osa": lambda t: lambda a, b: np.full(len(a), 2 * _floor(t)),
    "damerau_levenshtein": lambda t: lambda a, b: np.full(len(a), 2 * _floor(t)),
    "lcsseq": lambda t: lambda a, b: np.full(len(a), 2 * _floor(t)),
    "normalized_levenshtein": lambda t: lambda a, b: _floor(t * np.maximum(a, b)),
    "normalized_indel": lambda t: lambda a, b: _floor(t * (np.asarray(a) + b)),
}
# Below this many pairs, comparing all of them costs less than building the filter.
BRUTE_PAIRS = 2_000_000
# Shortest mean segment for which the filter prunes: shorter ones match anywhere.
MIN_SEGMENT = 3
# Distance cells computed at once by the brute-force path (bounds its memory),
# in blocks of at least BRUTE_BLOCK_ROWS rows (a call prepares the other side
# once). A self-join compares a block with the rows after its first: the
# block's own square is computed whole, so narrow blocks waste less (1M
# cells: 4 % of FEBRL2's 5,000 records instead of 16 % with 4M).
BRUTE_BLOCK_CELLS = 1_000_000
BRUTE_BLOCK_ROWS = 64


def levenshtein_bound(metric, threshold):
    """``bound(len_a, len_b)`` implied by ``metric <= threshold``, or None."""
    make = LEVENSHTEIN_BOUNDS.get(get_metric(metric).name)
    return None if make is None else make(threshold)


def choose_join_method(left, right, metric, threshold):
    """``"partition"`` where the filter prunes and the sides are large, else ``"brute"``."""
    bound = levenshtein_bound(metric, threshold)
    n_pairs = len(left) * len(left if right is None else right)
    if bound is None or n_pairs <= BRUTE_PAIRS:
        return "brute"
    lengths = np.fromiter(map(len, left), np.int64, len(left))
    segments = lengths / (bound(lengths, lengths) + 1)
    return "partition" if np.median(segments) >= MIN_SEGMENT else "brute"


def join_blocks(left, right, metric, threshold, *, method, n_jobs=None):
    """Blocks ``(left_rows, right_rows, distances)`` of every pair within ``threshold``.

    ``right=None`` is a self-join: each pair once with ``left_rows <
    right_rows``, no pair of an item with itself. Within a block pairs are
    sorted by left then right row; blocks come in no particular order.
    Repeated strings are compared once (:mod:`._distinct`), so copies cost
    blocks of pairs, not comparisons or memory.
    """
    spec = get_metric(metric)
    engine = partial(_distinct_join, metric=spec, threshold=threshold, method=method, n_jobs=n_jobs)
    yield from distinct_pairs(left, right, spec, threshold, engine)


def distinct_pairs(left, right, metric, threshold, engine):
    """The blocks of ``engine(left, right)`` (a join of lists without copies),
    run on the distinct strings when there are copies, and expanded to them
    (:mod:`._distinct`)."""
    distinct_left = Distinct(left)
    distinct_right = None if right is None else Distinct(right)
    if not distinct_left.repeated and (right is None or not distinct_right.repeated):
        yield from engine(left, right)
        return
    blocks = engine(distinct_left.strings, None if right is None else distinct_right.strings)
    yield from expanded_pairs(blocks, distinct_left, distinct_right)
    if right is None:
        yield from copies_pairs(distinct_left, self_distances(metric, distinct_left), threshold)


def _distinct_join(left, right, *, metric, threshold, method, n_jobs):
    if method == "partition":
        return _partition_join(left, right, metric, threshold, n_jobs)
    return _brute_join(left, right, metric, threshold, n_jobs)


def _brute_join(left, right, metric, threshold, n_jobs):
    spec = get_metric(metric)
    other = left if right is None else right
    prefix = None
    if PrefixBound.applies(spec):
        bound = levenshtein_bound(spec, threshold)
        prefix = PrefixBound(spec, bound, left, other, n_jobs)
    block = max(BRUTE_BLOCK_ROWS, BRUTE_BLOCK_CELLS // max(len(other), 1))
    for begin in range(0, len(left), block):
        # A self-join compares a row only with the rows after it.
        first = begin + 1 if right is None else 0
        if first >= len(other):
            break
        rows = np.arange(begin, min(begin + block, len(left)))
        bounded = rows[:0] if prefix is None else prefix.rows(rows)
        if bounded.size:
            pairs = prefix.candidates(left, bounded, first)
            pair_rows, columns = _upper(*pairs) if right is None else pairs
            yield _verified(spec, left, other, pair_rows, columns, threshold, n_jobs)
            rows = np.setdiff1d(rows, bounded)
        if rows.size:
            yield _compared(spec, left, other, rows, first, threshold, n_jobs, right is None)


def _compared(spec, left, other, rows, first, threshold, n_jobs, self_join):
    """Pairs within ``threshold`` of ``left[rows]`` and ``other[first:]``, every pair compared."""
    pair_rows, columns, distances = pairwise_distances_within(
        left[rows], other[first:], spec, limits=threshold, n_jobs=n_jobs, check_input=False
    )
    pairs = rows[pair_rows], columns + first, distances
    return _upper(*pairs) if self_join else pairs


def _upper(rows, columns, *values):
    """The pairs of a self-join's block with ``rows < columns`` (each pair once, no self-pair)."""
    keep = columns > rows
    return (rows[keep], columns[keep], *(value[keep] for value in values))


def _partition_join(left, right, metric, threshold, n_jobs):
    spec = get_metric(metric)
    bound = levenshtein_bound(spec, threshold)
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
        yield _verified(spec, left, index_side, probe_rows, index_rows, threshold, n_jobs)
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


def _verified(spec, left, right, left_rows, right_rows, threshold, n_jobs):
    workers = 1 if n_jobs is None else -1 if n_jobs < 0 else n_jobs
    distances = np.asarray(
        spec.paired(left[left_rows], right[right_rows], score_cutoff=threshold, workers=workers)
    )
    keep = distances <= threshold
    left_rows, right_rows, distances = left_rows[keep], right_rows[keep], distances[keep]
    order = np.lexsort((right_rows, left_rows))
    return left_rows[order], right_rows[order], distances[order]


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
