"""What runs on the workers: building a shard, searching it, merging results.

Module-level functions, so Dask pickles them by reference. A shard is a
:class:`~sklearn_ed.FilterRefineNeighbors` fitted on one partition of the
base with the shared, already fitted embedder, plus the partition's global
offset (labels and targets stay in the client process).
"""

from dataclasses import dataclass

import numpy as np
from dask.sizeof import sizeof
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator

from ..embedding import QGramEmbedder, qgram_settings
from ..neighbors import FilterRefineNeighbors


def held(value):
    """``value``, as the result of a task: Dask recomputes a lost task's
    result from its definition, which it cannot do for scattered data."""
    return value


@dataclass
class Shard:
    """One partition of the base, indexed where it lives."""

    search: FilterRefineNeighbors
    offset: int
    nbytes: int = 0

    @property
    def n_items(self):
        return self.search.n_samples_fit_

    def __sizeof__(self):
        # Dask weighs a task's inputs by sizeof to decide where it runs: a
        # shard must look as large as it is, or the scheduler would move it to
        # the worker holding the (smaller) query batch at every query.
        return self.nbytes


def build_shard(params, embedder, items, offset):
    """Index ``items`` with the fitted ``embedder`` (not refitted)."""
    items = list(items) if not isinstance(items, np.ndarray) else items
    search = FilterRefineNeighbors(embedder=FrozenEstimator(embedder), **params).fit(items)
    return Shard(search, int(offset), _nbytes(items))


def _nbytes(items):
    """Bytes of the items: a lower bound of the shard's size (its index adds to
    it), enough to keep the shard where it is."""
    if isinstance(items, np.ndarray) and items.dtype != object:
        return int(items.nbytes)
    return int(sum(map(sizeof, items)))


def materialised(items):
    """A computed partition as a sized sequence (a filtered bag's is an iterator)."""
    return items if hasattr(items, "__len__") and hasattr(items, "__getitem__") else list(items)


def shard_size(items):
    return len(items)


def sample_items(items, size, seed):
    """A seeded sample of ``size`` items, in their order."""
    rows = np.sort(np.random.RandomState(seed).choice(len(items), size=size, replace=False))
    if isinstance(items, np.ndarray):
        return items[rows]
    return [items[row] for row in rows]


def search_shard(shard, queries, n_neighbors):
    """The shard's top-k of each query: exact distances and global indices."""
    k = min(n_neighbors, shard.n_items)
    distances, indices = shard.search.kneighbors(queries, n_neighbors=k)
    return distances, indices + shard.offset


def tied_items(shard, queries, kth):
    """Per query, the shard's items at exactly ``kth[i]`` that its search sees
    (:meth:`FittedSearch.tied_items`; global indices)."""
    estimator = shard.search
    search = estimator.search_
    n_candidates = min(estimator.n_candidates_, estimator.n_samples_fit_)
    tied = search.tied_items(search.check_queries(queries), kth, n_candidates)
    return [items + shard.offset for items in tied]


def merge_top_k(left, right, n_neighbors):
    """The ``n_neighbors`` best of two partial results, by (distance, index).

    The same order as a single-process search, so ties break the same way.
    """
    distances = np.hstack([left[0], right[0]])
    indices = np.hstack([left[1], right[1]])
    order = np.lexsort((indices, distances), axis=1)[:, :n_neighbors]
    return (
        np.take_along_axis(distances, order, axis=1),
        np.take_along_axis(indices, order, axis=1),
    )


def with_shard_settings(embedder, sample, n_items):
    """A q-gram embedder refitted on ``sample`` with the ``q`` and ``density`` a
    fit on a shard of ``n_items`` picks: the sample alone keeps every q-gram,
    and a shard of a million reads would then hold 16 GB of profiles."""
    if not isinstance(embedder, QGramEmbedder) or n_items <= len(sample):
        return embedder
    settings = qgram_settings(embedder, sample, n_strings=n_items)
    if settings == {"q": embedder.q_, "density": embedder.density_}:
        return embedder
    return clone(embedder).set_params(**settings).fit(sample)
