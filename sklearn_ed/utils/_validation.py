"""Indexing and validation helpers for items and distance matrices."""

from numbers import Integral

import numpy as np


def take_items(X, indices):
    """Items of a numpy array or a list at ``indices`` (fancy indexing for both)."""
    if isinstance(X, np.ndarray):
        return X[indices]
    return [X[i] for i in indices]


def check_distance_matrices(exact_distances, embedding_distances, k):
    """Validate a pair of (n_queries, n_base) matrices and the neighbor count k."""
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
