"""Small validation helpers shared across sub-packages."""

from numbers import Integral

import numpy as np


def check_distance_matrices(exact_distances, embedding_distances, k):
    """Validate a pair of (n_queries, n_base) matrices and the neighbour count k."""
    exact = np.asarray(exact_distances, dtype=np.float64)
    embedded = np.asarray(embedding_distances, dtype=np.float64)
    if exact.ndim != 2 or exact.shape != embedded.shape:
        raise ValueError(
            "exact_distances and embedding_distances must be 2-D arrays of the same "
            f"shape (n_queries, n_base); got {exact.shape} and {embedded.shape}."
        )
    if not isinstance(k, Integral) or not 1 <= k <= exact.shape[1]:
        raise ValueError(
            f"k must be an integer in [1, n_base={exact.shape[1]}], got {k!r}."
        )
    return exact, embedded
