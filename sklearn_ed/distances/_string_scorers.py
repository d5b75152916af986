"""The string metrics users match records with, computed by rapidfuzz's scorers.

Indel, OSA (optimal string alignment), Damerau-Levenshtein, LCSseq, the
normalized Levenshtein and Indel distances, Jaro and Jaro-Winkler as
distances (one minus the similarity), and ``token_set`` (one minus
``fuzz.token_set_ratio / 100``): each a :class:`Metric` whose batched
``pairwise`` is ``rapidfuzz.process.cdist`` with the scorer, and whose
``oracle`` is a plain dynamic program written here (the tests compare both).

``token_set`` keeps rapidfuzz's semantics so that a user's thresholds carry
over: the distance is 0 when the words of one string are a subset of the
other's ("john" and "john smith"), and 1 when either string has no word (an
empty string is at distance 1 even from itself, as rapidfuzz scores 0). It
is not a metric and has no lower bound (a shared word can make any two
strings close), so ``exact=True`` refuses it; the q-gram filter serves it
approximately, with the recall check measuring its recall.

Lower bounds, all from the q-gram and length bound of Levenshtein:

- Indel >= Levenshtein: an Indel script is a Levenshtein script (a
  substitution costs 2 in Indel, 1 in Levenshtein), so the Levenshtein
  bound holds as it is.
- OSA >= Levenshtein / 2 and Damerau-Levenshtein >= Levenshtein / 2: an
  adjacent transposition costs 1 there and at most 2 in Levenshtein, so every
  script of cost c maps to a Levenshtein script of cost at most 2c. Both are
  also at least the length difference (only insertions and deletions change
  the length), and integers.
- LCSseq >= Levenshtein / 2: LCSseq = max(n, m) - LCS, and Levenshtein <=
  Indel = n + m - 2 LCS <= 2 (max(n, m) - LCS).

- A normalized distance is the raw distance over a positive normalizer of
  the two lengths, so the raw bound over the same normalizer bounds it
  (:class:`NormalizedBound`).
- Jaro and Jaro-Winkler are bounded by the length ratio alone
  (:class:`LengthRatioBound`, where the proof is): weak for words of
  similar lengths, but lossless.
"""

from functools import partial

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import (
    OSA,
    DamerauLevenshtein,
    Indel,
    Jaro,
    JaroWinkler,
    LCSseq,
    Levenshtein,
)

from ._bounds import HalvedLevenshteinBound, LengthRatioBound, LevenshteinBound, NormalizedBound
from ._deletions import deletion_index
from ._halves import halves_index
from ._levenshtein import levenshtein_oracle
from ._registry import Metric

# name: (rapidfuzz scorer, dtype of its distances)
SCORERS = {
    "indel": (Indel.distance, np.int32),
    "normalized_indel": (Indel.normalized_distance, np.float64),
    "normalized_levenshtein": (Levenshtein.normalized_distance, np.float64),
    "osa": (OSA.distance, np.int32),
    "damerau_levenshtein": (DamerauLevenshtein.distance, np.int32),
    "lcsseq": (LCSseq.distance, np.int32),
    "jaro": (Jaro.normalized_distance, np.float64),
    "jaro_winkler": (JaroWinkler.normalized_distance, np.float64),
}
# name: rapidfuzz similarity scorer in [0, 100]; the distance is 1 - score / 100.
PERCENT_SCORERS = {"token_set": fuzz.token_set_ratio}
# Normalized cut-offs are widened by this much so that no pair at exactly the
# cut-off is lost to rounding (1 - (1 - d) need not be d in floating point).
_CUTOFF_SLACK = 1e-6


def scorer_pairwise(X, Y, score_cutoff=None, *, scorer):
    """Distances between every string of X and of Y by the named rapidfuzz scorer."""
    return _scored(process.cdist, X, Y, score_cutoff, scorer, workers=1)


def scorer_paired(X, Y, score_cutoff=None, workers=1, *, scorer):
    """Distance of ``X[i]`` to ``Y[i]`` for every i, by the named rapidfuzz scorer."""
    return _scored(process.cpdist, X, Y, score_cutoff, scorer, workers=workers)


def _scored(batched, X, Y, score_cutoff, scorer, workers):
    """``batched`` (cdist or cpdist) with the scorer's distance, its cut-off in
    rapidfuzz's terms (a percent score's as a score: 1 - distance, out of 100)."""
    if scorer in PERCENT_SCORERS:
        scores = batched(
            X,
            Y,
            scorer=PERCENT_SCORERS[scorer],
            score_cutoff=_percent_cutoff(score_cutoff),
            dtype=np.float64,
            workers=workers,
        )
        # (100 - score) / 100, not 1 - score / 100: a score of 85 is then a
        # distance of 0.15 as the user writes it, not 0.15000000000000002.
        return (100.0 - scores) / 100.0
    function, dtype = SCORERS[scorer]
    cutoff = _in_range(score_cutoff, dtype)
    return batched(X, Y, scorer=function, score_cutoff=cutoff, dtype=dtype, workers=workers)


def _percent_cutoff(score_cutoff):
    """A pair beyond the distance cut-off scores 0 (distance 1), which the
    callers mask; one within it keeps its score."""
    if score_cutoff is None:
        return None
    return max(100.0 * (1.0 - min(float(score_cutoff), 1.0) - _CUTOFF_SLACK), 0.0)


def _in_range(score_cutoff, dtype):
    """rapidfuzz takes a normalized cut-off in [0, 1] only, and compares it with
    its similarity one minus the cut-off, where a pair exactly at the cut-off
    can round beyond it: the cut-off is widened by a hair (the callers mask
    what lies beyond the cut-off they asked for, so neither loses a pair)."""
    if score_cutoff is None or dtype is not np.float64:
        return score_cutoff
    return min(max(float(score_cutoff) + _CUTOFF_SLACK, 0.0), 1.0)


# ------------------------------------------------------------------ oracles
def _lcs(x, y):
    previous = [0] * (len(y) + 1)
    for char_x in x:
        current = [0]
        for j, char_y in enumerate(y, start=1):
            current.append(
                previous[j - 1] + 1 if char_x == char_y else max(previous[j], current[-1])
            )
        previous = current
    return previous[-1]


def _osa(x, y):
    rows = [list(range(len(y) + 1))]
    for i in range(1, len(x) + 1):
        row = [i] + [0] * len(y)
        for j in range(1, len(y) + 1):
            row[j] = min(
                rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + (x[i - 1] != y[j - 1])
            )
            if i > 1 and j > 1 and x[i - 1] == y[j - 2] and x[i - 2] == y[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def _damerau_levenshtein(x, y):
    """Unrestricted Damerau-Levenshtein (Lowrance and Wagner, 1975)."""
    infinity = len(x) + len(y)
    last_row = {}
    table = [[infinity] * (len(y) + 2)] + [
        [infinity] + list(range(len(y) + 1)) if i == 0 else [infinity, i] + [0] * len(y)
        for i in range(len(x) + 1)
    ]
    for i in range(1, len(x) + 1):
        last_column = 0
        for j in range(1, len(y) + 1):
            k, previous_column = last_row.get(y[j - 1], 0), last_column
            cost = x[i - 1] != y[j - 1]
            if not cost:
                last_column = j
            table[i + 1][j + 1] = min(
                table[i][j] + cost,
                table[i + 1][j] + 1,
                table[i][j + 1] + 1,
                table[k][previous_column] + (i - k - 1) + 1 + (j - previous_column - 1),
            )
        last_row[x[i - 1]] = i
    return table[len(x) + 1][len(y) + 1]


def _jaro_similarity(x, y):
    if not x and not y:
        return 1.0
    if not x or not y:
        return 0.0
    window = max(max(len(x), len(y)) // 2 - 1, 0)
    matched_y = [False] * len(y)
    matches_x = []
    for i, char in enumerate(x):
        for j in range(max(0, i - window), min(len(y), i + window + 1)):
            if not matched_y[j] and y[j] == char:
                matched_y[j] = True
                matches_x.append(char)
                break
    if not matches_x:
        return 0.0
    matches_y = [char for char, matched in zip(y, matched_y) if matched]
    transpositions = sum(a != b for a, b in zip(matches_x, matches_y)) // 2
    m = len(matches_x)
    return (m / len(x) + m / len(y) + (m - transpositions) / m) / 3


def _jaro_winkler_similarity(x, y):
    similarity = _jaro_similarity(x, y)
    if similarity > 0.7:
        prefix = 0
        for a, b in zip(x[:4], y[:4]):
            if a != b:
                break
            prefix += 1
        similarity += prefix * 0.1 * (1.0 - similarity)
    return similarity


def _percent(distance, length_sum):
    return 100.0 - 100.0 * distance / length_sum if length_sum else 100.0


def _token_set_distance(x, y):
    """rapidfuzz's ``token_set_ratio`` as a distance, from its definition: the
    best Indel ratio among the sorted shared words, each side's sorted words."""
    words_x, words_y = set(x.split()), set(y.split())
    if not words_x or not words_y:
        return 1.0
    shared = words_x & words_y
    only_x, only_y = " ".join(sorted(words_x - shared)), " ".join(sorted(words_y - shared))
    if shared and (not only_x or not only_y):
        return 0.0
    shared_length = len(" ".join(shared))
    with_x = shared_length + bool(shared_length) + len(only_x)
    with_y = shared_length + bool(shared_length) + len(only_y)
    indel = len(only_x) + len(only_y) - 2 * _lcs(only_x, only_y)
    scores = [_percent(indel, with_x + with_y)]
    if shared_length:
        scores.append(_percent(with_x - shared_length, shared_length + with_x))
        scores.append(_percent(with_y - shared_length, shared_length + with_y))
    return (100.0 - max(scores)) / 100.0


def scorer_oracle(x, y, *, scorer):
    """Plain Python dynamic programming of the named metric (the tests' reference)."""
    n, m = len(x), len(y)
    if scorer == "token_set":
        return _token_set_distance(x, y)
    if scorer in ("jaro", "jaro_winkler"):
        similarity = _jaro_similarity if scorer == "jaro" else _jaro_winkler_similarity
        return 1.0 - similarity(x, y)
    if scorer == "normalized_levenshtein":
        return levenshtein_oracle(x, y) / max(n, m) if n or m else 0.0
    if scorer in ("osa", "damerau_levenshtein"):
        return _osa(x, y) if scorer == "osa" else _damerau_levenshtein(x, y)
    lcs = _lcs(x, y)
    if scorer == "lcsseq":
        return max(n, m) - lcs
    if scorer == "indel":
        return n + m - 2 * lcs
    return (n + m - 2 * lcs) / (n + m) if n or m else 0.0  # normalized_indel


def _string_metric(name, *, lower_bound=None, near_lookup=None, far_lookup=None):
    integer_valued = name in SCORERS and SCORERS[name][1] is np.int32
    return Metric(
        name=name,
        pairwise=partial(scorer_pairwise, scorer=name),
        input_type="strings",
        integer_valued=integer_valued,
        supports_cutoff=True,
        oracle=partial(scorer_oracle, scorer=name),
        paired=partial(scorer_paired, scorer=name),
        lower_bound=lower_bound,
        near_lookup=near_lookup,
        far_lookup=far_lookup,
        # OSA breaks the triangle inequality (CA-AC-ABC: 1 + 1 < 3), and so do
        # the normalized distances, Jaro(-Winkler) and token_set.
        is_metric=name in ("indel", "damerau_levenshtein", "lcsseq"),
        normalized=not integer_valued,
    )


STRING_METRICS = [
    # Items within Indel d are within Levenshtein d, and the deletion indexes'
    # bounds bound Levenshtein: their supersets of those hold for Indel too.
    _string_metric(
        "indel",
        lower_bound=LevenshteinBound,
        near_lookup=deletion_index,
        far_lookup=halves_index,
    ),
    _string_metric("osa", lower_bound=HalvedLevenshteinBound),
    _string_metric("damerau_levenshtein", lower_bound=HalvedLevenshteinBound),
    _string_metric("lcsseq", lower_bound=HalvedLevenshteinBound),
    _string_metric(
        "normalized_levenshtein", lower_bound=partial(NormalizedBound, normalizer="longer")
    ),
    _string_metric("normalized_indel", lower_bound=partial(NormalizedBound, normalizer="sum")),
    _string_metric("jaro", lower_bound=partial(LengthRatioBound, scale=1 / 3)),
    _string_metric("jaro_winkler", lower_bound=partial(LengthRatioBound, scale=0.2)),
    _string_metric("token_set"),
]
