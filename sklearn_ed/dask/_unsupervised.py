"""ShardedFilterRefineNeighbors: nearest neighbors over a base sharded on Dask."""

from ._base import _ShardedBase


class ShardedFilterRefineNeighbors(_ShardedBase):
    """Filter-and-refine neighbors over a base sharded on a Dask cluster.

    The parameters of :class:`~sklearn_ed.FilterRefineNeighbors` apply to
    every shard; the embedder is fitted once, on a seeded sample of the
    first partition, and shared. With ``n_candidates`` covering each shard
    (or ``exact=True``) the answers equal a single-process search with the
    same fitted embedder, ties broken by index.

    Parameters
    ----------
    embedder : estimator or "auto", default="auto"
        As in :class:`~sklearn_ed.FilterRefineNeighbors`.
    metric : str, Metric or callable, default="levenshtein"
        Exact distance.
    n_neighbors : int, default=5
        Neighbors per query.
    n_candidates : int, float or "auto", default="auto"
        Candidates per query and shard.
    target_recall : float, default=0.95
        Recall the shards' candidate counts aim at (``n_candidates="auto"``).
    check_recall : bool, default=True
        Each shard checks its filter's recall at fit.
    filter_algorithm : str, default="auto"
        Vector index of each shard.
    index_params : dict, default=None
        Parameters of the index.
    exact : bool, default=False
        Exact search in each shard (metrics with a lower bound).
    n_jobs : int, default=None
        Threads of each shard's work on its worker.
    random_state : int, RandomState or None, default=None
        Seeds the embedder's sample and the shards' recall checks.
    client : distributed.Client, default=None
        The cluster; None uses the current client (``distributed.get_client``).
    n_shards : int, default=None
        Shards of an in-memory base (default: one per worker); for a Dask
        collection, its partitions are repartitioned to this count.

    Attributes
    ----------
    embedder_ : estimator
        The embedder fitted on the sample, shared by every shard.
    n_shards_ : int
        Number of shards.
    shard_sizes_ : ndarray of int64
        Items per shard, in base order.
    n_samples_fit_ : int
        Items in the base.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> from sklearn_ed.dask import ShardedFilterRefineNeighbors
    >>> words = ["kitten", "sitting", "mitten", "bitten", "fitting", "knitting"] * 20
    >>> with LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster, \\
    ...         Client(cluster) as client:
    ...     search = ShardedFilterRefineNeighbors(n_neighbors=2, n_candidates=1.0,
    ...                                           client=client).fit(words)
    ...     distances, indices = search.kneighbors(["kitchen"])
    >>> distances
    array([[2., 2.]])
    """

    def fit(self, X, y=None):
        """Fit the embedder on a sample, then build a shard per partition.

        Parameters
        ----------
        X : array-like or Dask collection
            The base: an in-memory sequence (split into ``n_shards`` and
            scattered) or a Dask bag, array or dataframe column (one shard
            per partition, built where it lives).
        y : None
            Ignored.

        Returns
        -------
        self : ShardedFilterRefineNeighbors
            Fitted estimator.
        """
        return self._fit_shards(X)
