"""Scorers ``scorer(estimator, X, y=None) -> float`` for GridSearchCV.

They score two kinds of estimators:

- an embedder (a transformer): within the held-out fold, each item's exact
  top-k among the other fold items versus its candidates by embedding
  distance;
- a fitted FilterRefine estimator: the held-out items are queries against
  its fitted base set.
"""

import math
from numbers import Integral

import numpy as np
from sklearn.pipeline import Pipeline

from ..distances import pairwise_distances
from ..index import embedder_pairwise_distances
from ._neighbors import exact_distance_speedup, top_k_recall


def _is_filter_refine(estimator):
    return hasattr(estimator, "kneighbors") and hasattr(estimator, "embedder_")


def _last_step(estimator, X):
    """The estimator a Pipeline ends with, and X as the earlier steps pass it on."""
    while isinstance(estimator, Pipeline):
        if len(estimator.steps) > 1:
            X = estimator[:-1].transform(X)
        estimator = estimator[-1]
    return estimator, X


def _within_fold_matrices(embedder, X, metric, n_jobs):
    """Exact and embedding distances among fold items, self-pairs excluded."""
    exact = pairwise_distances(X, metric=metric, n_jobs=n_jobs).astype(np.float64)
    embedded = embedder_pairwise_distances(embedder, X)
    np.fill_diagonal(exact, np.inf)
    np.fill_diagonal(embedded, np.inf)
    return exact, embedded


def _query_base_matrices(search, X, n_jobs):
    """Exact and embedding distances from held-out queries to the fitted base."""
    fitted = search.search_
    queries = fitted.check_queries(X)
    exact = pairwise_distances(queries, fitted.items, metric=fitted.metric, n_jobs=n_jobs).astype(
        np.float64
    )
    if fitted.embedder is None:
        # Brute force ranks nothing before comparing: every item is needed.
        return exact, np.zeros_like(exact)
    embedded = embedder_pairwise_distances(fitted.embedder, queries, fitted.items)
    return exact, embedded


def _resolve_count(n_candidates, n_base):
    if isinstance(n_candidates, Integral):
        return min(n_candidates, n_base)
    return min(max(1, math.ceil(n_candidates * n_base)), n_base)


class _NeighborScorer:
    def __init__(self, k, metric, n_jobs):
        self.k = k
        self.metric = metric
        self.n_jobs = n_jobs

    def _matrices(self, estimator, X):
        if _is_filter_refine(estimator):
            return _query_base_matrices(estimator, X, self.n_jobs)
        return _within_fold_matrices(estimator, X, self.metric, self.n_jobs)


class TopKRecallScorer(_NeighborScorer):
    """Top-k recall at ``n_candidates`` (see :func:`make_top_k_recall_scorer`)."""

    def __init__(self, k=10, n_candidates=100, metric="levenshtein", n_jobs=None):
        super().__init__(k, metric, n_jobs)
        self.n_candidates = n_candidates

    def __call__(self, estimator, X, y=None):
        estimator, X = _last_step(estimator, X)
        if _is_filter_refine(estimator):
            return self._returned_recall(estimator, X)
        exact, embedded = self._matrices(estimator, X)
        n_base = exact.shape[1] - 1  # the diagonal is excluded
        return top_k_recall(
            exact,
            embedded,
            k=min(self.k, n_base),
            n_candidates=_resolve_count(self.n_candidates, n_base),
        )

    def _returned_recall(self, search, X):
        """Share of the exact top-k among the k neighbors the estimator returns."""
        fitted = search.search_
        queries = fitted.check_queries(X)
        exact = pairwise_distances(
            queries, fitted.items, metric=fitted.metric, n_jobs=self.n_jobs
        ).astype(np.float64)
        k = min(self.k, search.n_samples_fit_)
        kth = np.partition(exact, k - 1, axis=1)[:, k - 1]
        returned = search.kneighbors(queries, n_neighbors=k, return_distance=False)
        hits = np.take_along_axis(exact, returned, axis=1) <= kth[:, None]
        return float(hits.sum(axis=1).clip(max=k).mean() / k)

    def __repr__(self):
        return (
            f"make_top_k_recall_scorer(k={self.k}, n_candidates={self.n_candidates}, "
            f"metric={self.metric!r})"
        )


class ExactDistanceSpeedupScorer(_NeighborScorer):
    """Exact-distance speedup at p (see :func:`make_exact_distance_speedup_scorer`)."""

    def __init__(self, k=10, p=0.95, metric="levenshtein", n_jobs=None):
        super().__init__(k, metric, n_jobs)
        self.p = p

    def __call__(self, estimator, X, y=None):
        estimator, X = _last_step(estimator, X)
        exact, embedded = self._matrices(estimator, X)
        if not _is_filter_refine(estimator):
            # Self-pairs sit at infinite embedding distance: drop that last slot.
            n_base = exact.shape[1] - 1
            speedup = exact_distance_speedup(exact, embedded, k=min(self.k, n_base), p=self.p)
            return speedup * n_base / exact.shape[1]
        return exact_distance_speedup(exact, embedded, k=min(self.k, exact.shape[1]), p=self.p)

    def __repr__(self):
        return f"make_exact_distance_speedup_scorer(k={self.k}, p={self.p}, metric={self.metric!r})"


def make_top_k_recall_scorer(k=10, n_candidates=100, *, metric="levenshtein", n_jobs=None):
    """Scorer of top-k recall at C candidates, for embedders and FilterRefine estimators.

    For an embedder, each held-out item is a query against the other
    held-out items: recall of its exact top-k among its ``n_candidates``
    nearest by embedding distance. For a fitted FilterRefine estimator, the
    held-out items query its base set and the score is the share of the exact
    top-k among the k neighbors it returns (filter and refine together).

    Parameters
    ----------
    k : int, default=10
        Number of true neighbors.
    n_candidates : int or float, default=100
        Candidates C (count, or fraction of the items searched); used for
        embedders.
    metric : str, Metric or callable, default="levenshtein"
        Exact metric used to score embedders (FilterRefine estimators use
        their own).
    n_jobs : int, default=None
        Parallel jobs of the exact distances.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y=None) -> float``, greater is better.

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn_ed import CGKEmbedder
    >>> from sklearn_ed.metrics import make_top_k_recall_scorer
    >>> words = ["alpha", "alphas", "beta", "betas", "gamma", "gammas"] * 3
    >>> search = GridSearchCV(CGKEmbedder(random_state=0),
    ...                       {"variant": ["cgk", "cgk_prime"]}, cv=3,
    ...                       scoring=make_top_k_recall_scorer(k=1, n_candidates=2))
    >>> bool(search.fit(words).best_score_ > 0)
    True
    """
    return TopKRecallScorer(k=k, n_candidates=n_candidates, metric=metric, n_jobs=n_jobs)


def make_exact_distance_speedup_scorer(k=10, p=0.95, *, metric="levenshtein", n_jobs=None):
    """Scorer of the exact-distance speedup at fraction p of queries.

    The speedup is the number of items searched divided by the number of
    exact distances needed, refining candidates in embedding order, to
    return all k true neighbors for a fraction ``p`` of the queries
    (see :func:`exact_distance_speedup`).

    Parameters
    ----------
    k : int, default=10
        Number of true neighbors.
    p : float, default=0.95
        Fraction of queries that must get all k neighbors.
    metric : str, Metric or callable, default="levenshtein"
        Exact metric used to score embedders.
    n_jobs : int, default=None
        Parallel jobs of the exact distances.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y=None) -> float``, greater is better.

    Examples
    --------
    >>> from sklearn_ed import CGKEmbedder
    >>> from sklearn_ed.metrics import make_exact_distance_speedup_scorer
    >>> words = ["alpha", "alphas", "beta", "betas", "gamma", "gammas"]
    >>> scorer = make_exact_distance_speedup_scorer(k=1, p=1.0)
    >>> scorer(CGKEmbedder(random_state=0).fit(words), words) >= 1.0
    True
    """
    return ExactDistanceSpeedupScorer(k=k, p=p, metric=metric, n_jobs=n_jobs)
