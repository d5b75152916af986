"""Filter backends: candidates by cheap distance in the embedding space.

``BruteFilter`` scans the base embeddings chunk by chunk (memory bounded by
``chunk_bytes``); ``NNDescentFilter`` builds a pynndescent graph index.
Both return candidates ordered by embedding distance, ties by base index.
"""

import numpy as np

from ._filter_kernels import hamming_block

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
        kth = np.partition(block, n_smallest - 1, axis=1)[:, n_smallest - 1:n_smallest]
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


class NNDescentFilter:
    """Approximate candidates from a pynndescent nearest-neighbour graph.

    Parameters
    ----------
    metric : {"euclidean", "hamming"}
    n_neighbors : int, default=30
        Degree of the graph built over the base embeddings.
    random_state : int or None
    n_jobs : int or None
    """

    def __init__(self, metric, n_neighbors=30, random_state=None, n_jobs=None):
        self.metric = metric
        self.n_neighbors = n_neighbors
        self.random_state = random_state
        self.n_jobs = n_jobs
        self._brute = BruteFilter(metric)

    def build(self, base_embedding):
        from pynndescent import NNDescent

        self._brute.build(base_embedding)
        data = np.asarray(base_embedding, dtype=np.float32)
        self.index_ = NNDescent(
            data, metric=self.metric, n_neighbors=min(self.n_neighbors, len(data) - 1),
            random_state=self.random_state, n_jobs=self.n_jobs, compressed=False,
        )
        self.index_.prepare()
        return self

    @property
    def n_samples(self):
        return self._brute.n_samples

    def query(self, query_embedding, n_candidates, exclude=None):
        extra = 0 if exclude is None else 1
        k = min(n_candidates + extra, self.n_samples)
        queries = np.asarray(query_embedding, dtype=np.float32)
        indices, distances = self.index_.query(queries, k=k)
        if exclude is not None:
            indices, distances = _drop_excluded(indices, distances, exclude, n_candidates)
        indices = indices[:, :n_candidates].astype(np.int64)
        distances = distances[:, :n_candidates].astype(np.float64)
        by_index = np.argsort(indices, axis=1)
        return sort_by_value(np.take_along_axis(indices, by_index, axis=1),
                             np.take_along_axis(distances, by_index, axis=1))

    def query_radius(self, query_embedding, threshold, exclude=None):
        # Threshold search scans, as Algorithm 2 of the CNN-ED paper does.
        return self._brute.query_radius(query_embedding, threshold, exclude)


def _drop_excluded(indices, distances, exclude, n_keep):
    keep = indices != exclude[:, None]
    # Rows that did not contain the excluded index drop their last column.
    missing = keep.all(axis=1)
    keep[missing, -1] = False
    n_rows = indices.shape[0]
    return indices[keep].reshape(n_rows, -1), distances[keep].reshape(n_rows, -1)


def pairwise_embedding_distances(query_embedding, base_embedding, metric):
    """Full matrix of embedding distances (for evaluation, not for search)."""
    scan = BruteFilter(metric).build(base_embedding)
    return scan._distance_block(scan._prepare_queries(query_embedding)).astype(np.float64)
