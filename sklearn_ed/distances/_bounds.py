"""Lossless lower bounds of the edit distance, cheap for every item at once.

Three bounds, each <= the Levenshtein distance for every pair of strings
(the bound of a pair is the largest):

- length: ``|len(x) - len(y)|`` (each edit changes the length by at most 1);
- q-grams (Ukkonen, 1992): one edit changes at most ``q`` of the q-grams of a
  string, so the L1 distance between the q-gram count profiles of ``x`` and
  ``y`` is at most ``2 q d(x, y)``. Numbering repeated q-grams (the k-th
  occurrence of a q-gram is a token of its own) turns the multiset
  intersection into a dot product of binary rows, so the bound for a batch
  of queries against all items is one sparse product;
- deletions (short strings only, see ``_deletions``): the fewest deletions
  per side that reach a string shared by ``x`` and ``y``, or 3 if two
  deletions do not. Within distance 2 of a query, the items it can keep are
  looked up, not scanned.

Strings are padded with ``q - 1`` markers at both ends, so every string,
empty ones included, has ``len + q - 1`` q-grams and edits at the ends count.

E. Ukkonen. "Approximate string-matching with q-grams and maximal matches",
Theoretical Computer Science 92(1): 191-211, 1992.
"""

import numpy as np
from scipy import sparse

from ..utils import (
    HASH_MULTIPLIER,
    Alphabet,
    CodeTable,
    check_strings,
    qgram_code_base,
    qgram_counts,
)
from ._deletions import DeletionIndex


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
    """Base of the lower bounds: ``within`` from the dense ``bounds``.

    A bound may also find, without a scan, every item within a small exact
    distance ``near_radius`` of a query (``near_items``); ``None``: it
    cannot.
    """

    near_radius = None

    def bounds(self, queries):
        raise NotImplementedError

    def near_items(self, queries):
        """Per query, items including every one within ``near_radius`` of it.

        Parameters
        ----------
        queries : sequence
            Queries.

        Returns
        -------
        items : list of ndarray of int64
            Item indices per query.
        """
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


class LevenshteinBound(LowerBound):
    """Lower bounds of the Levenshtein distance from queries to a fixed base.

    Parameters
    ----------
    base : sequence of str
        The items bounds are computed against.
    q : int, default=None
        Length of the q-grams; ``None``: 2 for alphabets of up to 10
        characters, 3 otherwise (rarer q-grams keep the product sparse).

    Notes
    -----
    The bound of a pair is the largest of the length, q-gram and deletion
    bounds (module docstring). The deletion index is built when the base's
    strings are short (``near_radius`` is then 2): ``within`` looks up the
    items of a query whose limit is at most 2 instead of scanning.

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
        # Within distance 2 of a short query, symmetric deletions find every
        # item without the sparse product over the base.
        self._deletions = (
            DeletionIndex(base) if DeletionIndex.worth_building(self._base_lengths) else None
        )

    def __getstate__(self):
        # The token table is rebuilt from the strings.
        return {"q": self.q, "strings": self._strings}

    def __setstate__(self, state):
        self.__init__(list(state["strings"]), q=state["q"])

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
            ``max(length bound, ceil(q-gram bound), deletion bound)``.
        """
        shared = self._shared(queries).toarray().astype(np.float64)
        lengths = np.fromiter(map(len, queries), dtype=np.float64, count=len(queries))
        bounds = self._combine(lengths[:, None], self._base_lengths[None, :], shared)
        if self._deletions is not None:
            depth = self._deletions.depth
            every_item = np.arange(len(self._base_lengths))
            shared_variants = self._deletions.within(queries, np.full(len(queries), depth))
            for row, (items, deleted) in enumerate(shared_variants):
                bounds[row] = np.maximum(
                    bounds[row], _deletion_bounds(every_item, items, deleted, depth)
                )
        return bounds

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
        limits = np.asarray(limits, dtype=np.float64)
        if self._deletions is None:
            return self._within_by_qgrams(queries, limits)
        depth = self._deletions.depth
        shared_variants = self._deletions.within(queries, np.minimum(limits, depth))
        near = np.flatnonzero(limits < depth + 1)
        far = np.setdiff1d(np.arange(len(limits)), near)
        found = [None] * len(limits)
        if near.size:
            # The items sharing a deletion variant within the limit are all
            # that can be within it: their q-gram and length bounds, pair by pair.
            items = [shared_variants[row][0] for row in near]
            values = self._pair_bounds([queries[row] for row in near], items)
            for row, row_items, row_values in zip(near, items, values):
                row_values = np.maximum(row_values, shared_variants[row][1])
                keep = row_values <= limits[row]
                found[row] = (row_items[keep], row_values[keep])
        far_found = self._within_by_qgrams([queries[row] for row in far], limits[far])
        for row, (row_items, row_values) in zip(far, far_found):
            deletions = _deletion_bounds(row_items, *shared_variants[row], depth)
            found[row] = (row_items, np.maximum(row_values, deletions))
        return found

    @property
    def near_radius(self):
        """Distance within which ``near_items`` finds every item: 2 for short strings.

        ``None`` when the base's strings are too long for a deletion index
        (more than 256 deletion variants per string on average, or 2**26 in
        all: about 870 MB).
        """
        return None if self._deletions is None else self._deletions.depth

    def near_items(self, queries):
        """Per query, the items sharing a deletion variant: every one within ``near_radius``.

        Parameters
        ----------
        queries : sequence of str
            Queries.

        Returns
        -------
        items : list of ndarray of int64
            Ascending item indices per query: every item within
            ``near_radius``, and some farther ones (to verify).
        """
        depth = self._deletions.depth
        return [items for items, _ in self._deletions.within(queries, np.full(len(queries), depth))]

    def _pair_bounds(self, queries, items):
        """Length and q-gram bounds of ``queries[i]`` against ``items[i]`` (lists)."""
        sizes = np.array([len(row_items) for row_items in items], dtype=np.int64)
        if sizes.sum() == 0:
            return [np.empty(0) for _ in items]
        profiles = self._profiles(queries)
        if profiles.shape[1] < self._base.shape[1]:
            profiles.resize((profiles.shape[0], self._base.shape[1]))
        rows = np.repeat(np.arange(len(queries)), sizes)
        columns = np.concatenate(items)
        shared = np.asarray(profiles[rows].multiply(self._base[columns]).sum(axis=1)).ravel()
        lengths = np.fromiter(map(len, queries), dtype=np.float64, count=len(queries))
        values = self._combine(lengths[rows], self._base_lengths[columns], shared)
        return np.split(values, np.cumsum(sizes)[:-1])

    def _within_by_qgrams(self, queries, limits):
        shared = self._shared(queries)
        found = []
        for row, (query, limit) in enumerate(zip(queries, limits)):
            start, stop = shared.indptr[row], shared.indptr[row + 1]
            items = shared.indices[start:stop].astype(np.int64)
            bounds = self._combine(
                len(query), self._base_lengths[items], shared.data[start:stop].astype(np.float64)
            )
            unshared = self._unshared_within(len(query), limit, items)
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

    def _unshared_within(self, length, limit, shared_items):
        """Items sharing no q-gram whose zero-share bound is at most ``limit``."""
        if not np.isfinite(limit):
            candidates = self._by_length
        else:
            # ceil((len_q + len_b + 2q - 2) / 2q) <= limit and |len_q - len_b| <= limit
            longest = min(2 * self.q * np.floor(limit) - length - 2 * (self.q - 1), length + limit)
            stop = np.searchsorted(self._sorted_lengths, longest, side="right")
            start = np.searchsorted(self._sorted_lengths, length - limit, side="left")
            candidates = self._by_length[start : max(start, stop)]
        if candidates.size == 0:
            return candidates
        keep = np.zeros(len(self._base_lengths), dtype=bool)
        keep[candidates] = True
        keep[shared_items] = False
        return np.flatnonzero(keep)


def _deletion_bounds(items, shared_items, deletions, depth):
    """The deletion bound of ``items`` (ascending): ``deletions`` where shared, else depth + 1."""
    bounds = np.full(len(items), depth + 1.0)
    position = np.searchsorted(items, shared_items)
    found = position < len(items)
    found[found] = items[position[found]] == shared_items[found]
    bounds[position[found]] = deletions[found]
    return bounds
