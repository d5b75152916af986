"""Cut a table into blocks by string length, and the pairs of blocks a join visits.

A distributed join compares blocks two at a time, each pair of blocks in
one task with the in-process engine (:mod:`sklearn_ed.join`), so no worker
holds more than two blocks. Blocks hold strings of neighbouring lengths: a
metric whose threshold bounds the Levenshtein distance
(``levenshtein_radius``) skips the pairs of blocks whose lengths are too far
apart for any pair within it. A length with more strings than a block holds
is spread over several blocks by a hash of the row, so copies of one string
(ten thousand blank names) never make one block larger than the others.
"""

from dataclasses import dataclass

import numpy as np

# Odd 64-bit constant of Fibonacci hashing: spreads consecutive rows evenly.
_SPREAD = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class LengthBlocks:
    """Which block each string goes to, from the count of strings of each length.

    Attributes
    ----------
    first_block : dict of int to int
        The first block of each length present.
    n_parts : dict of int to int
        How many blocks each length is spread over (1 for most).
    lengths : list of ndarray
        The lengths each block holds.
    """

    first_block: dict
    n_parts: dict
    lengths: list

    @property
    def n_blocks(self):
        return len(self.lengths)

    def of(self, rows, lengths):
        """The block of each string, from its global row and its length."""
        first = np.array([self.first_block[length] for length in lengths], dtype=np.int64)
        parts = np.array([self.n_parts[length] for length in lengths], dtype=np.int64)
        with np.errstate(over="ignore"):
            spread = (np.asarray(rows, dtype=np.uint64) + np.uint64(1)) * _SPREAD
        return first + ((spread >> np.uint64(33)) % parts.astype(np.uint64)).astype(np.int64)


def length_blocks(length_counts, block_size):
    """Blocks of about ``block_size`` strings in order of length.

    Parameters
    ----------
    length_counts : dict of int to int
        How many strings have each length.
    block_size : int
        Strings a block holds at most (a length with more is spread over
        blocks of at most this many, in expectation).

    Returns
    -------
    blocks : LengthBlocks
    """
    first_block, n_parts, lengths = {}, {}, []
    filled = block_size  # the open block is full: the first length opens one
    for length in sorted(length_counts):
        count = length_counts[length]
        if count > block_size:
            first_block[length], n_parts[length] = len(lengths), -(-count // block_size)
            lengths.extend([np.array([length])] * n_parts[length])
            filled = block_size
            continue
        if filled + count > block_size:
            lengths.append(np.empty(0, dtype=np.int64))
            filled = 0
        first_block[length], n_parts[length] = len(lengths) - 1, 1
        lengths[-1] = np.append(lengths[-1], length)
        filled += count
    return LengthBlocks(first_block, n_parts, lengths)


def block_pairs(left_blocks, right_blocks, spec, limit):
    """The pairs ``(a, b)`` of blocks that may hold a pair within ``limit``:
    every pair under a metric without a length bound; for a self-join
    (``right_blocks`` None) each pair once, with ``a <= b``."""
    self_join = right_blocks is None
    right_blocks = left_blocks if self_join else right_blocks
    radius = None if spec.levenshtein_radius is None else spec.levenshtein_radius(limit)
    pairs = []
    for a, left_lengths in enumerate(left_blocks.lengths):
        for b in range(a if self_join else 0, right_blocks.n_blocks):
            if radius is None or _lengths_meet(left_lengths, right_blocks.lengths[b], radius):
                pairs.append((a, b))
    return pairs


def _lengths_meet(left_lengths, right_lengths, radius):
    """Whether two strings of these lengths can be within the Levenshtein radius:
    their distance is at least the difference of their lengths."""
    left, right = (grid.ravel() for grid in np.meshgrid(left_lengths, right_lengths))
    return bool((np.abs(left - right) <= radius(left, right)).any())
