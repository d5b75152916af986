"""Euclidean distance between rows of numeric arrays."""

import math

import numpy as np
from scipy.spatial.distance import cdist

from .._registry import Metric


def euclidean_pairwise(X, Y, score_cutoff=None):
    """Euclidean distances between rows, computed from differences.

    Differences rather than the dot-product expansion keep identical rows at
    exactly zero, so ties and self-matches are exact.
    """
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    return cdist(X, Y)


def euclidean_oracle(x, y):
    """Square root of the summed squared differences (reference)."""
    return math.sqrt(sum((float(a) - float(b)) ** 2 for a, b in zip(x, y)))


EUCLIDEAN = Metric(
    name="euclidean",
    pairwise=euclidean_pairwise,
    input_type="vectors",
    oracle=euclidean_oracle,
)
