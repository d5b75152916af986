"""The brute-force join: every pair compared with rapidfuzz's score cut-off, a
block of rows at a time; strings of 65 to 96 characters first through the
prefix bound (:mod:`._prefix_bound`)."""

import numpy as np

from ..distances import pairwise_distances_within
from ._prefix_bound import PrefixBound
from ._verify import upper_pairs, verified

# Distance cells computed at once by the brute-force path (bounds its memory),
# in blocks of at least BRUTE_BLOCK_ROWS rows (a call prepares the other side
# once). A self-join compares a block with the rows after its first: the
# block's own square is computed whole, so narrow blocks waste less (1M
# cells: 4 % of FEBRL2's 5,000 records instead of 16 % with 4M).
BRUTE_BLOCK_CELLS = 1_000_000
BRUTE_BLOCK_ROWS = 64


def brute_cost(left, right, spec, limit):
    """Pairs compared: all of them."""
    return len(left) * len(left if right is None else right)


def brute_join(left, right, spec, threshold, n_jobs):
    """The blocks of pairs within ``threshold``, every pair compared."""
    other = left if right is None else right
    prefix = None
    if PrefixBound.applies(spec):
        prefix = PrefixBound(spec, spec.levenshtein_radius(threshold), left, other, n_jobs)
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
            pair_rows, columns = upper_pairs(*pairs) if right is None else pairs
            yield verified(spec, left, other, pair_rows, columns, threshold, n_jobs)
            rows = np.setdiff1d(rows, bounded)
        if rows.size:
            yield _compared(spec, left, other, rows, first, threshold, n_jobs, right is None)


def _compared(spec, left, other, rows, first, threshold, n_jobs, self_join):
    """Pairs within ``threshold`` of ``left[rows]`` and ``other[first:]``, every pair compared."""
    pair_rows, columns, distances = pairwise_distances_within(
        left[rows], other[first:], spec, limits=threshold, n_jobs=n_jobs, check_input=False
    )
    pairs = rows[pair_rows], columns + first, distances
    return upper_pairs(*pairs) if self_join else pairs
