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


class BruteJoin:
    """A brute-force join, ready to time on a sample of its blocks or to run.

    The plan ``method="auto"`` times (:func:`~._auto.choose_join_method`):
    :meth:`sample` runs whole blocks of the join (a block's call prepares the
    other side once, which a few rows alone would pay for many times over),
    at random places, and keeps nothing; :meth:`blocks` runs the join.
    """

    def __init__(self, left, right, spec, threshold, n_jobs):
        self.left, self.right, self.spec = left, right, spec
        self.threshold, self.n_jobs = threshold, n_jobs
        self.other = left if right is None else right
        self.block = block_rows(self.other)
        n = len(left)
        self.n_pairs = n * (n - 1) // 2 if right is None else n * len(right)

    def sample(self, rows):
        """Run the blocks that begin at ``rows`` (random rows), at least one,
        at most enough to cover as many rows; the share of the join's pairs
        they compared."""
        compared = 0
        for begin in rows[: max(1, len(rows) // self.block)]:
            block = np.arange(begin, min(begin + self.block, len(self.left)))
            first = begin + 1 if self.right is None else 0
            if first < len(self.other):
                _compared(
                    self.spec,
                    self.left,
                    self.other,
                    block,
                    first,
                    self.threshold,
                    self.n_jobs,
                    self.right is None,
                )
                compared += len(block) * (len(self.other) - first)
        return max(compared, 1) / max(self.n_pairs, 1)

    def blocks(self):
        """Every block of pairs."""
        return brute_join(self.left, self.right, self.spec, self.threshold, self.n_jobs)


def block_rows(other):
    """Rows compared at once with ``other``."""
    return max(BRUTE_BLOCK_ROWS, BRUTE_BLOCK_CELLS // max(len(other), 1))


def brute_join(left, right, spec, threshold, n_jobs):
    """The blocks of pairs within ``threshold``, every pair compared."""
    other = left if right is None else right
    prefix = None
    if PrefixBound.applies(spec):
        prefix = PrefixBound(spec, spec.levenshtein_radius(threshold), left, other, n_jobs)
    block = block_rows(other)
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
