"""Lossless lower bounds of the edit distance, cheap for every item at once.

Two bounds, both <= the Levenshtein distance for every pair of strings:

- length: ``|len(x) - len(y)|`` (each edit changes the length by at most 1);
- q-grams (Ukkonen, 1992): one edit changes at most ``q`` of the q-grams of a
  string, so the L1 distance between the q-gram count profiles of ``x`` and
  ``y`` is at most ``2 q d(x, y)``. Numbering repeated q-grams (the k-th
  occurrence of a q-gram is a token of its own) turns the multiset
  intersection into a dot product of binary rows, so the bound for a batch
  of queries against all items is one sparse product.

Strings are padded with ``q - 1`` markers at both ends, so every string,
empty ones included, has ``len + q - 1`` q-grams and edits at the ends count.

E. Ukkonen. "Approximate string-matching with q-grams and maximal matches",
Theoretical Computer Science 92(1): 191-211, 1992.
"""

from collections import Counter

import numpy as np
from scipy import sparse

_PAD_START, _PAD_END = "\ue000", "\ue001"


def _numbered_qgrams(string, q):
    padded = _PAD_START * (q - 1) + string + _PAD_END * (q - 1)
    seen = Counter()
    tokens = []
    for start in range(len(padded) - q + 1):
        gram = padded[start:start + q]
        tokens.append((gram, seen[gram]))
        seen[gram] += 1
    return tokens


class LevenshteinBound:
    """Lower bounds of the Levenshtein distance from queries to a fixed base.

    Parameters
    ----------
    base : sequence of str
        The items bounds are computed against.
    q : int, default=2
        Length of the q-grams.

    Examples
    --------
    >>> from sklearn_ed.distances import LevenshteinBound
    >>> LevenshteinBound(["kitten", "sitting", "a"]).bounds(["kitten"]).tolist()
    [[0.0, 3.0, 5.0]]
    """

    def __init__(self, base, q=2):
        self.q = q
        self._columns = {}
        self._base = self._profiles(base, grow=True)
        self._base_t = self._base.T.tocsr()
        self._base_lengths = np.fromiter(map(len, base), dtype=np.float64, count=len(base))

    def _profiles(self, strings, grow=False):
        indptr, indices = [0], []
        for string in strings:
            for token in _numbered_qgrams(string, self.q):
                column = self._columns.get(token)
                if column is None and grow:
                    column = self._columns[token] = len(self._columns)
                if column is not None:
                    indices.append(column)
            indptr.append(len(indices))
        data = np.ones(len(indices), dtype=np.float32)
        return sparse.csr_matrix((data, indices, indptr),
                                 shape=(len(strings), max(len(self._columns), 1)))

    def bounds(self, queries):
        """Lower bounds of ``d(queries[i], base[j])`` for every pair.

        Parameters
        ----------
        queries : sequence of str
            Query strings.

        Returns
        -------
        bounds : ndarray of float64, shape (n_queries, n_base)
            ``max(length bound, ceil(q-gram bound))``.
        """
        profiles = self._profiles(queries)
        if profiles.shape[1] < self._base_t.shape[0]:
            profiles.resize((profiles.shape[0], self._base_t.shape[0]))
        shared = (profiles @ self._base_t).toarray().astype(np.float64)
        lengths = np.fromiter(map(len, queries), dtype=np.float64, count=len(queries))
        n_query_grams = lengths + self.q - 1
        n_base_grams = self._base_lengths + self.q - 1
        l1 = n_query_grams[:, None] + n_base_grams[None, :] - 2 * shared
        qgram_bound = np.ceil(l1 / (2 * self.q) - 1e-9)
        length_bound = np.abs(lengths[:, None] - self._base_lengths[None, :])
        return np.maximum(qgram_bound, length_bound)


class DTWBound:
    """Lower bounds of banded DTW from queries to a fixed base of equal-length series.

    The larger of LB_Kim (the first and last points, which every warping
    path aligns) and LB_Keogh (each query point against the envelope of the
    base series over the band), as in the cascade of the UCR suite.

    Parameters
    ----------
    base : sequence of series
        Base series, all of the same length (any accepted by the DTW metric).
    window : float
        The DTW band as a fraction of the length (``make_dtw_metric(window)``).

    References
    ----------
    E. Keogh, C. A. Ratanamahatana. "Exact indexing of dynamic time warping",
    Knowledge and Information Systems 7(3), 2005. S.-W. Kim, S. Park,
    W. W. Chu. "An index-based approach for similarity search supporting time
    warping in large sequence databases", ICDE 2001. T. Rakthanmanon et al.
    "Searching and mining trillions of time series subsequences under dynamic
    time warping", KDD 2012.
    """

    def __init__(self, base, window):
        from ._dtw import as_series

        if window is None:
            raise ValueError(
                "exact=True with DTW needs a warping window: use "
                "metric=make_dtw_metric(window=0.1) (any window in [0, 1])."
            )
        series = as_series(base)
        self._length = _common_length(series, "base")
        self.band = int(np.ceil(window * self._length))
        self._base = np.stack(series)  # (n, length, channels)
        windows = np.lib.stride_tricks.sliding_window_view(
            np.pad(self._base, ((0, 0), (self.band, self.band), (0, 0)), mode="edge"),
            2 * self.band + 1, axis=1)
        self._upper, self._lower = windows.max(axis=-1), windows.min(axis=-1)

    def bounds(self, queries):
        """Lower bounds of ``dtw(queries[i], base[j])`` for every pair.

        Parameters
        ----------
        queries : sequence of series
            Query series, of the base's length.

        Returns
        -------
        bounds : ndarray of float64, shape (n_queries, n_base)
            ``max(LB_Kim, LB_Keogh)``.
        """
        from ._dtw import as_series

        series = as_series(queries)
        if _common_length(series, "queries") != self._length:
            raise ValueError(
                f"exact=True with DTW compares series of one length; the base has "
                f"length {self._length}, the queries another. Resample them first."
            )
        queries = np.stack(series)[:, None]  # (n_q, 1, length, channels)
        above = np.maximum(queries - self._upper[None], 0.0)
        below = np.maximum(self._lower[None] - queries, 0.0)
        keogh = (above ** 2 + below ** 2).sum(axis=(2, 3))
        ends = ((queries[:, :, 0] - self._base[None, :, 0]) ** 2).sum(axis=-1)
        if self._length > 1:
            ends = ends + ((queries[:, :, -1] - self._base[None, :, -1]) ** 2).sum(axis=-1)
        return np.sqrt(np.maximum(keogh, ends)) * (1 - 1e-12)


def _common_length(series, name):
    lengths = {len(values) for values in series}
    if len(lengths) != 1:
        raise ValueError(
            f"exact=True with DTW needs series of one length; the {name} has lengths "
            f"{sorted(lengths)[:5]}. Resample or pad them to a common length."
        )
    return lengths.pop()
