"""Scale out on Dask: a sharded index whose base is sent once.

The base is split into shards kept in the memory of the workers (built
where each partition lives); queries fan out to every shard and the
shards' top-k merge into the global top-k. Exact distances of the
single-process estimators run on the cluster under
``joblib.parallel_config(backend="dask")`` (:mod:`._executor`). Needs ``distributed``
(``pip install 'sklearn-ed[dask]'``); see the user guide page
"Scaling out".
"""

try:
    import distributed  # noqa: F401
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError(
        "sklearn_ed.dask needs Dask's distributed scheduler: pip install 'sklearn-ed[dask]'"
    ) from error

# Found by name by sklearn_ed.distances when joblib's dask backend is active.
from ._executor import cluster_executor  # noqa: F401
from ._sharded import ShardedNeighbors
from ._shorthands import (
    ShardedFilterRefineClassifier,
    ShardedFilterRefineNeighbors,
    ShardedFilterRefineRegressor,
)

__all__ = [
    "ShardedNeighbors",
    "ShardedFilterRefineClassifier",
    "ShardedFilterRefineNeighbors",
    "ShardedFilterRefineRegressor",
]
