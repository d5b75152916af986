"""ShardedFilterRefineClassifier: k-NN classification over a base sharded on Dask."""

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import column_or_1d

from ._supervised import _ShardedSupervised


class ShardedFilterRefineClassifier(ClassifierMixin, _ShardedSupervised):
    """k-NN classification over a base sharded on a Dask cluster.

    As :class:`ShardedFilterRefineNeighbors`; each shard keeps the labels of
    its items, returns them with its neighbors, and the votes are counted
    after the merge, as :class:`~sklearn_ed.FilterRefineClassifier` counts
    them with ``ties="index"`` (the k-th neighbor is the one of smaller
    index: shards do not see each other's ties).

    Parameters
    ----------
    embedder : estimator or "auto", default="auto"
        As in :class:`~sklearn_ed.FilterRefineClassifier`.
    metric : str, Metric or callable, default="levenshtein"
        Exact distance.
    n_neighbors : int, default=5
        Voting neighbors.
    weights : {"uniform", "distance"} or callable, default="uniform"
        Vote weights, as in scikit-learn.
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
    classes_ : ndarray
        Class labels.
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
    >>> from sklearn_ed.dask import ShardedFilterRefineClassifier
    >>> words = ["kitten", "mitten", "sitting", "fitting"] * 10
    >>> labels = ["-tten", "-tten", "-tting", "-tting"] * 10
    >>> cluster = LocalCluster(n_workers=2, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> classifier = ShardedFilterRefineClassifier(n_neighbors=3, n_candidates=1.0,
    ...                                            client=client).fit(words, labels)
    >>> predicted = classifier.predict(["bitten", "knitting"])
    >>> client.close(); cluster.close()
    >>> predicted.tolist()
    ['-tten', '-tting']
    """

    def fit(self, X, y):
        """Build the shards, each holding its items' labels.

        Parameters
        ----------
        X : array-like
            Training items (in memory; split into shards and scattered).
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : ShardedFilterRefineClassifier
            Fitted classifier.
        """
        y = column_or_1d(np.asarray(y))
        self.classes_, encoded = np.unique(y, return_inverse=True)
        return self._fit_shards(X, encoded)

    def predict_proba(self, X):
        """Share of (weighted) neighbor votes for each class.

        Parameters
        ----------
        X : array-like
            Queries.

        Returns
        -------
        proba : ndarray of shape (n_queries, n_classes)
            Class probabilities, columns in the order of ``classes_``.
        """
        from ..neighbors import vote_shares

        targets, weights = self._votes(X)
        return vote_shares(targets, weights, len(self.classes_))

    def predict(self, X):
        """Most voted class of each query.

        Parameters
        ----------
        X : array-like
            Queries.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,)
            Predicted labels.
        """
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
