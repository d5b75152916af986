"""Scale out on Dask: a sharded index whose base is sent once, and exact joins
and deduplication whose pairs never leave the workers.

The base is split into shards kept in the memory of the workers (built
where each partition lives); queries fan out to every shard and the
shards' top-k merge into the global top-k. Exact distances of the
single-process estimators run on the cluster under
``joblib.parallel_config(backend="dask")`` (:mod:`._executor`).
:func:`similarity_join` and :func:`group_duplicates` cut the strings into
blocks of neighbouring lengths and join pairs of blocks in tasks, writing
the pairs (or the groups) to Parquet; :class:`DaskStringDeduplicator` keeps
the groups and puts new strings in them. Needs ``distributed``, Dask DataFrame
and pyarrow (``pip install 'sklearn-ed[dask]'``); see the user guide page
"Scaling out".
"""

try:
    import dask.dataframe  # noqa: F401
    import distributed  # noqa: F401
    import pyarrow  # noqa: F401
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError(
        "sklearn_ed.dask needs Dask's distributed scheduler, Dask DataFrame and pyarrow: "
        f"pip install 'sklearn-ed[dask]' ({error})"
    ) from error

# Found by name by sklearn_ed.distances when joblib's dask backend is active.
from ._components import group_duplicates
from ._deduplicator import DaskStringDeduplicator
from ._executor import cluster_executor  # noqa: F401
from ._join import similarity_join
from ._sharded import ShardedNeighbors
from ._shorthands import (
    ShardedFilterRefineClassifier,
    ShardedFilterRefineNeighbors,
    ShardedFilterRefineRegressor,
)

__all__ = [
    "DaskStringDeduplicator",
    "group_duplicates",
    "similarity_join",
    "ShardedNeighbors",
    "ShardedFilterRefineClassifier",
    "ShardedFilterRefineNeighbors",
    "ShardedFilterRefineRegressor",
]
