"""FilterRefine estimators whose base is split into shards on a Dask cluster.

``fit`` fits the embedder once, on a sample of the base, and sends it to the
workers; each partition of the base becomes a shard (its embedded codes, its
index and its items) built where the partition lives and kept in worker
memory. A query batch is sent once to each worker, every shard returns its
local top-k with exact distances and global indices, and a tree of pairwise
merges gives the global top-k, ties broken by index as in one process.
"""

import threading
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, clone, is_classifier, is_regressor
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    validate_parameter_constraints,
)
from sklearn.utils.validation import check_is_fitted, column_or_1d

from ..distances import get_metric
from ..neighbors import (
    FilterRefineNeighbors,
)
from ..search import choose_embedder
from ..utils import check_items
from ._executor import scatter_to_workers
from ._shards import (
    build_shard,
    held,
    materialised,
    merge_top_k,
    sample_items,
    search_shard,
    shard_size,
    with_shard_settings,
)
from ._votes import ShardedVotesMixin, required_targets

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


class ShardedNeighbors(ShardedVotesMixin, BaseEstimator):
    """Any FilterRefine estimator over a base sharded on a Dask cluster.

    Wraps :class:`~sklearn_ed.FilterRefineNeighbors`,
    :class:`~sklearn_ed.FilterRefineClassifier` or
    :class:`~sklearn_ed.FilterRefineRegressor`: every option of the wrapped
    estimator (metric, embedder, candidates, exact search, and for the
    supervised ones weights and ties) applies to the sharded search. The
    embedder is fitted once, on a seeded sample of the first partition (a
    q-gram embedder with the ``q`` and ``density`` a fit on the largest
    shard picks), and shared; each partition of the base becomes a shard (a
    ``FilterRefineNeighbors`` with the wrapped estimator's search
    parameters) kept in worker memory, queries fan out to every shard, and
    the shards' top-k merge into the global top-k, ties broken by index.
    Labels and targets stay in this process and are voted on after the
    merge, as the wrapped estimator votes. With ``n_candidates`` covering
    each shard (or ``exact=True``) the answers equal the wrapped estimator's
    in one process with the same fitted embedder.

    Parameters
    ----------
    estimator : FilterRefineNeighbors, FilterRefineClassifier or \
            FilterRefineRegressor, default=None
        The estimator to shard (not fitted; its parameters are read at fit).
        ``None`` means ``FilterRefineNeighbors()``.
    client : distributed.Client, default=None
        The cluster; None uses the current client (``distributed.get_client``).
        Shared, not copied, by ``clone`` (so ``GridSearchCV`` runs on it).
    n_shards : int, default=None
        Shards of an in-memory base (default: one per worker, at most one
        per item); a Dask collection is repartitioned to it if given.

    Attributes
    ----------
    estimator_ : estimator
        A clone of ``estimator`` holding the shared fitted ``embedder_``.
    embedder_ : estimator
        The shared fitted embedder.
    classes_ : ndarray
        Class labels (classifiers).
    n_shards_ : int
        Number of shards.
    shard_sizes_ : ndarray of int64
        Items per shard.
    n_samples_fit_ : int
        Items in the base.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> from sklearn_ed import FilterRefineClassifier
    >>> from sklearn_ed.dask import ShardedNeighbors
    >>> words = ["kitten", "mitten", "sitting", "fitting"] * 10
    >>> labels = ["-tten", "-tten", "-tting", "-tting"] * 10
    >>> cluster = LocalCluster(n_workers=2, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> classifier = ShardedNeighbors(
    ...     FilterRefineClassifier(n_neighbors=3, n_candidates=1.0), client=client
    ... ).fit(words, labels)
    >>> predicted = classifier.predict(["bitten", "knitting"])
    >>> client.close(); cluster.close()
    >>> predicted.tolist()
    ['-tten', '-tting']
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "kneighbors"]), None],
        "client": "no_validation",
        "n_shards": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, estimator=None, *, client=None, n_shards=None):
        self.estimator = estimator
        self.client = client
        self.n_shards = n_shards

    def _wrapped(self):
        return FilterRefineNeighbors() if self.estimator is None else self.estimator

    def _setting(self, name):
        return self._wrapped().get_params(deep=False)[name]

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Build the shards on the workers; labels or targets stay in this process.

        Parameters
        ----------
        X : array-like or Dask collection
            Base items: in memory (split into ``n_shards`` and scattered), or
            a Dask bag, array or series (one shard per non-empty partition;
            unsupervised estimators only).
        y : array-like of shape (n_samples,), default=None
            Labels (classifier) or targets (regressor).

        Returns
        -------
        self : ShardedNeighbors
            Fitted estimator.
        """
        wrapped = self._wrapped()
        self._targets = None
        if is_classifier(wrapped):
            self.classes_, self._targets = np.unique(
                column_or_1d(required_targets(y)), return_inverse=True
            )
        elif is_regressor(wrapped):
            self._targets = np.asarray(required_targets(y), dtype=np.float64)
            if not np.isfinite(self._targets).all():
                raise ValueError("y holds NaN or infinite targets; every target must be finite.")
        self._fit_shards(X, self._targets)
        self.estimator_ = clone(wrapped).set_params(embedder=self.embedder_)
        return self

    def _shard_params(self):
        """The wrapped estimator's parameters that each shard's FilterRefineNeighbors
        takes (not the embedder, fitted once for all shards, nor ``verbose``)."""
        accepted = set(FilterRefineNeighbors().get_params(deep=False)) - {"embedder", "verbose"}
        params = self._wrapped().get_params(deep=False)
        return {name: value for name, value in params.items() if name in accepted}

    def _fit_shards(self, X, y=None):
        self._validate_params()  # here, not on every worker's shard
        wrapped = self._wrapped()
        validate_parameter_constraints(
            type(wrapped)._parameter_constraints,
            wrapped.get_params(deep=False),
            caller_name=type(wrapped).__name__,
        )
        client = self._client()
        self._input_type = get_metric(self._setting("metric")).input_type
        partitions, sizes = self._partitions(client, X, y)
        self.n_shards_ = len(partitions)
        self.n_samples_fit_ = int(sum(sizes))
        self.embedder_ = self._fit_embedder(client, partitions[0], sizes[0], max(sizes))
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
                pure=False,
            )
            for part, offset in zip(partitions, offsets)
        ]
        self.shard_sizes_ = np.asarray(sizes, dtype=np.int64)
        self._offsets = offsets
        self._wait_for_shards(client)
        return self

    def _client(self):
        from distributed import get_client

        client = self.client if self.client is not None else get_client()
        if client.status != "running":
            raise RuntimeError("The Dask client is closed; pass a running Client.")
        # Asked of the scheduler: scheduler_info() may return the client's
        # periodic snapshot, which lists no workers (a running cluster once
        # failed this check).
        if not client.nthreads():
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
            return [parts[i] for i in kept], [sizes[i] for i in kept]
        items = check_items(X, self._input_type, name="X")
        n_workers = len(client.nthreads())
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
        # References to the caller's items, not copies: a shard lost with its
        # worker is scattered again from them.
        self._chunks = chunks
        return client.scatter(chunks, hash=False), [len(chunk) for chunk in chunks]

    def _fit_embedder(self, client, first_partition, first_size, largest_shard):
        """Fit the embedder once, on a seeded sample of the first partition
        (drawn on its worker: only the sample travels), with the settings of
        a fit on the largest shard."""
        seed = check_random_state(self._setting("random_state")).randint(np.iinfo(np.int32).max)
        sample = client.submit(
            sample_items, first_partition, min(first_size, EMBEDDER_SAMPLE_SIZE), seed
        ).result()
        # Only the embedder is kept: the sample's index and recall check are
        # skipped. "auto" is resolved here: on a sample, it could choose brute
        # force, which has no embedder for the shards.
        sample_search = FilterRefineNeighbors(
            embedder=self._chosen_embedder(sample),
            **{**self._shard_params(), "check_recall": False, "n_neighbors": 1, "n_candidates": 1},
        ).fit(sample)
        return with_shard_settings(sample_search.embedder_, sample, largest_shard)

    def _chosen_embedder(self, sample):
        embedder = self._setting("embedder")
        if embedder is not None and not isinstance(embedder, str):
            return embedder
        seed = self._setting("random_state")
        return choose_embedder(
            sample,
            get_metric(self._setting("metric")),
            self._setting("filter_algorithm"),
            self._setting("n_jobs"),
            0 if seed is None else seed,
        )

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
            distances, indices = self._search(X, n_neighbors)
        return (distances, indices) if return_distance else indices

    def _kneighbors_of_the_base(self, n_neighbors):
        """Each base item's neighbors but itself: one more neighbor, then its own
        index dropped (or, when ties pushed it out, the farthest)."""
        check_is_fitted(self, "n_shards_")
        k = self._setting("n_neighbors") if n_neighbors is None else n_neighbors
        if not isinstance(k, Integral) or not 1 <= k < self.n_samples_fit_:
            raise ValueError(
                f"Without X each item is excluded from its own neighbors: n_neighbors "
                f"must be an integer in [1, {self.n_samples_fit_ - 1}], got {k!r}."
            )
        chunks = self._chunks
        if chunks is None:
            chunks = self._client().gather(self._partition_futures)
        distances, indices = self._search(np.concatenate(chunks), k + 1)
        own = indices == np.arange(len(indices))[:, None]
        own[~own.any(axis=1), -1] = True
        keep = ~own
        return distances[keep].reshape(-1, k), indices[keep].reshape(-1, k)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        wrapped_tags = self._wrapped().__sklearn_tags__()
        tags.estimator_type = wrapped_tags.estimator_type
        tags.input_tags = wrapped_tags.input_tags
        return tags

    def __sklearn_clone__(self):
        # The client is shared, not copied: a Client cannot be deep-copied,
        # and GridSearchCV's clones should all use the caller's cluster.
        params = self.get_params(deep=False)
        client = params.pop("client")
        return type(self)(client=client, **{k: clone(v, safe=False) for k, v in params.items()})

    def _search(self, X, n_neighbors=None):
        check_is_fitted(self, "n_shards_")
        k = self._setting("n_neighbors") if n_neighbors is None else n_neighbors
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
        # Waited for on a thread event, not with future.result(timeout=...):
        # distributed's timed result raised UnboundLocalError when the answer
        # came as the timeout fired (asyncio.wait_for's race, in CI).
        finished = threading.Event()
        future.add_done_callback(lambda _: finished.set())
        while not finished.wait(_POLL_SECONDS):
            # Dask rebuilds a lost shard of a Dask collection from its
            # partition; a scattered partition is only rebuilt by us.
            if self._scattered_base and any(
                part.status != "finished" for part in self._partition_futures
            ):
                raise _ShardsLost("a scattered partition was lost with its worker")
        return future.result()

    def _search_dask(self, X, k):
        import dask.array as da

        parts = [part.compute() for part in np.ravel(np.asarray(X.to_delayed(), dtype=object))]
        results = [self._search(part, k) for part in parts if len(part)]
        rows = tuple(len(result[0]) for result in results)
        return tuple(
            da.from_array(part, chunks=(rows,) + part.shape[1:]) for part in _stack_rows(results)
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
    """Batches of (distances, indices) stacked along the queries."""
    return tuple(np.concatenate([result[part] for result in results]) for part in range(2))


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
