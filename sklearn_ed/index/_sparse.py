"""Sparse cosine index: top-n by cosine over CSR rows, never densified.

The product of the queries' and the items' profiles keeps only the ``k``
largest similarities per row (``sparse_dot_topn``, multi-threaded, memory
bounded by ``k`` per query), the engine of tf-idf string matchers.
"""

import io

import numpy as np
from scipy import sparse
from sklearn.preprocessing import normalize

from ._base import BaseIndex

# Largest (queries x items) dense block of an exhaustive scan.
_SCAN_BLOCK = 2**24


class SparseCosineIndex(BaseIndex):
    """Top-n cosine search over sparse, L2-normalized rows.

    Distances are ``1 - cosine similarity``. When fewer than ``k`` items
    share a feature with a query, the rest of its row holds the items of
    smallest index among the others, at distance 1 (cosine 0).

    Parameters
    ----------
    metric : {"cosine"}, default="cosine"
        Distance between embedded items.
    n_threads : int, default=None
        Threads of the sparse product (``None``: one).
    chunk_size : int, default=4096
        Queries searched at once.

    Examples
    --------
    >>> from sklearn_ed import QGramEmbedder
    >>> from sklearn_ed.index import SparseCosineIndex
    >>> words = ["kitten", "sitting", "mitten"]
    >>> embedder = QGramEmbedder(q=2).fit(words)
    >>> index = SparseCosineIndex().add(embedder.transform(words))
    >>> index.search(embedder.transform(["kitten"]), k=2)[1]
    array([[0, 2]])
    """

    metrics = ("cosine",)

    def __init__(self, metric="cosine", *, n_threads=None, chunk_size=4096):
        super().__init__(metric, chunk_size=chunk_size)
        self.n_threads = n_threads

    def _encode(self, embedding):
        if not sparse.issparse(embedding):
            raise ValueError(
                "SparseCosineIndex takes scipy sparse rows (a QGramEmbedder's "
                f"output), got {type(embedding).__name__}."
            )
        self._check_width(embedding)
        return normalize(sparse.csr_matrix(embedding, dtype=np.float32))

    def add(self, embedding):
        """Append sparse rows; they get the next item indices.

        Parameters
        ----------
        embedding : scipy sparse matrix of shape (n_items, n_features)
            Profiles of the items.

        Returns
        -------
        self : SparseCosineIndex
            The index.
        """
        rows = self._encode(embedding)
        self._dim = rows.shape[1]
        self._index = (
            rows if self._index is None else sparse.vstack([self._index, rows], format="csr")
        )
        self._items_t = self._index.T.tocsr()
        return self

    @property
    def n_items(self):
        """Number of items held."""
        return 0 if self._index is None else self._index.shape[0]

    def _top(self, vectors, k, threshold=None):
        from sparse_dot_topn import sp_matmul_topn

        return sp_matmul_topn(
            vectors, self._items_t, top_n=k, threshold=threshold, n_threads=self.n_threads
        )

    def _search(self, vectors, k):
        product = self._top(vectors, k)
        n_rows = vectors.shape[0]
        counts = np.diff(product.indptr)
        rows = np.repeat(np.arange(n_rows), counts)
        slots = np.arange(product.nnz) - np.repeat(product.indptr[:-1], counts)
        distances = np.full((n_rows, k), np.inf)
        indices = np.full((n_rows, k), -1, dtype=np.int64)
        indices[rows, slots] = product.indices
        distances[rows, slots] = 1.0 - product.data
        for row in np.flatnonzero(counts < k):  # items sharing no feature: cosine 0
            found = indices[row, : counts[row]]
            spare = np.setdiff1d(np.arange(k + len(found)), found)[: k - len(found)]
            indices[row, counts[row] :] = spare
            distances[row, counts[row] :] = 1.0
        return distances, indices

    def _search_exhaustive(self, vectors, k):
        distances = np.empty((vectors.shape[0], self.n_items))
        rows = max(1, _SCAN_BLOCK // max(self.n_items, 1))
        for start in range(0, vectors.shape[0], rows):
            block = (vectors[start : start + rows] @ self._items_t).toarray()
            distances[start : start + rows] = 1.0 - block
        return distances, np.broadcast_to(np.arange(self.n_items), distances.shape).copy()

    def _to_metric_units(self, engine_distances):
        return np.maximum(engine_distances, 0.0)

    def _engine_radius(self, threshold, width):
        return None if threshold >= 1.0 else threshold

    def _range_search(self, vectors, radius):
        # Similarities strictly above 1 - radius - eps: distances <= radius.
        product = self._top(vectors, self.n_items, threshold=1.0 - radius - 1e-6)
        return product.indptr, 1.0 - product.data, product.indices

    def to_bytes(self):
        """The rows as the bytes of an ``.npz`` file (empty if nothing added).

        Returns
        -------
        data : ndarray of uint8
            The serialized index; what :meth:`load_bytes` restores.
        """
        if self._index is None:
            return np.zeros(0, dtype=np.uint8)
        buffer = io.BytesIO()
        sparse.save_npz(buffer, self._index)
        return np.frombuffer(buffer.getvalue(), dtype=np.uint8).copy()

    def load_bytes(self, data, n_features):
        """Restore the rows from :meth:`to_bytes` output.

        Parameters
        ----------
        data : ndarray of uint8
            What :meth:`to_bytes` returned (empty: an index with no items).
        n_features : int
            Width of the embeddings the index holds.

        Returns
        -------
        self : SparseCosineIndex
            The restored index.
        """
        data = np.asarray(data, dtype=np.uint8)
        self._dim = self._index = self._items_t = None
        if data.size:
            self._index = sparse.load_npz(io.BytesIO(data.tobytes())).tocsr()
            self._items_t = self._index.T.tocsr()
            self._dim = self._index.shape[1]
        return self

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_items_t", None)
        return state
