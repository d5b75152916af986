"""How much of the base an exact search did not have to compare."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

# Queries searched at once (bounds the candidate matrices, as kneighbors does).
_BATCH = 2048


def pruned_fraction(estimator, X=None, n_neighbors=None):
    """Share of the base items a ``kneighbors`` call never compared exactly.

    For a fitted FilterRefine estimator, runs ``kneighbors(X)`` and counts
    the exact distances computed per query: the filter's candidates, plus,
    with ``exact=True``, the items whose lower bound did not rule them out
    (for a short string with its neighbors within two edits: the items found
    by the deletion lookup, without the filter).
    Nothing is stored on the estimator, so this is safe beside concurrent
    queries.

    Parameters
    ----------
    estimator : FilterRefineNeighbors, FilterRefineClassifier, ...
        A fitted FilterRefine estimator.
    X : array-like, default=None
        Queries; ``None`` uses the fitted samples, each excluding itself.
    n_neighbors : int, default=None
        Neighbors per query; defaults to the estimator's.

    Returns
    -------
    fraction : float
        ``1 - mean(exact distances per query) / n_samples_fit_``: 0 for brute
        force, close to 1 when the bounds prune well.

    Examples
    --------
    >>> from sklearn_ed import FilterRefineNeighbors, QGramEmbedder
    >>> from sklearn_ed.metrics import pruned_fraction
    >>> words = ["kitten", "sitting", "mitten", "bitten", "fitting", "knitting"] * 5
    >>> search = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=1, n_candidates=2,
    ...                                exact=True).fit(words)
    >>> round(pruned_fraction(search, ["kitten"]), 2)  # 15 of 30: mitten, bitten, kitten
    0.5
    """
    check_is_fitted(estimator)
    search = estimator.search_
    if X is None:
        queries, exclude = search.items, np.arange(search.n_items)
    else:
        queries, exclude = search.check_queries(X), None
    k = estimator.n_neighbors if n_neighbors is None else n_neighbors
    n_candidates = min(estimator.n_candidates_, search.n_items - (exclude is not None))
    counts = [
        search.kneighbors(
            queries[start : start + _BATCH],
            k,
            n_candidates,
            None if exclude is None else exclude[start : start + _BATCH],
        )[1]
        for start in range(0, len(queries), _BATCH)
    ]
    counts = np.concatenate(counts) if counts else np.zeros(0)
    return float(1.0 - counts.mean() / search.n_items) if counts.size else 0.0
