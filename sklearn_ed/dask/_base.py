"""FilterRefine estimators whose base is split into shards on a Dask cluster.

``fit`` fits the embedder once, on a sample of the base, and sends it to the
workers; each partition of the base becomes a shard (its embedded codes, its
index and its items) built where the partition lives and kept in worker
memory. A query batch is sent once to each worker, every shard returns its
local top-k with exact distances and global indices, and a tree of pairwise
merges gives the global top-k, ties broken by index as in one process.
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ..distances import get_metric, scatter_to_workers
from ..neighbors import FilterRefineNeighbors
from ..utils import check_items
from ._shards import (
    build_shard,
    held,
    materialised,
    merge_top_k,
    sample_items,
    search_shard,
    shard_size,
)

# Queries sent to the shards at once: the query batch travels once per
# worker, and each shard's answer for it is one small array.
QUERY_BATCH_SIZE = 2_048
# Seconds between checks that the shards still exist while a query waits.
_POLL_SECONDS = 1.0
# Times a query batch is sent before a lost cluster is reported (a base from
# a Dask collection: lost shards are rebuilt, lost query batches sent again).
_BATCH_ATTEMPTS = 3
# Items of the base the embedder is fitted on (a seeded sample).
EMBEDDER_SAMPLE_SIZE = 20_000


class _ShardedBase(BaseEstimator):
    """Shared fit / kneighbors of the sharded estimators."""

    _parameter_constraints: dict = {
        **{
            name: constraint
            for name, constraint in FilterRefineNeighbors._parameter_constraints.items()
            if name not in ("radius", "radius_blowup", "verbose")
        },
        "client": "no_validation",
        "n_shards": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        embedder="auto",
        *,
        metric="levenshtein",
        n_neighbors=5,
        n_candidates="auto",
        target_recall=0.95,
        check_recall=True,
        filter_algorithm="auto",
        index_params=None,
        exact=False,
        n_jobs=None,
        random_state=None,
        client=None,
        n_shards=None,
    ):
        self.embedder = embedder
        self.metric = metric
        self.n_neighbors = n_neighbors
        self.n_candidates = n_candidates
        self.target_recall = target_recall
        self.check_recall = check_recall
        self.filter_algorithm = filter_algorithm
        self.index_params = index_params
        self.exact = exact
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.client = client
        self.n_shards = n_shards

    # ------------------------------------------------------------------ fit
    def _shard_params(self):
        """The parameters every shard's FilterRefineNeighbors gets."""
        return {
            "metric": self.metric,
            "n_neighbors": self.n_neighbors,
            "n_candidates": self.n_candidates,
            "target_recall": self.target_recall,
            "check_recall": self.check_recall,
            "filter_algorithm": self.filter_algorithm,
            "index_params": self.index_params,
            "exact": self.exact,
            "n_jobs": self.n_jobs,
            "random_state": self.random_state,
        }

    def _fit_shards(self, X, y=None):
        self._validate_params()  # here, not on every worker's shard
        client = self._client()
        self._input_type = get_metric(self.metric).input_type
        partitions, sizes, targets = self._partitions(client, X, y)
        self.n_shards_ = len(partitions)
        self.n_samples_fit_ = int(sum(sizes))
        self.embedder_ = self._fit_embedder(client, partitions[0], sizes[0])
        # A task, not scattered data: a shard rebuilt after its worker died
        # needs the embedder, and scattered data lost with its last holder
        # (Dask's memory manager keeps one) is gone for good.
        self._embedder_future = client.submit(held, self.embedder_, pure=False)
        embedder = self._embedder_future
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        params = self._shard_params()
        self._partition_futures = partitions
        self._scattered_base = not _is_dask_collection(X)
        if not self._scattered_base:
            self._chunks = None
        self._shards = [
            client.submit(
                build_shard,
                params,
                embedder,
                part,
                int(offset),
                None if targets is None else targets[i],
                pure=False,
            )
            for i, (part, offset) in enumerate(zip(partitions, offsets))
        ]
        self.shard_sizes_ = np.asarray(sizes, dtype=np.int64)
        self._offsets = offsets
        self._targets = targets
        self._wait_for_shards(client)
        return self

    def _client(self):
        from distributed import get_client

        client = self.client if self.client is not None else get_client()
        if client.status != "running":
            raise RuntimeError("The Dask client is closed; pass a running Client.")
        if not client.scheduler_info().get("workers"):
            raise RuntimeError(
                "The Dask cluster has no workers; start some (cluster.scale(n)) and fit again."
            )
        return client

    def _partitions(self, client, X, y):
        """Futures of the base's partitions, their sizes, and targets per shard."""
        if _is_dask_collection(X):
            if y is not None:
                raise TypeError(
                    "The supervised sharded estimators take X and y in memory; a Dask "
                    "collection as the base is for ShardedFilterRefineNeighbors."
                )
            parts = [
                client.submit(materialised, client.compute(part), pure=False)
                for part in _delayed_partitions(X, self.n_shards)
            ]
            sizes = client.gather([client.submit(shard_size, part) for part in parts])
            if not sum(sizes):
                raise ValueError("The base holds no items; at least one is required.")
            # Empty partitions (ordinary after a filter) hold no shard.
            kept = [i for i, size in enumerate(sizes) if size]
            return [parts[i] for i in kept], [sizes[i] for i in kept], None
        items = check_items(X, self._input_type, name="X")
        n_workers = len(client.scheduler_info()["workers"])
        n_shards = self.n_shards if self.n_shards is not None else min(n_workers, len(items))
        if n_shards > len(items):
            raise ValueError(
                f"n_shards={n_shards} is more than the {len(items)} items of the base; "
                "each shard needs at least one item."
            )
        if y is not None and len(y) != len(items):
            raise ValueError(
                f"X has {len(items)} items but y has {len(y)} targets; one "
                "target per item is needed."
            )
        bounds = np.linspace(0, len(items), n_shards + 1).astype(int)
        chunks = [items[start:stop] for start, stop in zip(bounds[:-1], bounds[1:])]
        targets = (
            None if y is None else [y[start:stop] for start, stop in zip(bounds[:-1], bounds[1:])]
        )
        # References to the caller's items, not copies: a shard lost with its
        # worker is scattered again from them.
        self._chunks = chunks
        return client.scatter(chunks, hash=False), [len(chunk) for chunk in chunks], targets

    def _fit_embedder(self, client, first_partition, first_size):
        """Fit the embedder once, on a seeded sample of the first partition
        (drawn on its worker: only the sample travels)."""
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        sample = client.submit(
            sample_items, first_partition, min(first_size, EMBEDDER_SAMPLE_SIZE), seed
        ).result()
        # Only the embedder is kept: the sample's index and recall check are skipped.
        sample_search = FilterRefineNeighbors(
            embedder=self.embedder,
            **{**self._shard_params(), "check_recall": False, "n_neighbors": 1, "n_candidates": 1},
        ).fit(sample)
        return sample_search.embedder_

    def _wait_for_shards(self, client):
        from distributed import wait

        wait(self._shards)
        failed = [i for i, shard in enumerate(self._shards) if shard.status != "finished"]
        if failed:
            shard = self._shards[failed[0]]
            raise RuntimeError(f"Building shard {failed[0]} failed: {shard.exception()!r}")

    # ------------------------------------------------------------ queries
    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """Exact-distance neighbors of each query, over every shard.

        Parameters
        ----------
        X : array-like or Dask collection of queries, default=None
            Items of the kind the base holds. A Dask bag, array or series
            gives Dask arrays back. ``None`` queries the base itself, each
            item excluded from its own neighbors (its partitions are
            gathered to this process for that).
        n_neighbors : int, default=None
            Neighbors per query; defaults to the constructor's value.
        return_distance : bool, default=True
            Whether to return the distances.

        Returns
        -------
        neigh_dist : ndarray of shape (n_queries, n_neighbors)
            Exact distances, ascending. Only if ``return_distance=True``.
        neigh_ind : ndarray of shape (n_queries, n_neighbors)
            Indices into the base (in the order of its partitions).
        """
        if X is None:
            distances, indices = self._kneighbors_of_the_base(n_neighbors)
        else:
            distances, indices, _ = self._search(X, n_neighbors)
        return (distances, indices) if return_distance else indices

    def _kneighbors_of_the_base(self, n_neighbors):
        """Each base item's neighbors but itself: one more neighbor, then its own
        index dropped (or, when ties pushed it out, the farthest)."""
        check_is_fitted(self, "n_shards_")
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if not isinstance(k, Integral) or not 1 <= k < self.n_samples_fit_:
            raise ValueError(
                f"Without X each item is excluded from its own neighbors: n_neighbors "
                f"must be an integer in [1, {self.n_samples_fit_ - 1}], got {k!r}."
            )
        chunks = self._chunks
        if chunks is None:
            chunks = self._client().gather(self._partition_futures)
        distances, indices, _ = self._search(np.concatenate(chunks), k + 1)
        own = indices == np.arange(len(indices))[:, None]
        own[~own.any(axis=1), -1] = True
        keep = ~own
        return distances[keep].reshape(-1, k), indices[keep].reshape(-1, k)

    def __sklearn_clone__(self):
        # The client is shared, not copied: a Client cannot be deep-copied,
        # and GridSearchCV's clones should all use the caller's cluster.
        params = self.get_params(deep=False)
        client = params.pop("client")
        return type(self)(client=client, **{k: clone(v, safe=False) for k, v in params.items()})

    def _search(self, X, n_neighbors=None):
        check_is_fitted(self, "n_shards_")
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if not isinstance(k, Integral) or not 1 <= k <= self.n_samples_fit_:
            raise ValueError(
                f"n_neighbors must be an integer in [1, {self.n_samples_fit_}], got {k!r}."
            )
        if _is_dask_collection(X):
            return self._search_dask(X, k)
        queries = check_items(X, self._input_type, name="X")
        client = self._client()
        results = [
            self._search_batch(client, queries[start : start + QUERY_BATCH_SIZE], k)
            for start in range(0, len(queries), QUERY_BATCH_SIZE)
        ]
        return _stack_rows(results)

    def _search_batch(self, client, queries, k):
        """One batch over every shard. A worker lost mid-batch may take shards
        and the batch's queries with it: the lost shards are rebuilt (Dask
        recomputes those of a Dask collection; those of items in memory are
        scattered again from them) and the batch is sent again."""
        lost = (*_lost_errors(), _ShardsLost)
        for attempt in range(1, _BATCH_ATTEMPTS + 1):
            try:
                return self._result(self._submit_batch(client, queries, k))
            except lost as error:
                if attempt == _BATCH_ATTEMPTS:
                    raise RuntimeError(
                        f"Dask lost the query tasks {_BATCH_ATTEMPTS} times "
                        f"({type(error).__name__}: {error}): workers kept dying, or the "
                        "cluster went away. Nothing was returned; repeat the call once "
                        "the cluster has workers."
                    ) from error
                if self._scattered_base:
                    self._rebuild_lost_shards(client)

    def _rebuild_lost_shards(self, client):
        """Scatter the lost partitions of an in-memory base again and rebuild their shards."""
        from distributed import wait

        for i, part in enumerate(self._partition_futures):
            if part.status == "finished" and self._shards[i].status == "finished":
                continue
            self._partition_futures[i] = client.scatter(self._chunks[i], hash=False)
            self._shards[i] = client.submit(
                build_shard,
                self._shard_params(),
                self._embedder_future,
                self._partition_futures[i],
                int(self._offsets[i]),
                None if self._targets is None else self._targets[i],
                pure=False,
            )
        wait(self._shards)

    def _submit_batch(self, client, queries, k):
        # Sent to one worker; the others fetch it from there (one hop each).
        batch = scatter_to_workers(client, queries)
        partial = [
            client.submit(search_shard, shard, batch, k, pure=False) for shard in self._shards
        ]
        while len(partial) > 1:  # a tree of pairwise merges
            partial = [
                client.submit(merge_top_k, *partial[i : i + 2], k, pure=False)
                if i + 1 < len(partial)
                else partial[i]
                for i in range(0, len(partial), 2)
            ]
        return partial[0]

    def _result(self, future):
        """The merged answer; :class:`_ShardsLost`, not a hang, when shards are gone."""
        while True:
            try:
                return future.result(timeout=_POLL_SECONDS)
            except TimeoutError:
                # Dask rebuilds a lost shard of a Dask collection from its
                # partition; a scattered partition is only rebuilt by us.
                if self._scattered_base and any(
                    part.status != "finished" for part in self._partition_futures
                ):
                    raise _ShardsLost("a scattered partition was lost with its worker") from None

    def _search_dask(self, X, k):
        import dask.array as da

        parts = [part.compute() for part in np.ravel(np.asarray(X.to_delayed(), dtype=object))]
        results = [self._search(part, k) for part in parts if len(part)]
        rows = tuple(len(result[0]) for result in results)
        return tuple(
            None if part is None else da.from_array(part, chunks=(rows,) + part.shape[1:])
            for part in _stack_rows(results)
        )


class _ShardsLost(Exception):
    """Partitions scattered from this process were lost with their worker."""


def _lost_errors():
    """What Dask raises for work lost with a worker."""
    from distributed.client import FutureCancelledError
    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    return (FutureCancelledError, KilledWorker, CommClosedError, OSError)


def _stack_rows(results):
    """Batches of (distances, indices, targets) stacked along the queries."""
    return tuple(
        None if results[0][part] is None else np.concatenate([result[part] for result in results])
        for part in range(3)
    )


def _is_dask_collection(X):
    return hasattr(X, "__dask_graph__") and X.__dask_graph__() is not None


def _delayed_partitions(X, n_shards):
    """One delayed list/array of items per partition of a bag, array or series."""
    if n_shards is not None and hasattr(X, "repartition"):
        X = X.repartition(npartitions=n_shards)
    elif n_shards is not None and hasattr(X, "rechunk"):
        X = X.rechunk(max(1, int(np.ceil(X.shape[0] / n_shards))))
    parts = X.to_delayed()
    return list(np.ravel(parts)) if isinstance(parts, np.ndarray) else list(parts)
