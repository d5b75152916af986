"""Jaro and Jaro-Winkler distances: one minus rapidfuzz's similarities, in [0, 1].

Neither is a metric. Both are bounded by the characters two strings share
(:class:`JaroBagBound`, where the proof is; Jaro-Winkler's by the pair's
common prefix too, :class:`JaroWinklerBagBound`): lossless, and strong at the
nearest neighbour's distance, weak at the tenth's on person records. No
Levenshtein radius: they are joined by ``"brute"``.
"""

from functools import partial

from rapidfuzz.distance import Jaro, JaroWinkler

from ..bounds._bag_bounds import JaroBagBound
from ..bounds._jaro_winkler_bound import JaroWinklerBagBound
from ._oriented_cdist import TURN_LEVENSHTEIN_LIKE
from ._string_scorers import scorer_metric


def jaro_similarity(x, y):
    """Jaro similarity: matches within the window, half the transpositions."""
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


def jaro_oracle(x, y):
    """One minus the Jaro similarity (reference)."""
    return 1.0 - jaro_similarity(x, y)


def jaro_winkler_oracle(x, y):
    """One minus the Jaro-Winkler similarity: Jaro raised by a common prefix of
    up to 4 characters above 0.7 (reference)."""
    similarity = jaro_similarity(x, y)
    if similarity > 0.7:
        prefix = 0
        for a, b in zip(x[:4], y[:4]):
            if a != b:
                break
            prefix += 1
        similarity += prefix * 0.1 * (1.0 - similarity)
    return 1.0 - similarity


# One object for both roles: exact search that prunes by the bound brute
# force prunes by rules out no more than brute force does (the fit then
# answers by brute force, ``BruteForceMixin``).
_JARO_BOUND = partial(JaroBagBound, scale=1 / 3)

JARO = scorer_metric(
    "jaro",
    Jaro.normalized_distance,
    "share",
    oracle=jaro_oracle,
    is_metric=False,
    lower_bound=_JARO_BOUND,
    brute_force_bound=_JARO_BOUND,
    turn_long_rows_from=TURN_LEVENSHTEIN_LIKE,
)
JARO_WINKLER = scorer_metric(
    "jaro_winkler",
    JaroWinkler.normalized_distance,
    "share",
    oracle=jaro_winkler_oracle,
    is_metric=False,
    lower_bound=JaroWinklerBagBound,
    brute_force_bound=JaroWinklerBagBound,
    turn_long_rows_from=TURN_LEVENSHTEIN_LIKE,
)
