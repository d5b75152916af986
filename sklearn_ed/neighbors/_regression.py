"""FilterRefineRegressor: k-nearest-neighbour average under an expensive metric."""

import numpy as np
from sklearn.base import RegressorMixin, _fit_context
from sklearn.utils.validation import check_consistent_length, check_is_fitted

from ._supervised import SupervisedFilterRefineBase, neighbour_weights


class FilterRefineRegressor(RegressorMixin, SupervisedFilterRefineBase):
    """Regressor averaging the targets of neighbours found by filter-and-refine.

    Neighbours are found as in :class:`FilterRefineNeighbors`; the prediction
    is their (weighted) mean target, as in
    :class:`sklearn.neighbors.KNeighborsRegressor`.

    Parameters
    ----------
    embedder : transformer, default=None
        Embedding used by the filter (see :class:`FilterRefineNeighbors`).
    metric : str, Metric or callable, default="levenshtein"
        Exact distance.
    n_neighbors : int, default=5
        Number of neighbours averaged.
    weights : {"uniform", "distance"}, callable or None, default="uniform"
        Averaging weights.
    n_candidates : int or float, default=100
        Candidates refined per query (count, or fraction of the fitted set).
    filter_algorithm : {"auto", "brute", "hnsw", "ivf", "nndescent"}, default="auto"
        The filter's vector index (see :class:`FilterRefineNeighbors`).
    index_params : dict, default=None
        Construction parameters of the index.
    exact : bool, default=False
        Return the exact brute-force answer, always: after the filter's
        candidates, verify every item whose lower bound of the metric is
        at most the current k-th distance (lossless pruning; the metric must
        declare a lower bound, as ``"levenshtein"`` does).
    n_jobs : int, default=None
        Parallel jobs of the refine step.
    random_state : int, RandomState instance or None, default=None
        Seeds the default embedder and NNDescent.

    Attributes
    ----------
    embedder_ : transformer
        Fitted clone of ``embedder``.
    embedding_metric_ : str
        Filter distance.
    effective_metric_ : str
        Name of the exact metric.
    n_samples_fit_ : int
        Number of fitted samples.

    Examples
    --------
    >>> from sklearn_ed import CGKEmbedder, FilterRefineRegressor
    >>> words = ["a", "ab", "abc", "abcd", "abcde"]
    >>> reg = FilterRefineRegressor(CGKEmbedder(random_state=0), n_neighbors=2)
    >>> reg.fit(words, [1.0, 2.0, 3.0, 4.0, 5.0]).predict(["abcdx"]).tolist()
    [4.5]
    """

    def __init__(self, embedder=None, *, metric="levenshtein", n_neighbors=5,
                 weights="uniform", n_candidates=100, filter_algorithm="auto",
                 index_params=None, exact=False, n_jobs=None, random_state=None):
        super().__init__(embedder, metric=metric, n_neighbors=n_neighbors,
                         n_candidates=n_candidates, filter_algorithm=filter_algorithm,
                         index_params=index_params, n_jobs=n_jobs,
                         exact=exact, random_state=random_state)
        self.weights = weights

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Fit the embedder on X and store the targets.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            Training items.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets.

        Returns
        -------
        self : FilterRefineRegressor
            Fitted regressor.
        """
        self._resolve_metric()
        X, y = self._validate_X_y(X, y)
        self._y = np.asarray(y, dtype=np.float64)
        return self._fit(X)

    def partial_fit(self, X, y):
        """Append items with targets without refitting the embedder.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            New training items, of the kind ``fit`` saw.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Their targets.

        Returns
        -------
        self : FilterRefineRegressor
            The regressor.
        """
        X = self._check_partial_fit(X)
        y = np.asarray(y, dtype=np.float64)
        check_consistent_length(X, y)
        if y.ndim != self._y.ndim or y.shape[1:] != self._y.shape[1:]:
            raise ValueError(
                f"y has shape {y.shape}; partial_fit needs targets shaped like those "
                f"of fit, (n_samples,) + {self._y.shape[1:]}."
            )
        self._partial_fit(X)
        self._y = np.concatenate([self._y, y])
        return self

    def predict(self, X=None):
        """Weighted mean target of the neighbours of each query.

        Parameters
        ----------
        X : array-like, default=None
            Queries; ``None`` uses the fitted samples, each excluding itself.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,) or (n_queries, n_outputs)
            Predicted targets.
        """
        check_is_fitted(self)
        distances, indices = self.kneighbors(X)
        weights = neighbour_weights(distances, self.weights)
        neighbour_targets = self._y[indices]
        if weights is None:
            return neighbour_targets.mean(axis=1)
        if neighbour_targets.ndim == 3:
            weights = weights[:, :, None]
        return (neighbour_targets * weights).sum(axis=1) / weights.sum(axis=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
