"""The sharded estimators by name: shorthands for ``ShardedNeighbors(estimator)``.

Each takes the parameters of the estimator it shards plus ``client`` and
``n_shards``, and returns the :class:`ShardedNeighbors` wrapping it: there is
one sharded estimator, and every option of the wrapped one applies.
"""

from ..neighbors import FilterRefineClassifier, FilterRefineNeighbors, FilterRefineRegressor
from ._sharded import ShardedNeighbors


def ShardedFilterRefineNeighbors(embedder="auto", *, client=None, n_shards=None, **params):
    """``ShardedNeighbors(FilterRefineNeighbors(embedder, **params), client=..., n_shards=...)``.

    Parameters
    ----------
    embedder : estimator or "auto", default="auto"
        As in :class:`~sklearn_ed.FilterRefineNeighbors`.
    client : distributed.Client, default=None
        The cluster; None uses the current client.
    n_shards : int, default=None
        Shards of an in-memory base (default: one per worker).
    **params : dict
        Parameters of :class:`~sklearn_ed.FilterRefineNeighbors`.

    Returns
    -------
    sharded : ShardedNeighbors
        Not fitted.
    """
    estimator = FilterRefineNeighbors(embedder, **params)
    return ShardedNeighbors(estimator, client=client, n_shards=n_shards)


def ShardedFilterRefineClassifier(embedder="auto", *, client=None, n_shards=None, **params):
    """``ShardedNeighbors(FilterRefineClassifier(embedder, **params), client=..., n_shards=...)``.

    Parameters
    ----------
    embedder : estimator or "auto", default="auto"
        As in :class:`~sklearn_ed.FilterRefineClassifier`.
    client : distributed.Client, default=None
        The cluster; None uses the current client.
    n_shards : int, default=None
        Shards of an in-memory base (default: one per worker).
    **params : dict
        Parameters of :class:`~sklearn_ed.FilterRefineClassifier` (``ties``
        and ``weights`` included).

    Returns
    -------
    sharded : ShardedNeighbors
        Not fitted.
    """
    estimator = FilterRefineClassifier(embedder, **params)
    return ShardedNeighbors(estimator, client=client, n_shards=n_shards)


def ShardedFilterRefineRegressor(embedder="auto", *, client=None, n_shards=None, **params):
    """``ShardedNeighbors(FilterRefineRegressor(embedder, **params), client=..., n_shards=...)``.

    Parameters
    ----------
    embedder : estimator or "auto", default="auto"
        As in :class:`~sklearn_ed.FilterRefineRegressor`.
    client : distributed.Client, default=None
        The cluster; None uses the current client.
    n_shards : int, default=None
        Shards of an in-memory base (default: one per worker).
    **params : dict
        Parameters of :class:`~sklearn_ed.FilterRefineRegressor`.

    Returns
    -------
    sharded : ShardedNeighbors
        Not fitted.
    """
    estimator = FilterRefineRegressor(embedder, **params)
    return ShardedNeighbors(estimator, client=client, n_shards=n_shards)
