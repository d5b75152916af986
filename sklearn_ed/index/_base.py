"""The index contract every filter backend follows.

An index holds the embedded base set and answers two questions about a
batch of embedded queries: the ``k`` nearest items (:meth:`BaseIndex.search`)
and the items within a distance (:meth:`BaseIndex.range_search`). Items are
appended with :meth:`BaseIndex.add`. Distances are in the units of the
embedding metric: symbol mismatches for ``"hamming"``, the Euclidean norm for
``"euclidean"``, the negated inner product for ``"inner_product"``.

Searching never changes the index, so one index may be searched from many
threads at once. Queries are processed in chunks of ``chunk_size``, so the
extra memory of a call does not grow with the number of queries beyond its
``(n_queries, k)`` result.
"""

import numpy as np
from scipy import sparse

from ..utils import SavedStateError, saved_int
from ._codes import EMBEDDING_METRICS, pack_symbol_codes


def _as_rows(queries):
    return queries if sparse.issparse(queries) else np.asarray(queries)


def sort_by_value(indices, values):
    """Reorder each row by value; a stable sort keeps index order among ties."""
    order = np.argsort(values, axis=1, kind="stable")
    return np.take_along_axis(indices, order, axis=1), np.take_along_axis(values, order, axis=1)


def sort_rows(distances, indices):
    """Each row by (distance, index); empty slots (index -1) go last."""
    distances = np.where(indices < 0, np.inf, distances)
    by_index = np.argsort(np.where(indices < 0, np.iinfo(np.int64).max, indices), axis=1)
    indices = np.take_along_axis(indices, by_index, axis=1)
    indices, distances = sort_by_value(indices, np.take_along_axis(distances, by_index, axis=1))
    return distances, indices


def drop_excluded(distances, indices, exclude, n_keep):
    """Remove ``exclude[i]`` from row i and keep ``n_keep`` columns."""
    keep = indices != exclude[:, None]
    # Rows that did not contain the excluded item drop their last column.
    keep[keep.all(axis=1), -1] = False
    n_rows = indices.shape[0]
    distances = distances[keep].reshape(n_rows, -1)[:, :n_keep]
    return distances, indices[keep].reshape(n_rows, -1)[:, :n_keep]


class BaseIndex:
    """Base class of the filter indexes (build, search, range search, add, pickle).

    Parameters
    ----------
    metric : {"hamming", "euclidean", "inner_product"}
        Distance between embedded items. ``"hamming"`` items are integer
        symbol codes, stored one-hot packed into bits.
    n_symbols : int, default=None
        Number of symbol values of ``"hamming"`` codes.
    chunk_size : int, default=4096
        Queries searched at once.
    """

    #: Metrics a backend supports.
    metrics = EMBEDDING_METRICS
    #: ``[low, high)`` of each saved integer setting the engine relies on
    #: (``None``: unbounded; a setting of ``None`` is left to the code that
    #: reads it); a subclass declares its own.
    _saved_bounds = {"chunk_size": (1, None), "n_symbols": (1, None), "_dim": (0, None)}
    #: Attributes that are not settings, each made afresh on load by its
    #: function: the engine (then restored by ``load_bytes``); a subclass
    #: declares its own (its locks, the engine's arrays).
    _made_on_load = {"_index": lambda: None}

    def __init__(self, metric, *, n_symbols=None, chunk_size=4096):
        if metric not in self.metrics:
            raise ValueError(
                f"{type(self).__name__} supports metric in {self.metrics}, got {metric!r}."
            )
        if metric == "hamming" and not n_symbols:
            raise ValueError("metric='hamming' needs n_symbols, the number of symbol values.")
        self.metric = metric
        self.n_symbols = n_symbols
        self.chunk_size = chunk_size
        self._index = None
        self._dim = None

    # ------------------------------------------------------------- storage
    def _encode(self, embedding):
        """Embedding as the index stores it: packed bits or float32 rows."""
        embedding = np.asarray(embedding)
        if embedding.ndim != 2:
            raise ValueError(f"embeddings must be 2-D, got shape {embedding.shape}.")
        self._check_width(embedding)
        if self.metric == "hamming":
            if embedding.dtype.kind == "f":
                embedding = embedding.astype(np.int64)
            return pack_symbol_codes(embedding, self.n_symbols)
        return np.ascontiguousarray(embedding, dtype=np.float32)

    def _check_width(self, embedding):
        if self._dim is not None and embedding.shape[1] != self._dim:
            raise ValueError(
                f"embeddings have {embedding.shape[1]} features but the index holds "
                f"{self._dim}-feature embeddings; embed queries with the embedder "
                "that built the index."
            )

    def add(self, embedding):
        """Append embedded items; they get the next item indices.

        Parameters
        ----------
        embedding : ndarray of shape (n_items, n_features)
            Symbol codes (``"hamming"``) or float vectors.

        Returns
        -------
        self : BaseIndex
            The index.
        """
        embedding = np.asarray(embedding)
        vectors = self._encode(embedding)
        if self._index is None:
            self._dim = embedding.shape[1]
            self._index = self._create(vectors)
        if len(vectors):
            self._index.add(vectors)
        return self

    def _create(self, vectors):
        """The engine's index for rows like ``vectors`` (trained if it must be)."""
        raise NotImplementedError

    @property
    def n_items(self):
        """Number of items held."""
        return 0 if self._index is None else int(self._index.ntotal)

    @property
    def n_features(self):
        """Width of the embeddings the index takes."""
        return self._dim

    # -------------------------------------------------------------- search
    def _chunks(self, n_queries):
        for start in range(0, n_queries, self.chunk_size):
            yield slice(start, min(start + self.chunk_size, n_queries))

    def search(self, queries, k, exclude=None):
        """The ``k`` nearest items of each query, ordered by (distance, index).

        Parameters
        ----------
        queries : ndarray of shape (n_queries, n_features)
            Embedded queries.
        k : int
            Items per query; ``k >= n_items`` returns every item.
        exclude : ndarray of int, shape (n_queries,), default=None
            ``exclude[i]`` (an item index, or -1) is never returned for query i.

        Returns
        -------
        distances : ndarray of float64, shape (n_queries, min(k, n_items))
            Embedding distances; ``inf`` where the index found fewer items.
        indices : ndarray of int64, shape (n_queries, min(k, n_items))
            Item indices; ``-1`` where the index found fewer items.
        """
        self._check_built()
        queries = _as_rows(queries)
        width = min(k, self.n_items - (exclude is not None))
        distances = np.empty((queries.shape[0], width), dtype=np.float64)
        indices = np.empty((queries.shape[0], width), dtype=np.int64)
        for rows in self._chunks(queries.shape[0]):
            vectors = self._encode(queries[rows])
            n_asked = min(width + (exclude is not None), self.n_items)
            if n_asked >= self.n_items:
                chunk_dist, chunk_ind = self._search_exhaustive(vectors, n_asked)
            else:
                chunk_dist, chunk_ind = self._search(vectors, n_asked)
            chunk_dist = self._to_metric_units(chunk_dist.astype(np.float64))
            chunk_dist, chunk_ind = sort_rows(chunk_dist, chunk_ind.astype(np.int64))
            if exclude is not None:
                chunk_dist, chunk_ind = drop_excluded(chunk_dist, chunk_ind, exclude[rows], width)
            distances[rows], indices[rows] = chunk_dist, chunk_ind
        return distances, indices

    def _search(self, vectors, k):
        """Engine search of encoded queries: (distances, indices) in engine units."""
        return self._index.search(vectors, k)

    def _search_exhaustive(self, vectors, k):
        """Every item's distance (k = n_items): exact whatever the backend."""
        return self._search(vectors, k)

    def range_search(self, queries, threshold, exclude=None):
        """Items within ``threshold`` (inclusive) of each query.

        Parameters
        ----------
        queries : ndarray of shape (n_queries, n_features)
            Embedded queries.
        threshold : float
            Largest embedding distance kept.
        exclude : ndarray of int, shape (n_queries,), default=None
            ``exclude[i]`` (an item index, or -1) is never returned for query i.

        Returns
        -------
        found : list of ndarray of int64
            Item indices per query, ascending.
        """
        self._check_built()
        queries = _as_rows(queries)
        found = []
        for rows in self._chunks(queries.shape[0]):
            vectors = self._encode(queries[rows])
            radius = self._engine_radius(threshold, vectors.shape[1])
            if radius is None:  # every item qualifies
                lims = np.arange(vectors.shape[0] + 1) * self.n_items
                ids = np.tile(np.arange(self.n_items), vectors.shape[0])
            else:
                lims, _, ids = self._range_search(vectors, radius)
            for offset in range(len(lims) - 1):
                hits = np.sort(ids[lims[offset] : lims[offset + 1]].astype(np.int64))
                if exclude is not None and exclude[rows.start + offset] >= 0:
                    hits = hits[hits != exclude[rows.start + offset]]
                found.append(hits)
        return found

    def _range_search(self, vectors, radius):
        """Engine range search: (lims, distances, ids) of items below ``radius``."""
        return self._index.range_search(vectors, radius)

    # ------------------------------------------------------------- units
    def _to_metric_units(self, engine_distances):
        if self.metric == "hamming":
            return engine_distances / 2.0  # one-hot bits: two per mismatched symbol
        if self.metric == "euclidean":
            return np.sqrt(np.maximum(engine_distances, 0.0))
        return -engine_distances  # inner product: larger is nearer

    def _engine_radius(self, threshold, width):
        """faiss keeps items strictly below its radius; ours is inclusive.

        ``None`` when every item is within ``threshold`` or the radius does
        not fit the engine's number type.
        """
        if self.metric == "hamming":
            bits = 8 * width
            return None if threshold >= bits else 2 * int(np.floor(threshold)) + 1
        with np.errstate(over="ignore"):
            radius = (
                np.float32(threshold) ** 2 if self.metric == "euclidean" else -np.float32(threshold)
            )
        if not np.isfinite(radius):
            if self.metric == "euclidean" or threshold > 0:
                return None
            return float(np.finfo(np.float32).max)  # inner product above any value: none
        return float(
            np.nextafter(radius, np.float32(-np.inf if self.metric != "euclidean" else np.inf))
        )

    def _check_built(self):
        if self._index is None:
            raise ValueError(f"{type(self).__name__} holds no items; add items first.")

    # --------------------------------------------------------- persistence
    def to_bytes(self):
        """The engine index serialized to a uint8 array (empty if nothing added).

        Returns
        -------
        data : ndarray of uint8
            The serialized index; what :meth:`load_bytes` restores.
        """
        if self._index is None:
            return np.zeros(0, dtype=np.uint8)
        return self._serialize(self._index)

    def load_bytes(self, data, n_features):
        """Restore the engine index from :meth:`to_bytes` output.

        Parameters
        ----------
        data : ndarray of uint8
            What :meth:`to_bytes` returned (empty: an index with no items).
        n_features : int
            Width of the embeddings the index holds.

        Returns
        -------
        self : BaseIndex
            The restored index.
        """
        data = np.asarray(data, dtype=np.uint8)
        self._dim = None if data.size == 0 else int(n_features)
        self._index = None if data.size == 0 else self._deserialize(data)
        return self

    def _serialize(self, index):
        raise NotImplementedError

    def _deserialize(self, data):
        raise NotImplementedError

    def settings_state(self):
        """The index's settings, without its engine: what :func:`sklearn_ed.save`
        writes beside the engine's bytes (:meth:`to_bytes`).

        Returns
        -------
        state : dict
            The attributes that :meth:`restore_settings` takes.
        """
        made = self._made_afresh()
        return {name: value for name, value in vars(self).items() if name not in made}

    def restore_settings(self, state):
        """Take saved settings (:meth:`settings_state`), checked first; the
        engine is then restored by :meth:`load_bytes`.

        Parameters
        ----------
        state : dict
            What :meth:`settings_state` returned.

        Returns
        -------
        self : BaseIndex
            The index, holding no items until :meth:`load_bytes`.

        Raises
        ------
        SavedStateError
            A ``ValueError`` naming the setting the engine's code could not take.
        """
        self._check_settings(state)
        self.__dict__.update(state)
        self.__dict__.update({name: make() for name, make in self._made_afresh().items()})
        return self

    def _made_afresh(self):
        made = {}
        for cls in type(self).__mro__:
            made = {**vars(cls).get("_made_on_load", {}), **made}
        return made

    def __getstate__(self):
        return {**self.settings_state(), "_index": self.to_bytes()}

    def __setstate__(self, state):
        state = dict(state)
        data = state.pop("_index")
        self.restore_settings(state)
        self.load_bytes(data, self.n_features)

    def _check_settings(self, state):
        """Refuse saved settings that the engine's code could not take safely."""
        if state.get("metric") not in self.metrics:
            raise SavedStateError("metric", f"{state.get('metric')!r} is not one of {self.metrics}")
        for cls in type(self).__mro__:
            for name, (low, high) in vars(cls).get("_saved_bounds", {}).items():
                if state.get(name) is not None:
                    saved_int(state[name], name, low=low, high=high)
        if state.get("metric") == "hamming" and state.get("n_symbols") is None:
            raise SavedStateError("n_symbols", "symbol codes need their number of symbols")

    def __repr__(self):
        return f"{type(self).__name__}(metric={self.metric!r}, n_items={self.n_items})"
