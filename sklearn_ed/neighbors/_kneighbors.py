"""The query side of the FilterRefine estimators: ``kneighbors`` and its graph.

A batch of queries is embedded, the index returns ``n_candidates_``
candidates per query (the filter), the exact metric is computed to those
only and the best ``n_neighbors`` are kept (the refine); with ``exact=True``
every item whose lower bound beats the k-th distance is verified as well.
"""

import math
from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.utils.validation import check_is_fitted

from ..search import QUERY_BATCH_SIZE, batches
from ..utils import reads_fitted_state, take_items


class KNeighborsMixin:
    """``kneighbors`` and ``kneighbors_graph`` of a fitted FilterRefine estimator."""

    def _resolve_n_candidates(self, n_available):
        if self.n_candidates == "auto":
            return min(self.n_candidates_, n_available)
        if isinstance(self.n_candidates, Integral):
            return min(self.n_candidates, n_available)
        return min(max(1, math.ceil(self.n_candidates * n_available)), n_available)

    def _check_n_candidates(self, n_neighbors, n_available):
        n_candidates = self._resolve_n_candidates(n_available)
        if n_candidates < min(n_neighbors, n_available):
            raise ValueError(
                f"n_candidates={self.n_candidates} gives {n_candidates} candidates, "
                f"fewer than n_neighbors={n_neighbors}; the refine step could not "
                "return enough neighbors. Increase n_candidates."
            )
        return n_candidates

    def _queries(self, X):
        """Validated queries and the self index to exclude (``None`` for new queries)."""
        if X is None:
            return self.search_.items, np.arange(self.n_samples_fit_)
        return self._validate_X(X, reset=False), None

    @reads_fitted_state
    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """Find the K nearest neighbors of each query under the exact metric.

        Candidates are the ``n_candidates`` nearest base items in the
        embedding space; the exact metric ranks them. Ties are broken by
        base index. With ``n_candidates >= n_samples_fit_`` the result is
        the exact brute-force answer. Queries are processed in batches, so
        the extra memory of a call is bounded whatever their number.

        Parameters
        ----------
        X : array-like of shape (n_queries,) or (n_queries, n_features), default=None
            Queries. ``None`` uses the fitted samples, each excluded from its
            own neighbors.
        n_neighbors : int, default=None
            Number of neighbors; defaults to the constructor's value.
        return_distance : bool, default=True
            Whether to return the distances.

        Returns
        -------
        neigh_dist : ndarray of float64, shape (n_queries, n_neighbors)
            Exact distances, ascending. Only if ``return_distance=True``.
        neigh_ind : ndarray of int64, shape (n_queries, n_neighbors)
            Indices of the neighbors in the fitted data.
        """
        distances, indices = self._kneighbors(X, n_neighbors)
        return (distances, indices) if return_distance else indices

    def _kneighbors(self, X=None, n_neighbors=None, verified=None):
        """kneighbors; ``verified`` (a list) receives exact distances per query."""
        queries, exclude, n_neighbors, n_candidates = self._query_plan(X, n_neighbors)
        distances = np.empty((len(queries), n_neighbors), dtype=np.float64)
        indices = np.empty((len(queries), n_neighbors), dtype=np.int64)
        for rows, batch, batch_exclude in self._query_batches(queries, exclude):
            found, counts = self.search_.kneighbors(batch, n_neighbors, n_candidates, batch_exclude)
            distances[rows], indices[rows] = found
            if verified is not None:
                verified.append(counts)
        return distances, indices

    def _query_plan(self, X, n_neighbors):
        """Validated ``queries``, the self index to ``exclude``, ``n_neighbors`` and
        the candidates per query of a k-nearest query."""
        check_is_fitted(self)
        queries, exclude = self._queries(X)
        n_available = self.n_samples_fit_ - (exclude is not None)
        if n_available == 0:
            raise ValueError(
                "Called without X, each fitted item is a query excluded from its own "
                "neighbors, but the estimator was fitted on 1 item: no other item is "
                "left to be a neighbor. Pass queries as X, or fit on more items."
            )
        n_neighbors = self.n_neighbors if n_neighbors is None else n_neighbors
        if not isinstance(n_neighbors, Integral) or n_neighbors < 1:
            raise ValueError(f"n_neighbors must be a positive integer, got {n_neighbors!r}.")
        if n_neighbors > n_available:
            raise ValueError(
                f"Expected n_neighbors <= n_samples_fit = {n_available}, but "
                f"n_neighbors = {n_neighbors}. Ask for fewer neighbors or fit on "
                "more samples."
            )
        n_candidates = self._check_n_candidates(n_neighbors, n_available)
        return queries, exclude, n_neighbors, n_candidates

    def _query_batches(self, queries, exclude):
        """``(rows, queries, exclude)`` of each batch, with a progress bar."""
        with self._progress(len(queries), "filter and refine") as progress:
            for rows in batches(len(queries), QUERY_BATCH_SIZE):
                batch = take_items(queries, np.arange(rows.start, rows.stop))
                yield rows, batch, None if exclude is None else exclude[rows]
                progress.update(len(batch))

    @reads_fitted_state
    def kneighbors_graph(self, X=None, n_neighbors=None, mode="connectivity"):
        """Sparse graph of the K nearest neighbors of each query.

        Parameters
        ----------
        X : array-like, default=None
            Queries; ``None`` uses the fitted samples (excluding self).
        n_neighbors : int, default=None
            Neighbors per row; defaults to the constructor's value.
        mode : {"connectivity", "distance"}, default="connectivity"
            Ones, or the exact distances, as edge values.

        Returns
        -------
        graph : sparse matrix in CSR format, shape (n_queries, n_samples_fit)
        """
        if mode not in ("connectivity", "distance"):
            raise ValueError(f'mode must be "connectivity" or "distance", got {mode!r}.')
        distances, indices = self.kneighbors(X, n_neighbors, return_distance=True)
        n_queries, n_per_row = indices.shape
        data = distances.ravel() if mode == "distance" else np.ones(indices.size)
        indptr = np.arange(0, n_queries * n_per_row + 1, n_per_row)
        return sparse.csr_matrix(
            (data, indices.ravel(), indptr), shape=(n_queries, self.n_samples_fit_)
        )
