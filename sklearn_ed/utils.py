"""Small validation helpers shared across sub-packages."""

from numbers import Integral

import numpy as np


def take_items(X, indices):
    """Items of a numpy array or a list at ``indices`` (fancy indexing for both)."""
    if isinstance(X, np.ndarray):
        return X[indices]
    return [X[i] for i in indices]


def declare_metric_input(tags, metric):
    """Estimator tags for the input kind of ``metric``: strings and objects are 1-D."""
    from .distances import get_metric

    try:
        input_type = get_metric(metric).input_type
    except (TypeError, ValueError):  # invalid metric: fit will say so
        return tags
    if input_type != "vectors":
        tags.input_tags.two_d_array = False
        tags.input_tags.string = input_type == "strings"
    return tags


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
