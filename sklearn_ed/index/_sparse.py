"""Sparse cosine index: top-n by cosine over CSR rows, never densified.

The product of the queries' and the items' profiles keeps only the ``k``
largest similarities per row (``sparse_dot_topn``, multi-threaded, memory
bounded by ``k`` per query), the engine of tf-idf string matchers.

The product needs the items' rows transposed. Transposing the whole base at
every ``add`` would make growing an index batch by batch quadratic, so the
rows are kept in segments, merged as a binary counter does
(``sklearn_ed.utils.segments_absorbed``): an added batch is transposed alone,
or with the segments no larger than itself, and a search merges the top-n of
O(log n) segments.
"""

import io
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.preprocessing import normalize

from ..utils import segments_absorbed
from ._base import BaseIndex

# Largest (queries x items) dense block of an exhaustive scan.
_SCAN_BLOCK = 2**24


@dataclass
class _Segment:
    """Consecutive items from ``start``: their rows, and the rows transposed."""

    start: int
    rows: sparse.csr_matrix
    rows_t: sparse.csr_matrix

    @property
    def stop(self):
        return self.start + self.rows.shape[0]


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
        rows = sparse.csr_matrix(embedding, dtype=np.float32)
        # Profiles arrive normalized (QGramEmbedder's): kept as they are, since
        # a copy of a million reads' profiles is 0.8 GB at the fit's peak.
        return rows if _unit_or_empty(rows) else normalize(rows)

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
        segments = list(self._index or [])  # a new list: a search sees old or new
        start = self.n_items
        absorbed = segments_absorbed(
            [segment.start for segment in segments], start, start + rows.shape[0]
        )
        if absorbed:  # one segment of the absorbed rows and the new ones
            start = segments[-absorbed].start
            rows = sparse.vstack([segment.rows for segment in segments[-absorbed:]] + [rows], "csr")
            del segments[-absorbed:]
        segments.append(_Segment(start, rows, rows.T.tocsr()))
        self._index = segments
        return self

    @property
    def n_items(self):
        """Number of items held."""
        return 0 if self._index is None else self._index[-1].stop

    def _top(self, vectors, k, threshold=None):
        """The top-``k`` similarities of each query (above ``threshold``) as CSR."""
        from sparse_dot_topn import sp_matmul_topn

        products = [
            sp_matmul_topn(
                vectors, segment.rows_t, top_n=k, threshold=threshold, n_threads=self.n_threads
            )
            for segment in self._index
        ]
        if len(products) == 1:
            return products[0]
        return _merged_top(products, [segment.start for segment in self._index], k)

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
            for segment in self._index:
                block = (vectors[start : start + rows] @ segment.rows_t).toarray()
                distances[start : start + rows, segment.start : segment.stop] = 1.0 - block
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
        sparse.save_npz(buffer, sparse.vstack([segment.rows for segment in self._index], "csr"))
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
        self._dim = self._index = None
        if data.size:
            rows = sparse.load_npz(io.BytesIO(data.tobytes())).tocsr()
            self._index = [_Segment(0, rows, rows.T.tocsr())]
            self._dim = rows.shape[1]
        return self


def _unit_or_empty(rows, block=2**20):
    """Whether every row has L2 norm 1 (or is empty), summed a block of entries
    at a time."""
    squares = np.empty(rows.shape[0], dtype=np.float64)
    step = max(1, block * rows.shape[0] // max(rows.nnz, 1))
    for start in range(0, rows.shape[0], step):
        part = rows[start : start + step]
        squares[start : start + step] = np.asarray(part.multiply(part).sum(axis=1)).ravel()
    return bool(np.all((np.abs(squares - 1.0) < 1e-4) | (squares == 0.0)))


def _merged_top(products, starts, k):
    """One CSR of the ``k`` largest values per row among segments' top-k products,
    ties to the smaller item index."""
    rows, items, values = [], [], []
    for product, start in zip(products, starts):
        rows.append(np.repeat(np.arange(product.shape[0]), np.diff(product.indptr)))
        items.append(product.indices.astype(np.int64) + start)
        values.append(product.data)
    rows, items, values = (np.concatenate(column) for column in (rows, items, values))
    order = np.lexsort((items, -values, rows))
    rows, items, values = rows[order], items[order], values[order]
    row_starts = np.searchsorted(rows, np.arange(products[0].shape[0] + 1))
    rank = np.arange(rows.size) - row_starts[rows]
    keep = rank < k
    counts = np.bincount(rows[keep], minlength=products[0].shape[0])
    indptr = np.concatenate([[0], np.cumsum(counts)])
    n_items = max(start + product.shape[1] for product, start in zip(products, starts))
    return sparse.csr_matrix((values[keep], items[keep], indptr), shape=(len(counts), n_items))
