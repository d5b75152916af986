"""The 0.1.0 filter scan, kept verbatim as the reference of bench_index.py."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def hamming_block(queries, base, out):
    """Hamming distances of integer-coded rows: ``out[i, j] = #(q_i != b_j)``."""
    n_dims = queries.shape[1]
    for i in prange(queries.shape[0]):
        query = queries[i]
        for j in range(base.shape[0]):
            row = base[j]
            mismatches = 0
            for d in range(n_dims):
                mismatches += query[d] != row[d]
            out[i, j] = mismatches


EMBEDDING_METRICS = ("euclidean", "hamming")


def _as_hamming_codes(embedding):
    """Integer codes for the Hamming kernel (accepts float32 symbol arrays)."""
    embedding = np.asarray(embedding)
    if embedding.dtype.kind in "ui":
        return np.ascontiguousarray(embedding)
    top = embedding.max(initial=0)
    dtype = np.uint8 if top < 256 else np.uint16 if top < 65536 else np.int64
    return np.ascontiguousarray(embedding.astype(dtype))


class BruteFilter:
    """Exhaustive scan of the embeddings with bounded memory.

    Parameters
    ----------
    metric : {"euclidean", "hamming"}
        Vector distance in the embedding space.
    chunk_bytes : int, default=2**24
        Size of the distance block of one chunk of queries; the selection
        needs about four times that in temporaries.
    """

    def __init__(self, metric, chunk_bytes=2**24):
        self.metric = metric
        self.chunk_bytes = chunk_bytes

    def build(self, base_embedding):
        if self.metric == "hamming":
            self.base_ = _as_hamming_codes(base_embedding)
        else:
            self.base_ = np.ascontiguousarray(base_embedding, dtype=np.float32)
            self.base_sq_norms_ = np.einsum("ij,ij->i", self.base_, self.base_)
        return self

    @property
    def n_samples(self):
        return self.base_.shape[0]

    def _prepare_queries(self, query_embedding):
        if self.metric == "hamming":
            return _as_hamming_codes(query_embedding).astype(self.base_.dtype, copy=False)
        return np.ascontiguousarray(query_embedding, dtype=np.float32)

    def _distance_block(self, queries):
        if self.metric == "hamming":
            block = np.empty((queries.shape[0], self.n_samples), dtype=np.int32)
            hamming_block(queries, self.base_, block)
            return block
        squared = queries @ self.base_.T
        squared *= -2
        squared += np.einsum("ij,ij->i", queries, queries)[:, None]
        squared += self.base_sq_norms_[None, :]
        np.maximum(squared, 0, out=squared)
        return np.sqrt(squared, out=squared)

    def _chunks(self, n_queries):
        rows = max(1, self.chunk_bytes // (4 * max(self.n_samples, 1)))
        for start in range(0, n_queries, rows):
            yield start, min(start + rows, n_queries)

    def query(self, query_embedding, n_candidates, exclude=None):
        """The ``n_candidates`` nearest base rows of each query.

        ``exclude[i]`` (a base index, or -1) is never returned for query i.

        Returns
        -------
        candidates : ndarray of int64, shape (n_queries, n_candidates)
        distances : ndarray of float64, shape (n_queries, n_candidates)
        """
        queries = self._prepare_queries(query_embedding)
        n_queries = queries.shape[0]
        candidates = np.empty((n_queries, n_candidates), dtype=np.int64)
        distances = np.empty((n_queries, n_candidates), dtype=np.float64)
        for start, stop in self._chunks(n_queries):
            block = self._distance_block(queries[start:stop])
            if exclude is not None:
                rows = np.flatnonzero(exclude[start:stop] >= 0)
                block[rows, exclude[start:stop][rows]] = _largest(block.dtype)
            chosen, chosen_dist = smallest_per_row(block, n_candidates)
            candidates[start:stop] = chosen
            distances[start:stop] = chosen_dist
        return candidates, distances

    def query_radius(self, query_embedding, threshold, exclude=None):
        """Base rows within ``threshold`` of each query (list of index arrays)."""
        queries = self._prepare_queries(query_embedding)
        found = []
        for start, stop in self._chunks(queries.shape[0]):
            block = self._distance_block(queries[start:stop])
            for offset, row in enumerate(block):
                hits = np.flatnonzero(row <= threshold)
                if exclude is not None and exclude[start + offset] >= 0:
                    hits = hits[hits != exclude[start + offset]]
                found.append(hits)
        return found


def _largest(dtype):
    return np.iinfo(dtype).max if np.issubdtype(dtype, np.integer) else np.inf


def smallest_per_row(block, n_smallest):
    """Indices and values of the n smallest entries per row, ordered by (value, index).

    Entries tied with the n-th smallest value are taken in index order, so
    the selection is the first n of a stable sort, without sorting the row.
    """
    n_rows, n_columns = block.shape
    if n_smallest >= n_columns:
        chosen = np.broadcast_to(np.arange(n_columns), block.shape).copy()
    else:
        kth = np.partition(block, n_smallest - 1, axis=1)[:, n_smallest - 1 : n_smallest]
        below = block < kth
        tied = block == kth
        n_tied_needed = n_smallest - below.sum(axis=1, keepdims=True)
        keep = below | (tied & (np.cumsum(tied, axis=1, dtype=np.int32) <= n_tied_needed))
        chosen = np.nonzero(keep)[1].reshape(n_rows, n_smallest)
    return sort_by_value(chosen, np.take_along_axis(block, chosen, axis=1))


def sort_by_value(indices, values):
    """Reorder each row by value; a stable sort keeps index order among ties."""
    order = np.argsort(values, axis=1, kind="stable")
    return np.take_along_axis(indices, order, axis=1), np.take_along_axis(values, order, axis=1)
