"""The brute-force join: every pair compared with rapidfuzz's score cut-off, a
block of rows at a time; strings of 65 to 96 characters first through the
prefix bound (:mod:`._prefix_bound`)."""

import numpy as np

from ..distances import pairwise_distances_within
from ..utils import iter_in_threads
from ._prefix_bound import PrefixBound
from ._verify import upper_pairs, verified

# Distance cells computed at once by the brute-force path (bounds its memory),
# in blocks of at least BRUTE_BLOCK_ROWS rows (a call prepares the other side
# once). A self-join compares a block with the rows after its first: the
# block's own square is computed whole, so narrow blocks waste less (1M
# cells: 4 % of FEBRL2's 5,000 records instead of 16 % with 4M).
BRUTE_BLOCK_CELLS = 1_000_000
BRUTE_BLOCK_ROWS = 64
# Cells a sample compares at most: its rate is steady from a few thousand
# pairs, and what it compares is not kept (1-6 ms in one thread).
BRUTE_SAMPLE_CELLS = 2**16


class BruteJoin:
    """A brute-force join, ready to time on a sample of its cells or to run.

    The plan ``method="auto"`` times (:func:`~._auto.choose_join_method`):
    :meth:`sample` runs one block of rows against a random window of the
    other side, as many cells as the rows asked for would compare in all (a
    block's call prepares the other side once, which a few rows alone would
    pay for many times over), through the same path as the join (the prefix
    bound included), and keeps nothing; :meth:`blocks` runs the join.
    """

    def __init__(self, left, right, spec, threshold, n_jobs):
        self.left, self.right, self.spec = left, right, spec
        self.threshold, self.n_jobs = threshold, n_jobs
        self.other = left if right is None else right
        self.block = block_rows(self.other)
        n = len(left)
        self.n_pairs = n * (n - 1) // 2 if right is None else n * len(right)
        self.prefix = None
        if PrefixBound.applies(spec):
            bound = spec.levenshtein_radius(threshold)
            self.prefix = PrefixBound(spec, bound, left, self.other, n_jobs)
        self._random = np.random.default_rng(0)
        self.settled = False

    def sample(self, rows):
        """Compare the block of rows that begins at ``rows[0]`` with a random
        window of the other side, of as many cells as ``rows`` against the whole
        other side (at most ``BRUTE_SAMPLE_CELLS``), in one thread; the share of
        the join's pairs compared."""
        begin = int(rows[0])
        block = np.arange(begin, min(begin + self.block, len(self.left)))
        cells = min(len(rows) * len(self.other), BRUTE_SAMPLE_CELLS)
        # A larger sample would compare as many cells: its rate is known.
        self.settled = cells == BRUTE_SAMPLE_CELLS
        width = min(len(self.other), -(-cells // len(block)))
        first = int(self._random.integers(0, len(self.other) - width + 1))
        for _ in self._block_pairs(block, first, first + width, n_jobs=1):
            pass
        return max(len(block) * width, 1) / max(self.n_pairs, 1)

    def blocks(self):
        """Every block of pairs, a block of rows per thread: the work between
        two distance calls (bounds, pairs kept, verification) runs in the
        block's thread too, where one block on all threads would wait on it."""
        for pairs in iter_in_threads(self._row_block_pairs, self._row_blocks(), self.n_jobs):
            yield from pairs

    def _row_blocks(self):
        for begin in range(0, len(self.left), self.block):
            # A self-join compares a row only with the rows after it.
            first = begin + 1 if self.right is None else 0
            if first >= len(self.other):
                break
            yield np.arange(begin, min(begin + self.block, len(self.left))), first

    def _row_block_pairs(self, block):
        rows, first = block
        return list(self._block_pairs(rows, first, len(self.other), n_jobs=1))

    def _block_pairs(self, rows, first, last, n_jobs):
        """The pairs within the threshold of ``left[rows]`` and ``other[first:last]``
        (a self-join's upper triangle): through the prefix bound where it applies."""
        bounded = rows[:0] if self.prefix is None else self.prefix.rows(rows)
        if bounded.size:
            pairs = self.prefix.candidates(self.left, bounded, first, last, n_jobs)
            pair_rows, columns = upper_pairs(*pairs) if self.right is None else pairs
            yield verified(
                self.spec, self.left, self.other, pair_rows, columns, self.threshold, n_jobs
            )
            rows = np.setdiff1d(rows, bounded)
        if rows.size:
            pair_rows, columns, distances = pairwise_distances_within(
                self.left[rows],
                self.other[first:last],
                self.spec,
                limits=self.threshold,
                n_jobs=n_jobs,
                check_input=False,
            )
            pairs = rows[pair_rows], columns + first, distances
            yield upper_pairs(*pairs) if self.right is None else pairs


def block_rows(other):
    """Rows compared at once with ``other``."""
    return max(BRUTE_BLOCK_ROWS, BRUTE_BLOCK_CELLS // max(len(other), 1))


def brute_join(left, right, spec, threshold, n_jobs):
    """The blocks of pairs within ``threshold``, every pair compared."""
    return BruteJoin(left, right, spec, threshold, n_jobs).blocks()
