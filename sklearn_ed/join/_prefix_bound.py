"""A lower bound of an edit distance from the first 64 characters of one string.

rapidfuzz compares a string of at most 64 characters with many others
several at once (its SIMD path, one machine word per pattern); a longer
string takes a slower, blocked path, about three times dearer per pair on
person records of about 70 characters. For a distance where deleting a
character costs one and the triangle inequality holds (Levenshtein, Indel),
``d(a[:64], a) = len(a) - 64``, so

    d(a, b) >= d(a[:64], b) - (len(a) - 64).

A brute-force join of strings a little longer than 64 characters computes
this bound for every pair on the fast path and the exact distance only for
the pairs the bound does not rule out: on FEBRL2's token-sorted records
(median 71 characters, similarity 0.66) 3 % of the pairs. The longer the
string, the larger the slack: the bound is tried from 65 up to ``LONGEST``
characters, and dropped for the rest of a join whose first block it did
not prune. A string of at most 64 characters is on the fast path already:
its bound would be its distance, and verifying the pairs it kept would
compute that distance again (words within 3 edits: 0.61 s where the
direct comparison takes 0.44 s). A metric offers it by naming such a distance, one its threshold
bounds by its Levenshtein radius, in its record (``Metric.prefix_distance``:
Levenshtein for itself and its normalized form, Indel likewise).
"""

from functools import partial

import numpy as np
from numba import njit

from ..distances import chunk_per_worker, get_metric, map_chunks, pairwise_block
from ._bag import limit_table

SIMD_WIDTH = 64
# Longest strings the bound is tried for: beyond, its slack rules out little.
LONGEST = 96
# The bound stops being computed when it keeps more than this share of pairs.
WORTH_KEEPING = 0.5


class PrefixBound:
    """The prefix bound of one join: which rows it is tried for, and their pairs.

    Parameters
    ----------
    spec : Metric
        The join's metric; ``applies(spec)`` must hold.
    bound : callable
        ``bound(len_a, len_b)``: the largest distance of ``spec.prefix_distance``
        a pair within the join's threshold may have (its ``levenshtein_radius``).
    left, other : ndarray of str
        The join's sides (``other`` is ``left`` in a self-join).
    n_jobs : int or None
    """

    def __init__(self, spec, bound, left, other, n_jobs):
        self.distance = get_metric(spec.prefix_distance)
        self.other, self.n_jobs = other, n_jobs
        self.left_lengths = np.fromiter(map(len, left), np.int64, len(left))
        self.other_lengths = np.fromiter(map(len, other), np.int64, len(other))
        rows = self.left_lengths <= LONGEST
        # The largest distance allowed per pair of lengths (None: strings too long).
        self.limits = limit_table(bound, self.left_lengths[rows], self.other_lengths)
        self.pruning = self.limits is not None

    @staticmethod
    def applies(spec):
        """Whether ``spec`` names a distance its prefix bound is computed in."""
        return spec.prefix_distance is not None

    def rows(self, rows):
        """Those of ``rows`` (of the left side) the bound is tried for."""
        if not self.pruning:
            return rows[:0]
        lengths = self.left_lengths[rows]
        return rows[(lengths > SIMD_WIDTH) & (lengths <= LONGEST)]

    def candidates(self, left, rows, first, last=None, n_jobs=None):
        """``(rows, columns)`` of the pairs of ``left[rows]`` with ``other[first:last]``
        the bound does not rule out, on ``n_jobs`` threads (the bound's by default)."""
        n_jobs = self.n_jobs if n_jobs is None else n_jobs
        lengths = self.left_lengths[rows]
        slack = np.maximum(lengths - SIMD_WIDTH, 0)
        other_lengths = self.other_lengths[first:last]
        cutoff = self.limits[lengths][:, other_lengths.min() :].max() + slack.max()
        chunks = chunk_per_worker(np.arange(len(rows)), n_jobs)
        task = partial(_pairs_under_bound, self.distance, other_lengths, self.limits, cutoff)
        prefixes = [left[row][:SIMD_WIDTH] for row in rows]
        found = map_chunks(task, prefixes, self.other[first:last], [slack, lengths], chunks, n_jobs)
        pair_rows = np.concatenate([chunk[local] for chunk, (local, _) in zip(chunks, found)])
        columns = np.concatenate([columns for _, columns in found]) + first
        # The strings of one join are alike: a block the bound did not prune
        # stops it for the blocks after.
        self.pruning = len(columns) <= WORTH_KEEPING * len(rows) * len(other_lengths)
        return rows[pair_rows], columns


def _pairs_under_bound(distance, other_lengths, limits, cutoff, prefixes, other, slack, lengths):
    """The pairs of a chunk of prefixes whose bound is within their limit."""
    block = np.asarray(pairwise_block(distance, prefixes, other, [cutoff]))
    return _bounded(block, slack, lengths, other_lengths, limits)


@njit(cache=True, nogil=True)
def _bounded(block, slack, lengths, other_lengths, limits):
    keep = np.zeros(block.shape, dtype=np.bool_)
    for row in range(block.shape[0]):
        for column in range(block.shape[1]):
            limit = limits[lengths[row], other_lengths[column]]
            keep[row, column] = block[row, column] - slack[row] <= limit
    return np.nonzero(keep)
