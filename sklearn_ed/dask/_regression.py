"""ShardedFilterRefineRegressor: k-NN regression over a base sharded on Dask."""

import numpy as np
from sklearn.base import RegressorMixin

from ._supervised import _ShardedSupervised


class ShardedFilterRefineRegressor(RegressorMixin, _ShardedSupervised):
    """k-NN regression over a base sharded on a Dask cluster.

    As :class:`ShardedFilterRefineClassifier`, averaging the neighbors'
    targets as :class:`~sklearn_ed.FilterRefineRegressor` does with
    ``ties="index"``.

    Parameters
    ----------
    embedder : estimator or "auto", default="auto"
        As in :class:`~sklearn_ed.FilterRefineRegressor`.
    metric : str, Metric or callable, default="levenshtein"
        Exact distance.
    n_neighbors : int, default=5
        Neighbors averaged.
    weights : {"uniform", "distance"} or callable, default="uniform"
        Weights of the average.
    n_candidates : int, float or "auto", default="auto"
        Candidates per query and shard.
    target_recall : float, default=0.95
        Recall the shards' candidate counts aim at.
    check_recall : bool, default=True
        Each shard checks its filter's recall at fit.
    filter_algorithm : str, default="auto"
        Vector index of each shard.
    index_params : dict, default=None
        Parameters of the index.
    exact : bool, default=False
        Exact search in each shard.
    n_jobs : int, default=None
        Threads of each shard's work.
    random_state : int, RandomState or None, default=None
        Seeds the embedder's sample and the recall checks.
    client : distributed.Client, default=None
        The cluster; None uses the current client.
    n_shards : int, default=None
        Shards of the base (default: one per worker).

    Attributes
    ----------
    embedder_ : estimator
        The shared fitted embedder.
    n_shards_ : int
        Number of shards.
    shard_sizes_ : ndarray of int64
        Items per shard.
    n_samples_fit_ : int
        Items in the base.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> from sklearn_ed.dask import ShardedFilterRefineRegressor
    >>> words = ["a", "ab", "abc", "abcd", "abcde"] * 8
    >>> cluster = LocalCluster(n_workers=2, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> regressor = ShardedFilterRefineRegressor(n_neighbors=2, n_candidates=1.0,
    ...                                          client=client)
    >>> predicted = regressor.fit(words, [len(w) for w in words]).predict(["abcdef"])
    >>> client.close(); cluster.close()
    >>> predicted.tolist()
    [5.0]
    """

    def fit(self, X, y):
        """Build the shards, each holding its items' targets.

        Parameters
        ----------
        X : array-like
            Training items (in memory; split into shards and scattered).
        y : array-like of shape (n_samples,)
            Finite targets.

        Returns
        -------
        self : ShardedFilterRefineRegressor
            Fitted regressor.
        """
        y = np.asarray(y, dtype=np.float64)
        if not np.isfinite(y).all():
            raise ValueError("y holds NaN or infinite targets; every target must be finite.")
        return self._fit_shards(X, y)

    def predict(self, X):
        """Weighted mean target of the neighbors of each query.

        Parameters
        ----------
        X : array-like
            Queries.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,)
            Predicted targets.
        """
        targets, weights = self._votes(X)
        return (targets * weights).sum(axis=1) / weights.sum(axis=1)
