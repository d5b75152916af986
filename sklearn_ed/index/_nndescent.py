"""pynndescent backend: a k-nearest-neighbor graph searched by descent.

pynndescent reuses one visited-node buffer in every query of an index, so
two threads querying at once corrupt each other's search. Queries therefore
run one at a time behind a lock (correct, not concurrent); faiss's HNSW is
the concurrent graph index. Symbol codes are indexed as packed bits under
pynndescent's ``"bit_hamming"`` metric, without a float32 copy.
"""

import threading

import faiss
import numpy as np

from ..utils import SavedStateError, saved_class
from ._base import BaseIndex
from ._codes import packed_width

# Largest (queries x items) block of an exhaustive scan.
_SCAN_BLOCK = 2**24


@saved_class("index")
class NNDescentIndex(BaseIndex):
    """Approximate search on a pynndescent graph (thread-safe, serialized).

    Parameters
    ----------
    metric : {"hamming", "euclidean"}
        Distance between embedded items.
    n_symbols : int, default=None
        Number of symbol values of ``"hamming"`` codes.
    n_neighbors : int, default=30
        Degree of the graph.
    random_state : int or None, default=None
        Seeds the graph construction.
    n_jobs : int or None, default=None
        Threads of the graph construction.
    chunk_size : int, default=4096
        Queries searched at once.
    """

    metrics = ("hamming", "euclidean")
    _saved_bounds = {"n_neighbors": (1, None)}
    # The rows are the engine's: load_bytes restores them with the graph.
    _made_on_load = {"_lock": threading.Lock, "_data": lambda: None}

    def __init__(
        self,
        metric,
        *,
        n_symbols=None,
        n_neighbors=30,
        random_state=None,
        n_jobs=None,
        chunk_size=4096,
    ):
        super().__init__(metric, n_symbols=n_symbols, chunk_size=chunk_size)
        self.n_neighbors = n_neighbors
        self.random_state = random_state
        self.n_jobs = n_jobs
        self._lock = threading.Lock()
        self._data = None

    def add(self, embedding):
        """Append items and rebuild the graph over all items.

        Parameters
        ----------
        embedding : ndarray of shape (n_items, n_features)
            Symbol codes (``"hamming"``) or float vectors.

        Returns
        -------
        self : NNDescentIndex
            The index.
        """
        embedding = np.asarray(embedding)
        vectors = self._encode(embedding)
        self._dim = embedding.shape[1]
        data = vectors if self._data is None else np.vstack([self._data, vectors])
        with self._lock:
            self._data = data
            self._index = self._build(data)
        return self

    def _build(self, data):
        from pynndescent import NNDescent

        if len(data) < 2:
            return None
        index = NNDescent(
            data,
            metric="bit_hamming" if self.metric == "hamming" else "euclidean",
            n_neighbors=min(self.n_neighbors, len(data) - 1),
            random_state=self.random_state,
            n_jobs=self.n_jobs,
            compressed=False,
        )
        index.prepare()  # compile and allocate now, not during the first query
        return index

    @property
    def n_items(self):
        """Number of items held."""
        return 0 if self._data is None else len(self._data)

    def _check_built(self):
        if self._data is None:
            raise ValueError("NNDescentIndex holds no items; add items first.")

    def _search(self, vectors, k):
        with self._lock:
            indices, distances = self._index.query(vectors, k=k)
        if self.metric == "euclidean":
            distances = distances.astype(np.float64) ** 2  # engine units: squared L2
        return distances, indices

    def _search_exhaustive(self, vectors, k):
        if self.metric == "hamming":
            return faiss.knn_hamming(vectors, self._data, k)
        return faiss.knn(vectors, self._data, k)

    def _range_search(self, vectors, radius):
        ids, dists, lims = [], [], [0]
        rows = max(1, _SCAN_BLOCK // max(self.n_items, 1))
        for start in range(0, len(vectors), rows):
            block_dist, block_ids = self._search_exhaustive(
                vectors[start : start + rows], self.n_items
            )
            for row_dist, row_ids in zip(block_dist, block_ids):
                keep = row_dist < radius
                ids.append(row_ids[keep])
                dists.append(row_dist[keep])
                lims.append(lims[-1] + int(keep.sum()))
        return np.array(lims), np.concatenate(dists), np.concatenate(ids)

    def to_bytes(self):
        """The indexed rows (the graph is rebuilt from them on load).

        Returns
        -------
        data : ndarray of uint8
            The serialized index; what :meth:`load_bytes` restores.
        """
        if self._data is None:
            return np.zeros(0, dtype=np.uint8)
        return np.ascontiguousarray(self._data).view(np.uint8).ravel()

    def load_bytes(self, data, n_features):
        """Restore from :meth:`to_bytes` output, rebuilding the graph.

        Parameters
        ----------
        data : ndarray of uint8
            What :meth:`to_bytes` returned (empty: an index with no items).
        n_features : int
            Width of the embeddings the index holds.

        Returns
        -------
        self : NNDescentIndex
            The restored index.
        """
        data = np.asarray(data, dtype=np.uint8)
        self._dim = None if data.size == 0 else int(n_features)
        self._data = self._index = None
        if data.size:
            dtype = np.uint8 if self.metric == "hamming" else np.float32
            width = (
                packed_width(n_features, self.n_symbols) if self.metric == "hamming" else n_features
            )
            row_bytes = width * np.dtype(dtype).itemsize
            if row_bytes == 0 or data.size % row_bytes:
                raise SavedStateError("_index", f"{data.size} bytes are not rows of {row_bytes}")
            self._data = data.view(dtype).reshape(-1, width)
            self._index = self._build(self._data)
        return self
