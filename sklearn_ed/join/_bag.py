"""The bag distance: a lower bound of the Levenshtein distance from character counts.

The bag distance of two strings is ``max(|A - B|, |B - A|)`` for their
multisets of characters ``A`` and ``B`` (Bartolini, Ciaccia and Patella,
"String matching with metric trees using an approximate distance", SPIRE
2002). An edit changes the multisets by one character on at most each side
(a substitution removes one and adds one, an insertion or a deletion one),
so it changes each difference by at most one: ``bag <= levenshtein``.
Counting characters in fewer buckets (code point modulo the bucket count)
only merges counts, and ``|x + y| <= |x| + |y|``: the bucketed difference is
at most the true one, still a lower bound.

The partition join checks its candidate pairs with it first: a pair that
shares one segment ("smith") but little else is ruled out in some tens of
nanoseconds, before rapidfuzz computes a distance.
"""

from dataclasses import dataclass

import numpy as np
from joblib import effective_n_jobs
from numba import njit

from ..utils import map_in_threads, to_code_points

# Buckets of the character counts: 64 bytes a string.
N_BUCKETS = 64
# Longest strings the per-length limit table is built for (4,097 x 4,097).
MAX_TABLE_LENGTH = 4096
# Pairs a thread compares at least.
_PAIRS_PER_THREAD = 100_000


@dataclass
class CharacterCounts:
    """Each string's characters counted in buckets (at most 255 each), and its length."""

    counts: np.ndarray  # uint8, (n_strings, N_BUCKETS)
    lengths: np.ndarray  # int64, (n_strings,)


def character_counts(strings, n_buckets=N_BUCKETS):
    """The :class:`CharacterCounts` of ``strings``."""
    code_points, offsets = to_code_points(list(strings))
    offsets = np.asarray(offsets, dtype=np.int64)
    return CharacterCounts(_counted(code_points, offsets, n_buckets), np.diff(offsets))


@njit(cache=True, nogil=True)
def _counted(code_points, offsets, n_buckets):
    counts = np.zeros((len(offsets) - 1, n_buckets), dtype=np.uint8)
    for row in range(len(offsets) - 1):
        for position in range(offsets[row], offsets[row + 1]):
            bucket = code_points[position] % n_buckets
            if counts[row, bucket] < 255:
                counts[row, bucket] += 1
    return counts


def limit_table(bound, left_lengths, right_lengths):
    """``table[i, j] = bound(i, j)`` for every length pair up to the longest of
    each side, or None beyond ``MAX_TABLE_LENGTH``."""
    left_max = int(left_lengths.max(initial=0))
    right_max = int(right_lengths.max(initial=0))
    if max(left_max, right_max) > MAX_TABLE_LENGTH:
        return None
    left, right = np.meshgrid(np.arange(left_max + 1), np.arange(right_max + 1), indexing="ij")
    return np.asarray(bound(left.ravel(), right.ravel()), dtype=np.int64).reshape(left.shape)


def bag_bound_within(left, right, left_rows, right_rows, limits, n_jobs=None):
    """Whether the bag distance of each pair is at most its limit.

    Parameters
    ----------
    left, right : CharacterCounts
        The two sides (:func:`character_counts`).
    left_rows, right_rows : ndarray of int64
        The pairs, as rows of each side.
    limits : ndarray of int64
        The largest Levenshtein distance of interest for strings of lengths
        ``i`` and ``j`` is ``limits[i, j]`` (:func:`limit_table`).
    n_jobs : int, default=None
        Threads, each comparing a share of the pairs.

    Returns
    -------
    within : ndarray of bool
        False only for pairs whose Levenshtein distance exceeds their limit.
    """
    left_rows = np.asarray(left_rows, dtype=np.int64)
    right_rows = np.asarray(right_rows, dtype=np.int64)
    within = np.empty(len(left_rows), dtype=np.bool_)
    n_threads = max(1, min(effective_n_jobs(n_jobs), len(left_rows) // _PAIRS_PER_THREAD))
    edges = np.linspace(0, len(left_rows), n_threads + 1).astype(np.int64)

    def compare(part):
        rows = slice(edges[part], edges[part + 1])
        within[rows] = _within(
            left.counts, right.counts, left.lengths, right.lengths,
            left_rows[rows], right_rows[rows], limits,
        )  # fmt: skip

    map_in_threads(compare, list(range(n_threads)), n_threads)
    return within


@njit(cache=True, nogil=True)
def _within(left_counts, right_counts, left_lengths, right_lengths, left_rows, right_rows, limits):
    within = np.empty(len(left_rows), dtype=np.bool_)
    for pair in range(len(left_rows)):
        left_row, right_row = left_rows[pair], right_rows[pair]
        surplus = deficit = 0
        for bucket in range(left_counts.shape[1]):
            difference = np.int64(left_counts[left_row, bucket]) - np.int64(
                right_counts[right_row, bucket]
            )
            if difference > 0:
                surplus += difference
            else:
                deficit -= difference
        limit = limits[left_lengths[left_row], right_lengths[right_row]]
        within[pair] = max(surplus, deficit) <= limit
    return within
