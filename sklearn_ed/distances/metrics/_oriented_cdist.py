"""rapidfuzz's ``cdist`` with queries longer than its SIMD width compared as choices.

``rapidfuzz.process.cdist`` packs queries of up to :data:`SIMD_WIDTH`
characters side by side in vector registers; a longer query is compared
with each choice on its own, by the multi-word bit-parallel algorithm.
Under Levenshtein and Jaro-Winkler that costs 0.9 to 1.4 us a pair for
person records of 65 to 74 characters against 30,000 shorter ones, and 0.3
to 0.5 us the other way round, the short items packed as queries and the
long query their choice (0.14 to 0.28 us from 8 long queries on). Under
Indel and LCSseq, whose long queries cost 0.12 us a pair, turning pays from
4 long queries (0.08 against 0.12 us). 2.7 % of misspelt person records
are longer than 64 characters after ``default_process``, and took a quarter
of brute force's time under normalized Levenshtein (1.8 s against 1.2 s for
300 queries of 50,000 records, turned).

Every scorer given here is symmetric, ``d(x, y) = d(y, x)`` with or without
a cut-off, so a long row is the column of the turned call.
"""

import numpy as np
from rapidfuzz import process

# Longest query rapidfuzz packs with others (64-bit lanes).
SIMD_WIDTH = 64
# Long rows from which turning them pays (the costs above): a long query
# costs the Levenshtein family (Levenshtein, OSA, Jaro, Jaro-Winkler) three
# times a turned one from the first; Indel and LCSseq compare it faster, and
# gain from four.
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
