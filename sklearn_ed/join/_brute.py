"""The brute-force join: every pair compared with rapidfuzz's score cut-off, a
block of rows at a time. Two bounds rule pairs out first where they apply:

- the characters two strings share, where it keeps few pairs: through the
  metric's ``brute_force_bound`` (normalized Levenshtein and Indel, Jaro,
  Jaro-Winkler) or its Levenshtein radius (Levenshtein, Indel, OSA,
  Damerau-Levenshtein, LCSseq). It costs about 1 ns a pair where a
  distance costs 4 to 80, and on token-sorted person records within
  similarity 0.85 of normalized Indel it keeps 3 pairs in 100,000
  (:class:`~sklearn_ed.distances.bounds._bag_bounds.BagPairFilter`;
  ``benchmarks/bench_shared_characters.py``);
- otherwise, for strings of 65 to 96 characters, the prefix bound
  (:mod:`._prefix_bound`).
"""

from dataclasses import dataclass
from time import perf_counter

import numpy as np
from joblib import effective_n_jobs

from ..distances import pairwise_distances_within, radius_pair_filter
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
# pairs, and what it compares is not kept (1-6 ms in one thread). Bounded
# by the characters shared, a pair costs a twentieth or less: more cells,
# a quarter of the time.
BRUTE_SAMPLE_CELLS = 2**16
BAG_SAMPLE_CELLS = 2**18
# The largest share of pairs the shared characters may keep for brute force
# to bound pairs by them: a kept pair is compared on its own, at several
# times a pair's share of a block's call. On 10,000 words, keeping 1.4 % of
# the pairs (within 2 edits) made the join 2.0 times faster than comparing
# them all, 2.5 % (Indel within 4) 1.3 times, 7.4 % (within 3 edits) 0.8
# times (bench_shared_characters).
BAG_MAX_PASS_RATE = 0.04
# The sample that decides it, and times the join bounded by them: rows spread
# over one side, a window of items of the other.
SAMPLE_ROWS = 64
SAMPLE_ITEMS = 4096
# Bounded by the characters shared, a block's memory is the pairs it keeps,
# not its cells: blocks of about BAG_BLOCK_KEPT_PAIRS kept pairs (64 MiB of
# pairs), at least BAG_BLOCKS_PER_THREAD per thread to share the work out.
# The filter's rate per pair did not depend on the rows of a block (0.8-1.2
# ns), but each block pays fixed costs (the verification's call, sorting its
# pairs): 64-row blocks made 100,000 token-sorted names within similarity
# 0.85 of normalized Indel take 3.4 s, larger ones 2.4 s.
BAG_BLOCK_KEPT_PAIRS = 2**22
BAG_BLOCKS_PER_THREAD = 8


class BruteJoin:
    """A brute-force join, ready to time on a sample of its cells or to run.

    The plan ``method="auto"`` times (:func:`~._auto.choose_join_method`):
    :meth:`sample` runs one block of rows against a random window of the
    other side, as many cells as the rows asked for would compare in all (a
    block's call prepares the other side once, which a few rows alone would
    pay for many times over), through the same path as the join (the prefix
    bound included), and keeps nothing; :meth:`blocks` runs the join.
    Bounded by the characters shared, the sample is the rows and window
    whose filter decided that bound applies, and the whole filter is built
    by :meth:`blocks` (``deferred_seconds``: its estimated time).
    """

    def __init__(self, left, right, spec, threshold, n_jobs):
        self.left, self.right, self.spec = left, right, spec
        self.threshold, self.n_jobs = threshold, n_jobs
        self.other = left if right is None else right
        self.block = block_rows(len(self.other))
        n = len(left)
        self.n_pairs = n * (n - 1) // 2 if right is None else n * len(right)
        # The filter of the characters shared is built on every string only
        # when the join runs: its sample's strings tell whether it applies,
        # and its build time scaled up is the preparation still to come. Built
        # at once, it took 30 ms of "auto"'s 55 ms of overhead on 100,000
        # person records, which the partition filter joined in 0.39 s.
        self.bag, self.deferred_seconds = None, 0.0
        self._sampled = _SampledBag.of(spec, left, self.other, threshold)
        if self._sampled is not None:
            n_strings = len(left) + (0 if right is None else len(right))
            self.deferred_seconds = self._sampled.seconds * n_strings / self._sampled.n_strings
        self.sample_cells = BRUTE_SAMPLE_CELLS if self._sampled is None else BAG_SAMPLE_CELLS
        self.prefix = None
        if self._sampled is None and PrefixBound.applies(spec):
            bound = spec.levenshtein_radius(threshold)
            self.prefix = PrefixBound(spec, bound, left, self.other, n_jobs)
        self._random = np.random.default_rng(0)
        # Bounded by the characters shared, every sample is the same work.
        self.settled = self._sampled is not None

    @property
    def bounded_by_characters(self):
        """Whether the join bounds pairs by the characters they share."""
        return self._sampled is not None

    def sample(self, rows):
        """Compare the block of rows that begins at ``rows[0]`` with a random
        window of the other side, of as many cells as ``rows`` against the whole
        other side (at most ``sample_cells``), in one thread; the share of
        the join's pairs compared. Bounded by the characters shared, the
        rows and window whose filter decided that are compared instead (a
        full sample costs a quarter of a millisecond: its rate is known
        from the first round)."""
        if self._sampled is not None:
            return self._sampled.compared(self) / max(self.n_pairs, 1)
        begin = int(rows[0])
        block = np.arange(begin, min(begin + self.block, len(self.left)))
        cells = min(len(rows) * len(self.other), self.sample_cells)
        # A larger sample would compare as many cells: its rate is known.
        self.settled = cells == self.sample_cells
        width = min(len(self.other), -(-cells // len(block)))
        first = int(self._random.integers(0, len(self.other) - width + 1))
        # Every pair of the window, below a self-join's diagonal too: the work
        # of as many pairs of the join (a window below the block's rows would
        # otherwise count nothing: 300,000 records were estimated at 0.8 s for
        # a 27 s join).
        for _ in self._block_pairs(block, first, first + width, n_jobs=1, upper=False):
            pass
        return max(len(block) * width, 1) / max(self.n_pairs, 1)

    def blocks(self):
        """Every block of pairs, a block of rows per thread: the work between
        two distance calls (bounds, pairs kept, verification) runs in the
        block's thread too, where one block on all threads would wait on it."""
        if self._sampled is not None and self.bag is None:
            self.bag = _pair_filter(self.spec, self.left, self.other, self.threshold)
            self.block = bag_block_rows(
                len(self.left), len(self.other), self._sampled.kept_share, self.n_jobs
            )
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

    def _block_pairs(self, rows, first, last, n_jobs, upper=True):
        """The pairs within the threshold of ``left[rows]`` and ``other[first:last]``
        (a self-join's upper triangle, unless not ``upper``): through the
        bounds that apply."""
        if self.bag is not None:
            upper = upper and self.right is None
            pair_rows, columns = self.bag.pairs(rows, first, last, upper=upper)
            yield verified(
                self.spec, self.left, self.other, pair_rows, columns, self.threshold, n_jobs
            )
            return
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


def _pair_filter(spec, left, other, threshold):
    """The pair filter of the characters shared, where the metric has one (its
    brute-force bound, or its Levenshtein radius); else None."""
    itself = left is other
    if spec.brute_force_bound is not None:
        return spec.brute_force_bound(other).pair_filter(None if itself else left, threshold)
    if spec.levenshtein_radius is not None:
        return radius_pair_filter(
            left,
            None if itself else other,
            spec.levenshtein_radius(threshold),
            indel=spec.prefix_distance == "indel",
        )
    return None


@dataclass(frozen=True)
class _SampledBag:
    """The pair filter of the characters shared, built on ``SAMPLE_ROWS`` rows
    spread over the left side and a window of ``SAMPLE_ITEMS`` in the middle
    of the other: the pairs the join's sample compares, and how long it took
    to build for that many strings."""

    pair_filter: object
    rows: np.ndarray
    first: int
    n_items: int
    seconds: float
    kept_share: float

    @property
    def n_strings(self):
        return len(self.rows) + self.n_items

    @classmethod
    def of(cls, spec, left, other, threshold):
        """The sampled filter, or None where the metric has none or it keeps
        more than ``BAG_MAX_PASS_RATE`` of its pairs."""
        spread = np.linspace(0, len(left) - 1, min(SAMPLE_ROWS, len(left)))
        rows = np.unique(spread.astype(np.int64))
        first = max(0, (len(other) - SAMPLE_ITEMS) // 2)
        window = other[first : first + SAMPLE_ITEMS]
        start = perf_counter()
        pair_filter = _pair_filter(spec, left[rows], window, threshold)
        seconds = perf_counter() - start
        if pair_filter is None or not len(rows) or not len(window):
            return None
        kept = len(pair_filter.pairs(np.arange(len(rows)), 0, len(window))[0])
        kept_share = kept / (len(rows) * len(window))
        if kept_share > BAG_MAX_PASS_RATE:
            return None
        return cls(pair_filter, rows, first, len(window), seconds, kept_share)

    def compared(self, join):
        """Verify the sample's pairs the filter keeps, in one thread; the cells compared."""
        n_items = self.n_items
        pair_rows, columns = self.pair_filter.pairs(np.arange(len(self.rows)), 0, n_items)
        verified(
            join.spec, join.left, join.other, self.rows[pair_rows], columns + self.first,
            join.threshold, 1,
        )  # fmt: skip
        return len(self.rows) * n_items


def block_rows(n_items):
    """Rows compared at once with ``n_items`` items, every pair."""
    return max(BRUTE_BLOCK_ROWS, BRUTE_BLOCK_CELLS // max(n_items, 1))


def bag_block_rows(n_rows, n_items, kept_share, n_jobs):
    """Rows compared at once with ``n_items`` items through the filter of the
    characters shared, which keeps ``kept_share`` of the pairs; of ``n_rows``
    rows on ``n_jobs`` threads."""
    kept_per_row = max(kept_share * n_items, 1.0)
    by_memory = int(BAG_BLOCK_KEPT_PAIRS // kept_per_row)
    shared_out = -(-n_rows // (BAG_BLOCKS_PER_THREAD * effective_n_jobs(n_jobs)))
    return max(block_rows(n_items), min(by_memory, shared_out))


def brute_join(left, right, spec, threshold, n_jobs):
    """The blocks of pairs within ``threshold``, every pair compared."""
    return BruteJoin(left, right, spec, threshold, n_jobs).blocks()
