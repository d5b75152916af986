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
import zipfile
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.preprocessing import normalize

from ..utils import SavedStateError, saved_array, saved_class, segments_absorbed
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


@saved_class("index")
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
    # OpenMP ends the process when it cannot start the threads asked for
    # ("libgomp: Thread creation failed"): a saved count is capped.
    _saved_bounds = {"n_threads": (1, 1025)}

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
        """The rows and where each segment starts, as the bytes of an ``.npz`` file
        (empty if nothing added).

        Returns
        -------
        data : ndarray of uint8
            The serialized index; what :meth:`load_bytes` restores.
        """
        if self._index is None:
            return np.zeros(0, dtype=np.uint8)
        rows = sparse.vstack([segment.rows for segment in self._index], "csr")
        buffer = io.BytesIO()
        # The segments are kept: each answers its ties in its own order, so
        # merging them would change the candidates tied at the cut-off.
        np.savez_compressed(
            buffer,
            data=rows.data,
            indices=rows.indices,
            indptr=rows.indptr,
            shape=np.array(rows.shape),
            format=np.array(b"csr"),
            starts=np.array([segment.start for segment in self._index]),
        )
        return np.frombuffer(buffer.getvalue(), dtype=np.uint8).copy()

    def load_bytes(self, data, n_features):
        """Restore the rows and their segments from :meth:`to_bytes` output.

        Every array is checked before scipy or the sparse product reads it
        (columns within the width, row pointers from 0 to the entries,
        segments within the rows).

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

        Raises
        ------
        SavedStateError
            A ``ValueError`` naming the array that breaks its invariants.
        """
        data = np.asarray(data, dtype=np.uint8)
        self._dim = self._index = None
        if data.size:
            rows, starts = _checked_rows(data, n_features)
            stops = [*starts[1:], rows.shape[0]]
            self._index = [
                _Segment(int(start), rows[start:stop], rows[start:stop].T.tocsr())
                for start, stop in zip(starts, stops)
            ]
            self._dim = rows.shape[1]
        return self


def _checked_rows(data, n_features):
    """The CSR rows and segment starts of :meth:`SparseCosineIndex.to_bytes`
    output, each array within its bounds (a saved index is untrusted input)."""
    try:
        with np.load(io.BytesIO(data.tobytes()), allow_pickle=False) as parts:
            parts = {key: parts[key] for key in parts.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as error:
        raise SavedStateError("_index", f"not the .npz of sparse rows ({error})") from None
    missing = {"data", "indices", "indptr", "shape", "format"} - set(parts)
    if missing or parts["format"].tobytes() != b"csr":
        raise SavedStateError("_index", f"not CSR rows (lacks {sorted(missing)} or the format)")
    n_rows, n_columns = saved_array(parts["shape"], "_index (shape)", "iu", shape=(2,), low=0)
    if n_features is None or n_columns != n_features:
        raise SavedStateError("_index (shape)", f"{n_columns} columns, not {n_features}")
    indices = saved_array(
        parts["indices"], "_index (indices)", "iu", shape=(None,), low=0, high=n_columns
    )
    nnz = len(indices)
    indptr = saved_array(
        parts["indptr"], "_index (indptr)", "iu", shape=(n_rows + 1,), order="nondecreasing"
    )
    if indptr[0] != 0 or indptr[-1] != nnz:
        raise SavedStateError("_index (indptr)", f"does not run from 0 to the {nnz} entries")
    values = saved_array(parts["data"], "_index (data)", "f", shape=(nnz,))
    # Saved before the segments were kept: one segment.
    starts = parts.get("starts", np.zeros(1, dtype=np.int64))
    bounds = {"low": 0, "high": n_rows + 1, "order": "nondecreasing"}
    saved_array(starts, "_index (starts)", "iu", shape=(None,), **bounds)
    if len(starts) == 0 or starts[0] != 0:
        raise SavedStateError("_index (starts)", "segments must start at item 0")
    rows = sparse.csr_matrix(
        (values.astype(np.float32), indices, indptr), shape=(int(n_rows), int(n_columns))
    )
    return rows, [int(start) for start in starts]


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
