"""Levenshtein (edit) distance between strings, batched through rapidfuzz."""

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from ...utils import pair_call_workers
from .._registry import Metric
from ..bounds._deletions import deletion_index
from ..bounds._halves import halves_index
from ..bounds._radii import edit_radius
from ..bounds._string_bounds import LevenshteinBound
from ._oriented_cdist import TURN_LEVENSHTEIN_LIKE, oriented_cdist


def levenshtein_pairwise(X, Y, score_cutoff=None):
    """Unit-cost edit distances between every string of X and of Y (queries
    beyond rapidfuzz's SIMD width turned: :func:`oriented_cdist`)."""
    return oriented_cdist(
        X,
        Y,
        turn_from=TURN_LEVENSHTEIN_LIKE,
        scorer=Levenshtein.distance,
        score_cutoff=score_cutoff,
        dtype=np.int32,
        workers=1,
    )


def levenshtein_paired(X, Y, score_cutoff=None, workers=1):
    """Distance of ``X[i]`` to ``Y[i]`` for every i (one call for all pairs)."""
    return process.cpdist(
        X,
        Y,
        scorer=Levenshtein.distance,
        score_cutoff=score_cutoff,
        dtype=np.int32,
        workers=pair_call_workers(X, Y, workers),
    )


def levenshtein_oracle(x, y):
    """Plain dynamic programming over Unicode code points (reference)."""
    previous = list(range(len(y) + 1))
    for i, char_x in enumerate(x, start=1):
        current = [i]
        for j, char_y in enumerate(y, start=1):
            current.append(
                min(
                    previous[j] + 1,
                    current[j - 1] + 1,
                    previous[j - 1] + (char_x != char_y),
                )
            )
        previous = current
    return previous[-1]


LEVENSHTEIN = Metric(
    name="levenshtein",
    pairwise=levenshtein_pairwise,
    input_type="strings",
    integer_valued=True,
    supports_cutoff=True,
    oracle=levenshtein_oracle,
    paired=levenshtein_paired,
    lower_bound=LevenshteinBound,
    near_lookup=deletion_index,
    far_lookup=halves_index,
    levenshtein_radius=edit_radius,
    prefix_distance="levenshtein",
)
