"""Hamming distance between strings (unequal lengths: extra characters count)."""

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Hamming

from ...utils import pair_call_workers
from .._registry import Metric


def hamming_pairwise(X, Y, score_cutoff=None):
    """Number of differing positions; the length difference counts as mismatches."""
    return process.cdist(
        X,
        Y,
        scorer=Hamming.distance,
        score_cutoff=score_cutoff,
        dtype=np.int32,
        workers=1,
        scorer_kwargs={"pad": True},
    )


def hamming_paired(X, Y, score_cutoff=None, workers=1):
    """Distance of ``X[i]`` to ``Y[i]`` for every i (one call for all pairs)."""
    return process.cpdist(
        X,
        Y,
        scorer=Hamming.distance,
        score_cutoff=score_cutoff,
        dtype=np.int32,
        workers=pair_call_workers(X, Y, workers),
        scorer_kwargs={"pad": True},
    )


def hamming_oracle(x, y):
    """Position-by-position comparison (reference)."""
    common = min(len(x), len(y))
    mismatches = sum(a != b for a, b in zip(x[:common], y[:common]))
    return mismatches + abs(len(x) - len(y))


HAMMING = Metric(
    name="hamming",
    pairwise=hamming_pairwise,
    input_type="strings",
    integer_valued=True,
    supports_cutoff=True,
    oracle=hamming_oracle,
    paired=hamming_paired,
)
