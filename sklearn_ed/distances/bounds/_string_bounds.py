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

import numpy as np
from scipy import sparse

from ...utils import (
    HASH_MULTIPLIER,
    Alphabet,
    CodeTable,
    check_strings,
    qgram_code_base,
    qgram_counts,
    saved_class,
    saved_int,
)


def _numbered_qgram_keys(strings, alphabet, q):
    """Keys of the numbered q-grams of each string (CSR-like indptr, keys).

    The ``j``-th occurrence of a q-gram is token ``(code, j)``, keyed by
    ``code * multiplier + j`` modulo 2**64. Two tokens sharing a key could
    only make a bound smaller, never wrong.
    """
    symbols, offsets = alphabet.encode(strings)
    start_marker, end_marker = alphabet.n_symbols, alphabet.n_symbols + 1
    indptr, codes, counts = qgram_counts(
        symbols,
        offsets,
        q,
        qgram_code_base(alphabet.n_symbols + 2, q),
        start_marker,
        end_marker,
        n_markers=q - 1,
    )
    row_of_code = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    sizes = np.bincount(row_of_code, weights=counts, minlength=len(indptr) - 1)
    token_indptr = np.zeros(len(indptr), dtype=np.int64)
    np.cumsum(sizes.astype(np.int64), out=token_indptr[1:])
    repeated = np.repeat(codes, counts)
    occurrence = np.arange(len(repeated)) - np.repeat(np.cumsum(counts) - counts, counts)
    keys = repeated * HASH_MULTIPLIER + occurrence.astype(np.uint64)
    return token_indptr, keys


class LowerBound:
    """Base of the lower bounds: ``within`` from the dense ``bounds``."""

    def bounds(self, queries):
        raise NotImplementedError

    def within(self, queries, limits):
        """Items whose bound is at most ``limits[i]``, and those bounds, per query.

        Parameters
        ----------
        queries : sequence
            Queries.
        limits : ndarray of shape (n_queries,)
            Largest bound of interest per query.

        Returns
        -------
        found : list of (ndarray of int64, ndarray of float64)
            Item indices and their bounds, per query.
        """
        bounds = self.bounds(queries)
        found = []
        for row, limit in zip(bounds, limits):
            items = np.flatnonzero(row <= limit)
            found.append((items, row[items]))
        return found


@saved_class(formerly=("sklearn_ed.distances._bounds.LevenshteinBound",))
class LevenshteinBound(LowerBound):
    """Lower bounds of the Levenshtein distance from queries to a fixed base.

    Parameters
    ----------
    base : sequence of str
        The items bounds are computed against.
    q : int, default=None
        Length of the q-grams; ``None``: 2 for alphabets of up to 10
        characters, 3 otherwise (rarer q-grams keep the product sparse).

    Examples
    --------
    >>> from sklearn_ed.distances import LevenshteinBound
    >>> LevenshteinBound(["kitten", "sitting", "a"]).bounds(["kitten"]).tolist()
    [[0.0, 3.0, 5.0]]
    """

    def __init__(self, base, q=None):
        base = check_strings(base, name="base", allow_empty=True)
        self._alphabet = Alphabet.from_strings(base)
        if q is None:
            q = 2 if len(self._alphabet.characters) <= 10 else 3
        self.q = q
        self._tokens = CodeTable()
        self._base = self._profiles(base, grow=True)
        self._base_t = self._base.T.tocsr()
        self._base_lengths = np.fromiter(map(len, base), dtype=np.float64, count=len(base))
        self._by_length = np.argsort(self._base_lengths, kind="stable")
        self._sorted_lengths = self._base_lengths[self._by_length]
        self._strings = base

    def __getstate__(self):
        # The token table is rebuilt from the strings.
        return {"q": self.q, "strings": self._strings}

    def __setstate__(self, state):
        self.__init__(list(state["strings"]), q=saved_int(state["q"], "q", low=1))

    def _profiles(self, strings, grow=False):
        """Binary rows of numbered q-grams; tokens unseen in the base are dropped."""
        indptr, keys = _numbered_qgram_keys(
            check_strings(strings, allow_empty=True), self._alphabet, self.q
        )
        if grow:
            self._tokens.add(keys)
        columns = self._tokens.columns(keys)
        rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        seen = columns >= 0
        return sparse.csr_matrix(
            (np.ones(seen.sum(), dtype=np.float32), (rows[seen], columns[seen])),
            shape=(len(indptr) - 1, max(self._tokens.n_codes, 1)),
        )

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
        shared = self._shared(queries).toarray().astype(np.float64)
        lengths = np.fromiter(map(len, queries), dtype=np.float64, count=len(queries))
        return self._combine(lengths[:, None], self._base_lengths[None, :], shared)

    def _shared(self, queries):
        """Numbered q-grams each query shares with each item (sparse)."""
        profiles = self._profiles(queries)
        if profiles.shape[1] < self._base_t.shape[0]:
            profiles.resize((profiles.shape[0], self._base_t.shape[0]))
        return (profiles @ self._base_t).tocsr()

    def _combine(self, query_lengths, base_lengths, shared):
        """max(length bound, q-gram bound) from lengths and shared q-gram counts."""
        l1 = query_lengths + base_lengths + 2 * (self.q - 1) - 2 * shared
        qgram_bound = np.ceil(l1 / (2 * self.q) - 1e-9)
        return np.maximum(qgram_bound, np.abs(query_lengths - base_lengths))

    def within(self, queries, limits):
        """Items whose bound is at most ``limits[i]``, without a dense matrix.

        Items sharing a q-gram with the query come from the sparse product;
        the others have the bound of zero shared q-grams, a function of their
        length alone, found by a search in the items sorted by length.

        Parameters
        ----------
        queries : sequence of str
            Queries.
        limits : ndarray of shape (n_queries,)
            Largest bound of interest per query.

        Returns
        -------
        found : list of (ndarray of int64, ndarray of float64)
            Item indices (ascending) and their bounds, per query.
        """
        shared = self._shared(queries)
        found = []
        for row, (query, limit) in enumerate(zip(queries, limits)):
            start, stop = shared.indptr[row], shared.indptr[row + 1]
            items = shared.indices[start:stop].astype(np.int64)
            bounds = self._combine(
                len(query), self._base_lengths[items], shared.data[start:stop].astype(np.float64)
            )
            unshared = self._unshared_within(len(query), limit, items, self._qgram_limit(limit))
            items = np.concatenate([items[bounds <= limit], unshared])
            bounds = np.concatenate(
                [
                    bounds[bounds <= limit],
                    self._combine(len(query), self._base_lengths[unshared], 0.0),
                ]
            )
            order = np.argsort(items, kind="stable")
            found.append((items[order], bounds[order]))
        return found

    def _qgram_limit(self, limit):
        """The largest Levenshtein q-gram bound whose combined bound is within ``limit``."""
        return limit

    def _unshared_within(self, length, limit, shared_items, qgram_limit):
        """Items sharing no q-gram whose zero-share bound is at most ``limit``."""
        if not np.isfinite(limit):
            candidates = self._by_length
        else:
            # ceil((len_q + len_b + 2q - 2) / 2q) <= qgram_limit, |len_q - len_b| <= limit
            longest = min(
                2 * self.q * np.floor(qgram_limit) - length - 2 * (self.q - 1), length + limit
            )
            stop = np.searchsorted(self._sorted_lengths, longest, side="right")
            start = np.searchsorted(self._sorted_lengths, length - limit, side="left")
            candidates = self._by_length[start : max(start, stop)]
        if candidates.size == 0:
            return candidates
        keep = np.zeros(len(self._base_lengths), dtype=bool)
        keep[candidates] = True
        keep[shared_items] = False
        return np.flatnonzero(keep)


@saved_class(formerly=("sklearn_ed.distances._bounds.HalvedLevenshteinBound",))
class HalvedLevenshteinBound(LevenshteinBound):
    """Lower bounds of distances at least half Levenshtein and at least the
    length difference, in integers (OSA, Damerau-Levenshtein, LCSseq).

    ``max(ceil(b / 2), |len(x) - len(y)|)`` where ``b`` is the q-gram bound
    of Levenshtein (see :mod:`sklearn_ed.distances.metrics._edit_scorers` for why
    each metric is at least half Levenshtein).

    Parameters
    ----------
    base : sequence of str
        The items bounds are computed against.
    q : int, default=None
        Length of the q-grams, as in :class:`LevenshteinBound`.

    Examples
    --------
    >>> from sklearn_ed.distances import HalvedLevenshteinBound
    >>> HalvedLevenshteinBound(["ca", "abc"]).bounds(["ac"]).tolist()
    [[1.0, 1.0]]
    """

    def _combine(self, query_lengths, base_lengths, shared):
        l1 = query_lengths + base_lengths + 2 * (self.q - 1) - 2 * shared
        qgram_bound = np.ceil(l1 / (2 * self.q) - 1e-9)
        return np.maximum(np.ceil(qgram_bound / 2 - 1e-9), np.abs(query_lengths - base_lengths))

    def _qgram_limit(self, limit):
        # ceil(b / 2) <= limit  <=>  b <= 2 * limit for integer b and limit
        return 2 * np.floor(limit)


@saved_class(formerly=("sklearn_ed.distances._bounds.NormalizedBound",))
class NormalizedBound(LowerBound):
    """A raw distance's lower bound over a normalizer of the two lengths.

    For ``normalized_levenshtein`` (Levenshtein over the longer length) and
    ``normalized_indel`` (Indel over the summed lengths): a normalized
    distance is the raw distance over a positive normalizer, so the raw
    bound over the same normalizer bounds it (both empty: 0).

    Parameters
    ----------
    base : sequence of str
        The items bounds are computed against.
    normalizer : {"longer", "sum"}
        ``max(len(x), len(y))`` or ``len(x) + len(y)``.

    Examples
    --------
    >>> from sklearn_ed.distances import NormalizedBound
    >>> NormalizedBound(["kitten", "a"], normalizer="longer").bounds(["sitting"]).round(3).tolist()
    [[0.429, 0.857]]
    """

    def __init__(self, base, normalizer):
        base = check_strings(base, name="base", allow_empty=True)
        self.normalizer = normalizer
        self._raw = LevenshteinBound(base)
        self._strings = base
        self._lengths = np.fromiter(map(len, base), dtype=np.float64, count=len(base))

    def __getstate__(self):
        return {"normalizer": self.normalizer, "strings": self._strings}

    def __setstate__(self, state):
        self.__init__(list(state["strings"]), state["normalizer"])

    def _normalize(self, raw, query_length, base_lengths):
        scale = (
            np.maximum(query_length, base_lengths)
            if self.normalizer == "longer"
            else query_length + base_lengths
        )
        return np.divide(raw, scale, out=np.zeros_like(raw, dtype=np.float64), where=scale > 0)

    def bounds(self, queries):
        """Lower bounds of the normalized distance for every (query, item) pair.

        Parameters
        ----------
        queries : sequence of str
            Query strings.

        Returns
        -------
        bounds : ndarray of float64, shape (n_queries, n_base)
            The raw bound over the normalizer.
        """
        lengths = np.fromiter(map(len, queries), dtype=np.float64, count=len(queries))
        raw = self._raw.bounds(queries)
        return self._normalize(raw, lengths[:, None], self._lengths[None, :])

    def within(self, queries, limits):
        """Items whose bound is at most ``limits[i]``, and those bounds, per query.

        The raw bound's items within the limit times the largest normalizer
        any item can have, then the normalized bounds filtered.

        Parameters
        ----------
        queries : sequence of str
            Queries.
        limits : ndarray of shape (n_queries,)
            Largest bound of interest per query.

        Returns
        -------
        found : list of (ndarray of int64, ndarray of float64)
            Item indices and their bounds, per query.
        """
        longest = self._lengths.max() if len(self._lengths) else 0.0
        found = []
        for query, limit in zip(queries, limits):
            scale = (
                max(len(query), longest) if self.normalizer == "longer" else len(query) + longest
            )
            ((items, raw),) = self._raw.within([query], np.array([limit * scale]))
            bounds = self._normalize(raw, float(len(query)), self._lengths[items])
            keep = bounds <= limit
            found.append((items[keep], bounds[keep]))
        return found


@saved_class(formerly=("sklearn_ed.distances._bounds.LengthRatioBound",))
class LengthRatioBound(LowerBound):
    """``scale * (1 - min(n, m) / max(n, m))``: Jaro and Jaro-Winkler distances.

    Jaro similarity is ``(c / n + c / m + (c - t) / c) / 3`` with ``c <=
    min(n, m)`` matches, so at most ``(2 + min / max) / 3``: the distance is at
    least ``(1 - min / max) / 3`` (``scale=1/3``). Winkler's prefix raises the
    similarity by ``l * 0.1 * (1 - jaro)`` with ``l <= 4``, so one minus it
    is at least ``0.6 * (1 - jaro)`` (``scale=0.2``). Two empty strings: 0.

    Parameters
    ----------
    base : sequence of str
        The items bounds are computed against.
    scale : float
        ``1/3`` for Jaro, ``0.2`` for Jaro-Winkler.

    Examples
    --------
    >>> from sklearn_ed.distances import LengthRatioBound
    >>> LengthRatioBound(["abcd", "ab"], scale=1 / 3).bounds(["abcd"]).round(3).tolist()
    [[0.0, 0.167]]
    """

    def __init__(self, base, scale):
        base = check_strings(base, name="base", allow_empty=True)
        self.scale = float(scale)
        self._strings = base
        self._lengths = np.fromiter(map(len, base), dtype=np.float64, count=len(base))

    def __getstate__(self):
        return {"scale": self.scale, "strings": self._strings}

    def __setstate__(self, state):
        self.__init__(list(state["strings"]), state["scale"])

    def bounds(self, queries):
        """Lower bounds of the Jaro(-Winkler) distance for every (query, item) pair.

        Parameters
        ----------
        queries : sequence of str
            Query strings.

        Returns
        -------
        bounds : ndarray of float64, shape (n_queries, n_base)
            ``scale * (1 - shorter / longer)``.
        """
        lengths = np.fromiter(map(len, queries), dtype=np.float64, count=len(queries))[:, None]
        shorter = np.minimum(lengths, self._lengths[None, :])
        longer = np.maximum(lengths, self._lengths[None, :])
        ratio = np.divide(shorter, longer, out=np.ones_like(longer), where=longer > 0)
        # Shrunk by one part in 10^12, so that rounding never lifts it above the distance.
        return self.scale * (1.0 - ratio) * (1 - 1e-12)
