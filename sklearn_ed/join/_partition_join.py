"""The partition join: the candidates of the partition filter, verified.

Only the candidates of the partition filter (:mod:`._partition`) are
compared, which is lossless for the metrics whose threshold implies a
Levenshtein bound: those whose :class:`~sklearn_ed.distances.Metric` has a
``levenshtein_radius`` (Levenshtein, Indel, OSA, Damerau-Levenshtein,
LCSseq and the normalized Levenshtein and Indel; the proofs are in
:func:`~sklearn_ed.distances.edit_radius`'s module). Jaro, Jaro-Winkler,
token_set and Hamming have none: they are joined by ``"brute"``.
"""

from functools import partial

import numpy as np

from ..distances import pairwise_distances_within
from ..utils import iter_in_threads, pair_order
from ._bag import bag_bound_within, character_counts, limit_table
from ._brute import block_rows
from ._partition import PartitionFilter
from ._verify import verified

# A sample of the partition join draws its rows from this many lengths at
# most, this many rows from each length it draws (fewer rows, fewer lengths).
SAMPLED_LENGTHS = 8
ROWS_PER_LENGTH = 16


def partition_refusal(spec, limit):
    """Why the partition filter cannot serve ``spec``, or None."""
    if spec.levenshtein_radius is None:
        return (
            f"method='partition' needs a metric whose threshold bounds the Levenshtein "
            f"distance; {spec.name!r} has none. Use method='brute' or 'auto'."
        )
    return None


def partition_join(left, right, spec, threshold, n_jobs):
    """The blocks of pairs within ``threshold`` among the candidates of the filter."""
    return PartitionJoin(left, right, spec, threshold, n_jobs).blocks()


class PartitionJoin:
    """A partition join, built (index, windows, bag-distance tables) and ready
    to run a sample of its probe rows, then the rest.

    The plan ``method="auto"`` times (:func:`~._auto.choose_join_method`):
    :meth:`sample` probes random rows and keeps their pairs, and
    :meth:`blocks` gives those and the pairs of the other rows.
    """

    def __init__(self, left, right, spec, threshold, n_jobs):
        self.left, self.right, self.spec = left, right, spec
        self.threshold, self.n_jobs = threshold, n_jobs
        self.index_side = left if right is None else right
        bound = spec.levenshtein_radius(threshold)
        # The probing threads check the bag distance of their own candidates.
        sides = _Sides(left, self.index_side, bound)
        self.filter = PartitionFilter(
            self.index_side,
            left,
            bound,
            self_join=right is None,
            pair_filter=sides.bag_filtered,
            n_jobs=n_jobs,
        )
        self.is_short = np.zeros(len(self.index_side), dtype=bool)
        self.is_short[self.filter.short] = True
        self.sampled = np.zeros(len(left), dtype=bool)
        # Rows of one length are sampled in a random order: in a self-join a
        # row meets only the rows before it, so the first rows would cost less.
        # Sorted by length, then in that order, with a cursor per length: a
        # sample takes the next rows of its lengths (finding them among all
        # rows on each sample cost 1 ms of an 8-row sample's 2 on 100,000 names).
        random_order = np.argsort(np.random.default_rng(0).permutation(len(left)))
        self.by_length = np.lexsort((random_order, self.filter.probe_lengths))
        self.sorted_lengths = self.filter.probe_lengths[self.by_length]
        self.lengths, self.length_starts = np.unique(self.sorted_lengths, return_index=True)
        self.length_ends = np.append(self.length_starts[1:], len(self.by_length))
        self.cursors = self.length_starts.copy()
        self._random = np.random.default_rng(0)
        self.sampled_blocks = []

    def sample(self, rows):
        """Probe as many rows as ``rows`` (random probe rows) holds, in one
        thread, and keep their pairs; the share of the probe rows sampled.

        A probe's cost depends on its length (short words at a tight
        threshold meet few candidates, long ones many), and each length is
        a task of fixed cost. So the rows are drawn from a few lengths,
        spread over the lengths' distribution: those at evenly spaced
        quantiles of the rows sorted by length, from a random start (a
        systematic sample, each length drawn in proportion to its rows).
        On 10,000 words under normalized Indel within 0.2, 128 rows from 8
        lengths estimated the join within 20 %, where 2 random lengths
        were off by up to a factor of two.
        """
        probes = self._spread_rows(len(rows))
        self.sampled[probes] = True
        self.sampled_blocks += list(self._verified(probes, n_jobs=1))
        return max(len(probes), 1) / len(self.left)

    @property
    def kept(self):
        """The share of the probe rows whose pairs the samples found."""
        return float(self.sampled.mean()) if len(self.sampled) else 0.0

    def blocks(self):
        """Every block of pairs: those of the sampled rows, then the others'."""
        yield from self.sampled_blocks
        yield from self._verified(np.flatnonzero(~self.sampled))

    def _spread_rows(self, n_rows):
        """About ``n_rows`` unsampled rows from lengths spread over the rows' lengths."""
        n_lengths = min(SAMPLED_LENGTHS, max(2, n_rows // ROWS_PER_LENGTH))
        quantiles = (self._random.random() + np.arange(n_lengths)) / n_lengths
        drawn = self.sorted_lengths[(quantiles * len(self.sorted_lengths)).astype(np.int64)]
        lengths, times_drawn = np.unique(drawn, return_counts=True)
        per_length = -(-n_rows // n_lengths)
        rows = [
            self._take(length, per_length * times) for length, times in zip(lengths, times_drawn)
        ]
        return np.concatenate(rows)

    def _take(self, length, n_rows):
        """The next ``n_rows`` unsampled probe rows of ``length`` (fewer where
        fewer are left), in a random order."""
        at = np.searchsorted(self.lengths, length)
        begin = self.cursors[at]
        end = min(begin + n_rows, self.length_ends[at])
        self.cursors[at] = end
        return self.by_length[begin:end]

    def _verified(self, probes, n_jobs=None):
        """The pairs within the threshold of the ``probes``: of their candidates,
        and with the short indexed rows; on ``n_jobs`` threads (the join's by default)."""
        n_jobs = self.n_jobs if n_jobs is None else n_jobs
        for probe_rows, index_rows in self.filter.blocks(probes, n_jobs):
            if self.right is None:  # each pair once (index row < probe row); short rows apart
                keep = ~self.is_short[probe_rows]
                probe_rows, index_rows = index_rows[keep], probe_rows[keep]
            yield verified(
                self.spec,
                self.left,
                self.index_side,
                probe_rows,
                index_rows,
                self.threshold,
                n_jobs,
            )
        if self.filter.short.size and probes.size:
            blocks = _short_blocks(self, probes)
            yield from iter_in_threads(partial(_short_pairs, self), blocks, n_jobs)


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


def _short_blocks(join, probes):
    """``(short rows, probes)`` blocks: the short indexed rows of each length
    with the ``probes`` whose length their bound allows, as many rows a block
    as brute force compares with that many probes.

    Compared in blocks on the join's threads, each verifying and sorting its
    own pairs, and each length only with the lengths its bound allows (a
    3-letter word never meets a 10-letter one within 3 edits). One call
    for all of them against every probe left the sorting to one thread: on
    10,000 words within 3 edits (a third of them too short to cut, with 1.1
    of the 1.2 million pairs) they took 0.35 to 0.39 s on two threads, 0.17
    to 0.19 s in blocks.
    """
    short = join.filter.short
    short_lengths = join.filter.index_lengths[short]
    probe_lengths = join.filter.probe_lengths[probes]
    for length in np.unique(short_lengths):
        rows = short[short_lengths == length]
        bounds = join.filter.bound(np.full(len(probes), length), probe_lengths)
        partners = probes[np.abs(probe_lengths - length) <= bounds]
        if not partners.size:
            continue
        step = block_rows(len(partners))
        for begin in range(0, len(rows), step):
            yield rows[begin : begin + step], partners


def _short_pairs(join, block):
    """The pairs within the threshold of a block of short indexed rows and its probes."""
    short, probes = block
    is_short, right = join.is_short, join.right
    if right is None:  # a pair of two short rows is kept from its larger row's probe
        probes = probes[~is_short[probes] | (probes > short[0])]
    rows, columns, distances = pairwise_distances_within(
        join.index_side[short],
        join.left[probes],
        join.spec,
        limits=join.threshold,
        n_jobs=1,
        check_input=False,
    )
    index_rows, columns = short[rows], probes[columns]
    if right is None:
        # Pairs of two short rows appear twice (keep one); never an item with itself.
        keep = (index_rows != columns) & ~(is_short[columns] & (columns < index_rows))
        low = np.minimum(index_rows[keep], columns[keep])
        high = np.maximum(index_rows[keep], columns[keep])
        order = pair_order(low, high)
        return low[order], high[order], distances[keep][order]
    order = pair_order(columns, index_rows)
    return columns[order], index_rows[order], distances[order]
