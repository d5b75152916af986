"""Normalized Levenshtein and Indel distances: the raw distance over a
normalizer of the two lengths, in [0, 1].

- ``normalized_levenshtein``: Levenshtein over the longer length;
- ``normalized_indel``: Indel over the summed lengths (rapidfuzz's
  ``ratio`` is one minus it).

Two empty strings are at 0. The raw distance's lower bound over the same
normalizer bounds them (:class:`NormalizedBound`; brute force first bounds
every pair by the characters they share, :class:`NormalizedBagBound`), and the normalizer turns
a threshold ``t`` into a Levenshtein radius (``normalized_radius``:
``lev <= t max(n, m)``, and ``lev <= indel <= t (n + m)``). Neither obeys the
triangle inequality.
"""

from functools import partial

from rapidfuzz.distance import Indel, Levenshtein

from ..bounds._bag_bounds import NormalizedBagBound
from ..bounds._radii import normalized_radius
from ..bounds._string_bounds import NormalizedBound
from ._edit_scorers import lcs_length
from ._levenshtein import levenshtein_oracle
from ._oriented_cdist import TURN_LCS_LIKE, TURN_LEVENSHTEIN_LIKE
from ._string_scorers import scorer_metric


def normalized_levenshtein_oracle(x, y):
    """Levenshtein over the longer length (reference)."""
    n, m = len(x), len(y)
    return levenshtein_oracle(x, y) / max(n, m) if n or m else 0.0


def normalized_indel_oracle(x, y):
    """Indel over the summed lengths (reference)."""
    n, m = len(x), len(y)
    return (n + m - 2 * lcs_length(x, y)) / (n + m) if n or m else 0.0


def _normalized_metric(name, scorer, oracle, normalizer, prefix_distance, turn_long_rows_from):
    return scorer_metric(
        name,
        scorer,
        "share",
        oracle=oracle,
        is_metric=False,
        lower_bound=partial(NormalizedBound, normalizer=normalizer),
        brute_force_bound=partial(NormalizedBagBound, normalizer=normalizer),
        levenshtein_radius=partial(normalized_radius, normalizer=normalizer),
        prefix_distance=prefix_distance,
        turn_long_rows_from=turn_long_rows_from,
    )


NORMALIZED_LEVENSHTEIN = _normalized_metric(
    "normalized_levenshtein",
    Levenshtein.normalized_distance,
    normalized_levenshtein_oracle,
    "longer",
    "levenshtein",
    TURN_LEVENSHTEIN_LIKE,
)
NORMALIZED_INDEL = _normalized_metric(
    "normalized_indel",
    Indel.normalized_distance,
    normalized_indel_oracle,
    "sum",
    "indel",
    TURN_LCS_LIKE,
)
