"""rapidfuzz's ``cdist`` with queries longer than its SIMD width compared as choices.

``rapidfuzz.process.cdist`` packs queries of up to :data:`SIMD_WIDTH`
characters side by side in vector registers; a longer query is compared
with each choice on its own, by the multi-word bit-parallel algorithm. On
50,000 person records after ``default_process``, a long query's pair cost
560 to 1,110 ns under Levenshtein, normalized Levenshtein, OSA and
Jaro-Winkler, and 106 to 243 ns the other way round, the short items
packed as queries and the long query their choice; under Indel and
LCSseq, 96 to 138 ns against 32 to 72 (``benchmarks/bench_oriented_cdist``,
results/oriented_cdist.txt). Ad hoc, one long query alone costs Indel and
LCSseq less as it is (0.12 against 0.21 us a pair): they turn from four.
Brute force's distances of queries with two random edits, 3.2 % of them
long, took 1.34 times less time under normalized Levenshtein.

Every scorer given here is symmetric, ``d(x, y) = d(y, x)`` with or without
a cut-off, so a long row is the column of the turned call.
"""

import numpy as np
from rapidfuzz import process

# Longest query rapidfuzz packs with others (64-bit lanes).
SIMD_WIDTH = 64
# Long rows from which turning them pays (the costs above): under the
# Levenshtein family (Levenshtein, OSA, Jaro, Jaro-Winkler) from the first;
# Indel and LCSseq compare one long query fast, and gain from four.
TURN_LEVENSHTEIN_LIKE = 1
TURN_LCS_LIKE = 4
# Items of the other side whose lengths are read to tell it is mostly short.
_SAMPLED = 64


def oriented_cdist(X, Y, *, turn_from, **cdist_args):
    """``process.cdist(X, Y, **cdist_args)``, with the rows of ``X`` longer than
    :data:`SIMD_WIDTH` computed as ``cdist(Y, those rows).T``.

    Parameters
    ----------
    X, Y : sequence of str
        Queries and choices.
    turn_from : int or None
        Least number of long rows that are turned (their cost against short
        choices is the scorer's); None never turns them. ``Y`` must be
        mostly short too (half of :data:`_SAMPLED` items spread over it).
    **cdist_args
        ``scorer``, ``dtype``, ``score_cutoff``, ``workers`` and the rest of
        ``cdist``'s keywords; ``dtype`` must be given.

    Returns
    -------
    distances : ndarray of shape (len(X), len(Y))
        ``cdist``'s values, the same whichever way a row was computed.
    """
    if turn_from is None or len(X) < turn_from:
        return process.cdist(X, Y, **cdist_args)
    long_rows = [row for row, text in enumerate(X) if len(text) > SIMD_WIDTH]
    if len(long_rows) < turn_from or not _mostly_short(Y):
        return process.cdist(X, Y, **cdist_args)
    # The long rows' places hold empty strings, which cost nothing to compare:
    # the short rows are written in place, and only the long rows copied.
    blanked = list(X)
    for row in long_rows:
        blanked[row] = ""
    distances = process.cdist(blanked, Y, **cdist_args)
    distances[long_rows] = process.cdist(Y, [X[row] for row in long_rows], **cdist_args).T
    return distances


def _mostly_short(Y):
    """Whether at least half of up to :data:`_SAMPLED` items spread over ``Y``
    are at most :data:`SIMD_WIDTH` long."""
    if not len(Y):
        return False
    sampled = np.linspace(0, len(Y) - 1, num=min(_SAMPLED, len(Y))).astype(np.int64)
    return 2 * sum(len(Y[row]) <= SIMD_WIDTH for row in sampled) >= len(sampled)
