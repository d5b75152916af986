"""Cluster-recovery metrics of Mochihashi, Kikui and Kita 2004 (section 5).

- :func:`eleven_point_average_precision` and :func:`r_precision`: retrieval
  where the relevant items of a query are the base items of its cluster;
- :func:`pairwise_clustering_precision`: the pair-agreement clustering
  accuracy of Xing et al. (2002) used for K-means in section 5.3.
"""

import numpy as np
from sklearn.metrics.cluster import pair_confusion_matrix
from sklearn.utils import check_array, check_consistent_length, column_or_1d

__all__ = [
    "eleven_point_average_precision",
    "pairwise_clustering_precision",
    "r_precision",
]

_RECALL_LEVELS = np.arange(11)  # recall levels j / 10, kept as integers for exact tests


def _ranked_relevance(distances, query_labels, base_labels, exclude_self):
    """Relevance of the base items of every query, in increasing distance order.

    Returns a boolean array of shape (n_kept_queries, n_base_ranked) and the
    number of queries dropped because they have no relevant item.
    """
    distances = check_array(distances, dtype=np.float64, ensure_all_finite=False)
    query_labels = column_or_1d(query_labels)
    base_labels = column_or_1d(base_labels)
    n_query, n_base = distances.shape
    if len(query_labels) != n_query:
        raise ValueError(
            f"query_labels has {len(query_labels)} entries but distances has "
            f"{n_query} rows (one per query)."
        )
    if len(base_labels) != n_base:
        raise ValueError(
            f"base_labels has {len(base_labels)} entries but distances has "
            f"{n_base} columns (one per base item)."
        )
    if np.isnan(distances).any():
        raise ValueError("distances contains NaN.")
    # Stable sort: ties are broken by the order of the base items.
    order = np.argsort(distances, axis=1, kind="stable")
    if exclude_self:
        if n_query != n_base:
            raise ValueError(
                "exclude_self=True needs the queries to be the base set (a square "
                f"distance matrix), got shape {distances.shape}."
            )
        keep = order != np.arange(n_query)[:, None]
        order = order[keep].reshape(n_query, n_base - 1)
    relevant = base_labels[order] == query_labels[:, None]
    has_relevant = relevant.any(axis=1)
    if not has_relevant.any():
        raise ValueError(
            "No query has a relevant base item (an item with the same label), "
            "so retrieval precision is undefined."
        )
    return relevant[has_relevant]


def eleven_point_average_precision(
    distances, query_labels, base_labels=None, *, exclude_self=False
):
    """11-point interpolated average precision of cluster retrieval.

    Every query ranks the base items by increasing distance; the relevant
    items are those with the query's label (its cluster). The interpolated
    precision at recall ``r`` is the highest precision reached at any recall
    ``>= r``; the score of a query is its mean over ``r = 0, 0.1, ..., 1``,
    and the function returns the mean over queries.

    Parameters
    ----------
    distances : array-like of shape (n_queries, n_base)
        Precomputed distances from every query to every base item (smaller is
        closer), e.g. from :func:`sklearn.metrics.pairwise_distances`.
        ``inf`` is allowed, NaN is not.

    query_labels : array-like of shape (n_queries,)
        Cluster label of every query.

    base_labels : array-like of shape (n_base,), default=None
        Cluster label of every base item. ``None`` means the base set is the
        query set (``base_labels = query_labels``).

    exclude_self : bool, default=False
        Drop base item ``i`` from the ranking of query ``i`` (use it when the
        queries are the base set: a query should not retrieve itself).
        Requires a square ``distances``.

    Returns
    -------
    score : float
        Mean 11-point average precision, in [0, 1], over the queries that
        have at least one relevant base item (the others are ignored).

    See Also
    --------
    r_precision : Precision at rank R = number of relevant items.

    Notes
    -----
    Ties in ``distances`` are broken by base order (stable sort).

    Examples
    --------
    >>> from sklearn_ed.metrics import eleven_point_average_precision
    >>> # one query; base items ranked a(relevant), b, c(relevant)
    >>> eleven_point_average_precision([[0.1, 0.2, 0.3]], [1], [1, 0, 1])
    0.8484...
    """
    if base_labels is None:
        base_labels = query_labels
    relevant = _ranked_relevance(distances, query_labels, base_labels, exclude_self)
    n_hits = np.cumsum(relevant, axis=1)
    precision = n_hits / np.arange(1, relevant.shape[1] + 1)
    # Interpolated precision at rank k: best precision at any rank >= k.
    interpolated = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
    n_relevant = n_hits[:, -1]
    total = np.zeros(len(relevant))
    for j in _RECALL_LEVELS:
        # First rank whose recall n_hits / n_relevant reaches j / 10.
        needed = (j * n_relevant + 9) // 10
        first = np.argmax(n_hits >= needed[:, None], axis=1)
        total += interpolated[np.arange(len(relevant)), first]
    return float(np.mean(total / len(_RECALL_LEVELS)))


def r_precision(distances, query_labels, base_labels=None, *, exclude_self=False):
    """R-precision of cluster retrieval.

    For a query with ``R`` relevant base items (the items of its cluster),
    the R-precision is the fraction of relevant items among the ``R``
    nearest; the function returns the mean over queries. When every query
    is an item of the base set and ``exclude_self=True``, ``R`` is the size
    of the query's cluster minus one, so the score measures how well the
    clusters are recovered.

    Parameters
    ----------
    distances : array-like of shape (n_queries, n_base)
        Precomputed query-to-base distances (smaller is closer).

    query_labels : array-like of shape (n_queries,)
        Cluster label of every query.

    base_labels : array-like of shape (n_base,), default=None
        Cluster label of every base item; ``None`` means ``query_labels``.

    exclude_self : bool, default=False
        Drop base item ``i`` from the ranking of query ``i``; requires a
        square ``distances``.

    Returns
    -------
    score : float
        Mean R-precision, in [0, 1], over the queries that have at least one
        relevant base item.

    See Also
    --------
    eleven_point_average_precision : Interpolated precision over recall.

    Examples
    --------
    >>> from sklearn_ed.metrics import r_precision
    >>> r_precision([[0.1, 0.2, 0.3]], [1], [1, 0, 1])  # R=2, top 2 = a, b
    0.5
    """
    if base_labels is None:
        base_labels = query_labels
    relevant = _ranked_relevance(distances, query_labels, base_labels, exclude_self)
    n_hits = np.cumsum(relevant, axis=1)
    n_relevant = n_hits[:, -1]
    hits_at_r = n_hits[np.arange(len(relevant)), n_relevant - 1]
    return float(np.mean(hits_at_r / n_relevant))


def pairwise_clustering_precision(labels_true, labels_pred, *, balanced=False):
    """Probability that a random pair is grouped as in the true clustering.

    The clustering accuracy of Xing et al. (2002), used by Mochihashi, Kikui
    and Kita (2004, section 5.3) to score K-means: over all pairs ``i < j``, the fraction
    for which "same cluster" in ``labels_pred`` agrees with "same cluster"
    in ``labels_true``. It equals the (unadjusted) Rand index.

    With many clusters most pairs are in different clusters and the score is
    inflated; ``balanced=True`` gives Xing et al.'s variant for that case,
    which draws a pair from the same true cluster or from different true
    clusters with probability 1/2 each:
    ``0.5 * P(same pred | same true) + 0.5 * P(different pred | different true)``.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground-truth cluster labels.

    labels_pred : array-like of shape (n_samples,)
        Predicted cluster labels (e.g. ``KMeans.labels_``).

    balanced : bool, default=False
        Weight same-cluster and different-cluster pairs equally.

    Returns
    -------
    score : float
        Precision in [0, 1]; 1.0 when the two clusterings agree up to a
        relabelling. With ``balanced=True``, a kind of pair absent from
        ``labels_true`` (no same-cluster pair, or no different-cluster
        pair) is left out of the average.

    See Also
    --------
    sklearn.metrics.rand_score : The same number as ``balanced=False``.

    Examples
    --------
    >>> from sklearn_ed.metrics import pairwise_clustering_precision
    >>> # every sample alone: all 12 different-cluster pairs agree, 3 same-cluster
    >>> # pairs disagree
    >>> pairwise_clustering_precision([0, 0, 1, 1, 2, 2], [0, 1, 2, 3, 4, 5])
    0.8
    >>> pairwise_clustering_precision([0, 0, 1, 1, 2, 2], [0, 1, 2, 3, 4, 5], balanced=True)
    0.5
    """
    labels_true = column_or_1d(labels_true)
    labels_pred = column_or_1d(labels_pred)
    check_consistent_length(labels_true, labels_pred)
    if len(labels_true) < 2:
        raise ValueError(
            f"pairwise_clustering_precision needs at least 2 samples, got {len(labels_true)}."
        )
    # Counts of ordered pairs: rows = true (different, same), cols = pred.
    (diff_diff, diff_same), (same_diff, same_same) = pair_confusion_matrix(
        labels_true, labels_pred
    ).astype(np.float64)
    if not balanced:
        return float((diff_diff + same_same) / (diff_diff + diff_same + same_diff + same_same))
    rates = []
    if same_same + same_diff > 0:
        rates.append(same_same / (same_same + same_diff))
    if diff_diff + diff_same > 0:
        rates.append(diff_diff / (diff_diff + diff_same))
    return float(np.mean(rates))
