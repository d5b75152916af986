"""Quality of an embedding for neighbor search, as Zhang, Yuan and Indyk (2020) and
Dai et al. (2020) define it.

All functions take two (n_queries, n_base) matrices: exact distances and
embedding distances between the same queries and base items. Ties are
handled without arbitrariness: the "true top-k" of a query are all base
items whose exact distance is at most its k-th smallest exact distance, and
base items are ranked by embedding distance with ties broken by index (as
the brute-force filter does).
"""

import numpy as np

from ..utils import check_distance_matrices


def _true_neighbor_ranks(exact_distances, embedding_distances, k):
    """Per query, the sorted embedding ranks (1-based) of its true top-k items."""
    exact_distances, embedding_distances = check_distance_matrices(
        exact_distances, embedding_distances, k
    )
    n_base = exact_distances.shape[1]
    ranks = []
    for exact_row, embedded_row in zip(exact_distances, embedding_distances):
        kth = np.partition(exact_row, k - 1)[k - 1]
        if not np.isfinite(kth):
            raise ValueError(
                f"A query has fewer than k={k} base items at finite distance; lower k."
            )
        rank = np.empty(n_base, dtype=np.int64)
        rank[np.argsort(embedded_row, kind="stable")] = np.arange(1, n_base + 1)
        ranks.append(np.sort(rank[exact_row <= kth]))
    return ranks


def recall_curve(exact_distances, embedding_distances, *, k=10, n_candidates=None):
    """Top-k recall as a function of the number of candidates (recall-item curve).

    For each query, base items are ranked by embedding distance; the recall
    at C is the share of its exact top-k found among the first C items,
    averaged over queries (Zhang et al. 2020; Dai et al. 2020, Fig. 6).

    Parameters
    ----------
    exact_distances : ndarray of shape (n_queries, n_base)
        Exact distances (``inf`` excludes an item, e.g. the query itself).
    embedding_distances : ndarray of shape (n_queries, n_base)
        Distances between the embeddings of the same pairs.
    k : int, default=10
        Number of true neighbors.
    n_candidates : array-like of int, default=None
        Candidate counts C; default: 50 values spaced geometrically from 1 to
        n_base.

    Returns
    -------
    n_candidates : ndarray of int
        The candidate counts.
    recall : ndarray of float
        Mean top-k recall at each candidate count.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.metrics import recall_curve
    >>> exact = np.array([[1, 2, 3, 4]])
    >>> embedded = np.array([[0.4, 0.1, 0.2, 0.3]])
    >>> recall_curve(exact, embedded, k=2, n_candidates=[1, 2, 3, 4])
    (array([1, 2, 3, 4]), array([0.5, 0.5, 0.5, 1. ]))
    """
    ranks = _true_neighbor_ranks(exact_distances, embedding_distances, k)
    n_base = np.shape(exact_distances)[1]
    if n_candidates is None:
        n_candidates = np.unique(np.geomspace(1, n_base, num=50).astype(np.int64))
    n_candidates = np.asarray(n_candidates, dtype=np.int64)
    found = np.array([np.searchsorted(rank, n_candidates, side="right") for rank in ranks])
    return n_candidates, (np.minimum(found, k) / k).mean(axis=0)


def top_k_recall(exact_distances, embedding_distances, *, k=10, n_candidates=100):
    """Mean share of the exact top-k found among the top-C by embedding distance.

    Parameters
    ----------
    exact_distances : ndarray of shape (n_queries, n_base)
        Exact distances.
    embedding_distances : ndarray of shape (n_queries, n_base)
        Embedding distances of the same pairs.
    k : int, default=10
        Number of true neighbors.
    n_candidates : int, default=100
        Number of candidates C taken by embedding distance.

    Returns
    -------
    recall : float
        In [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.metrics import top_k_recall
    >>> top_k_recall(np.array([[1, 2, 3]]), np.array([[3.0, 1.0, 2.0]]), k=1,
    ...              n_candidates=2)
    0.0
    """
    _, recall = recall_curve(exact_distances, embedding_distances, k=k, n_candidates=[n_candidates])
    return float(recall[0])


def exact_distances_needed(exact_distances, embedding_distances, *, k=10):
    """Per query, the fewest candidates (by embedding rank) holding its exact top-k.

    This is the number of exact distances a filter-and-refine search must
    compute to return all k true neighbors of that query.

    Parameters
    ----------
    exact_distances : ndarray of shape (n_queries, n_base)
        Exact distances.
    embedding_distances : ndarray of shape (n_queries, n_base)
        Embedding distances of the same pairs.
    k : int, default=10
        Number of true neighbors (ties at the k-th distance count as found).

    Returns
    -------
    needed : ndarray of int, shape (n_queries,)
        Exact distances each query needs.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.metrics import exact_distances_needed
    >>> exact = np.array([[1.0, 2.0, 3.0]])
    >>> exact_distances_needed(exact, np.array([[0.3, 0.1, 0.2]]), k=1)
    array([3])
    """
    ranks = _true_neighbor_ranks(exact_distances, embedding_distances, k)
    return np.array([rank[k - 1] for rank in ranks], dtype=np.int64)


def exact_distance_speedup(exact_distances, embedding_distances, *, k=10, p=0.95):
    """Speedup over brute force when the k true neighbors of a share p of queries are found.

    Following Athitsos et al. and Lary (2022) (s5.3): N_p is the smallest
    number of exact distances per query such that, refining the N_p best
    candidates by embedding distance, a fraction ``p`` of the queries get
    all their k true neighbors. The speedup is ``n_base / N_p``.

    Parameters
    ----------
    exact_distances : ndarray of shape (n_queries, n_base)
        Exact distances.
    embedding_distances : ndarray of shape (n_queries, n_base)
        Embedding distances of the same pairs.
    k : int, default=10
        Number of true neighbors.
    p : float, default=0.95
        Fraction of queries, in (0, 1].

    Returns
    -------
    speedup : float
        ``n_base / N_p`` (1.0 means no saving).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.metrics import exact_distance_speedup
    >>> exact = np.array([[1, 2, 3, 4], [4, 3, 2, 1]])
    >>> exact_distance_speedup(exact, exact, k=1, p=1.0)
    4.0
    """
    if not 0 < p <= 1:
        raise ValueError(f"p must be in (0, 1], got {p!r}.")
    needed = np.sort(exact_distances_needed(exact_distances, embedding_distances, k=k))
    n_base = np.shape(exact_distances)[1]
    n_p = needed[int(np.ceil(p * len(needed))) - 1]
    return float(n_base / n_p)


def approximation_error(
    exact_distances, embedding_distances, *, degree=1, fit_exact=None, fit_embedding=None
):
    """Mean relative error of exact distances estimated from embedding distances.

    ``e = mean |g(d_emb) - d_exact| / d_exact`` over pairs with a positive
    exact distance, where ``g`` is a polynomial of ``degree`` fitted by least
    squares on training pairs (Dai et al. 2020, Table 2: linear for neural
    embeddings, quadratic for CGK).

    Parameters
    ----------
    exact_distances, embedding_distances : array-like of the same shape
        Evaluation pairs.
    degree : int, default=1
        Degree of ``g``.
    fit_exact, fit_embedding : array-like, default=None
        Training pairs to fit ``g`` on; ``None`` fits on the evaluation pairs.

    Returns
    -------
    error : float

    Examples
    --------
    >>> from sklearn_ed.metrics import approximation_error
    >>> round(approximation_error([2.0, 4.0, 8.0], [1.0, 2.0, 4.0]), 6)
    0.0
    """
    exact = np.asarray(exact_distances, dtype=np.float64).ravel()
    embedded = np.asarray(embedding_distances, dtype=np.float64).ravel()
    if exact.shape != embedded.shape:
        raise ValueError(
            f"exact_distances and embedding_distances must have the same number of "
            f"pairs, got {exact.size} and {embedded.size}."
        )
    if fit_exact is None or fit_embedding is None:
        fit_exact, fit_embedding = exact, embedded
    fit_exact = np.asarray(fit_exact, dtype=np.float64).ravel()
    fit_embedding = np.asarray(fit_embedding, dtype=np.float64).ravel()
    finite = np.isfinite(fit_exact) & np.isfinite(fit_embedding)
    coefficients = np.polyfit(fit_embedding[finite], fit_exact[finite], deg=degree)
    positive = (exact > 0) & np.isfinite(exact)
    estimate = np.polyval(coefficients, embedded[positive])
    return float(np.mean(np.abs(estimate - exact[positive]) / exact[positive]))
