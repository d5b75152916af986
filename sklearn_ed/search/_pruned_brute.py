"""Brute force that bounds every pair first: the k-nearest search of a
metric with a bound that costs a small share of a distance
(:attr:`~sklearn_ed.distances.Metric.brute_force_bound`).

Per query, the items of the smallest bounds are compared first
(:data:`SEEDS` at least); their k-th distance is a limit, and only the items
whose bound is at most it are compared besides. Every item nearer than the
k-th neighbor, or tied with it, has a bound at most the k-th distance: the
answer is brute force's, ties included. Jaro-Winkler on 50,000 person
records and misspelt queries leaves 0.02 % to 7 % of the items at the
nearest neighbor's distance; at the tenth's, the bound rules out little:
a query whose bounds keep over :data:`WORTH_PRUNING` of the items is
compared with all of them. The bound is tried on the first
:data:`JUDGED_QUERIES` queries of a block; where that was most of them, the
rest of the block and the next :data:`RETRY_AFTER` blocks of that ``k`` are
compared whole without bounds (:class:`PruningBound`): the bounds of 50,000
records cost 15 ns a pair, half of a normalized Indel distance.
"""

import numpy as np
from numba import njit

from ..distances import candidate_distances, ragged_candidate_distances
from ..utils import take_items

# Items of the smallest bounds compared per query before the limit is known.
SEEDS = 8
# Above this share of a block's pairs kept by the bound, the block is
# compared whole (one batched call costs less per pair than lists).
WORTH_PRUNING = 0.5
# The bound is tried on a block's first JUDGED_QUERIES queries; where it
# pruned at most half of them, the rest of the block and the next RETRY_AFTER
# blocks of that k are compared whole without it.
RETRY_AFTER = 16
JUDGED_QUERIES = 8
# Lists of the pairs left to compare up to this length are padded into one
# paired call (rapidfuzz's ``cpdist``); longer lists get a call each.
PAIRED_LIST_LENGTH = 64


class PruningBound:
    """A metric's lower bound over the base, and per ``k`` whether it paid lately.

    Parameters
    ----------
    bound : object
        ``bound.bounds(queries)``: lower bounds for every (query, item) pair.
    """

    def __init__(self, bound):
        self.bound = bound
        # k -> blocks compared whole since the bound last failed to pay.
        self._skipped = {}

    def __getstate__(self):
        # Sent to a Dask worker with a block, the bound would carry the whole
        # base with every task: there, blocks are compared whole.
        return {"bound": None, "_skipped": {}}

    def top_k(self, metric, k, ties, queries, items, exclude):
        """:func:`pruned_top_k` of the block, or None where the bound did not
        pay for this ``k`` lately (the block is then compared whole).

        The bound is tried on the block's first :data:`JUDGED_QUERIES`
        queries; where it prunes at most half of them, the rest of the block
        is compared whole, and so are the next :data:`RETRY_AFTER` blocks.
        """
        if self.bound is None:
            return None
        skipped = self._skipped.get(k)
        if skipped is not None and skipped < RETRY_AFTER:
            self._skipped[k] = skipped + 1
            return None
        tried = np.arange(min(JUDGED_QUERIES, len(queries)))
        rest = np.arange(len(tried), len(queries))
        rows, found, whole = pruned_top_k(
            metric, self.bound, k, ties, take_items(queries, tried), items, exclude[tried]
        )
        if len(tried) == JUDGED_QUERIES and len(whole) > WORTH_PRUNING * len(tried):
            # Computing the bounds of a block costs a share of its distances
            # (15 ns a pair for 64 character counts, against 30 to 170 ns for
            # normalized Indel to Jaro-Winkler on person records): tried on
            # the first queries only, not paid again for the rest.
            self._skipped[k] = 0
            return rows, found, np.concatenate([whole, rest])
        self._skipped.pop(k, None)
        if not len(rest):
            return rows, found, whole
        more_rows, more_found, more_whole = pruned_top_k(
            metric, self.bound, k, ties, take_items(queries, rest), items, exclude[rest]
        )
        return (
            np.concatenate([rows, rest[more_rows]]),
            _joined(found, more_found),
            np.concatenate([whole, rest[more_whole]]),
        )


def _joined(first, second):
    """Two ``(distances, indices, tied, n_verified)`` answers, one after the other."""
    distances, indices, tied, verified = (
        np.concatenate([a, b]) if isinstance(a, np.ndarray) else [*a, *b]
        for a, b in zip(first, second)
    )
    return distances, indices, tied, verified


def pruned_top_k(metric, bound, k, ties, queries, items, exclude):
    """The top-``k`` of the queries of a block the bound prunes, comparing only
    the pairs it cannot rule out, and the queries it does not prune.

    A query whose bounds keep over :data:`WORTH_PRUNING` of the items is left
    to be compared with every item (one batched call costs less per pair
    than a list). The block's seeds are compared in one paired call, and so
    are its other lists where none is longer than :data:`PAIRED_LIST_LENGTH`
    (the defaults' k = 1 queries on 5,000 records: 7.0x rapidfuzz's, median
    cell of ``results/matrix_knn_records``, against 3.2x at f57d9de, which
    called once per query).

    Parameters
    ----------
    metric : Metric
        The exact distance; its ``brute_force_bound`` built ``bound``.
    bound : object
        ``bound.bounds(queries)``: lower bounds for every (query, item) pair.
    k : int
        Neighbors per query, at most the items.
    ties : bool
        Whether to return, per query, every item at its k-th distance.
    queries, items : ndarray
        The block's queries and the base.
    exclude : ndarray of int of shape (n_queries,)
        ``exclude[i]`` (an item index, or -1 for none) is never an answer.

    Returns
    -------
    rows : ndarray of int64
        The queries answered, by position in the block.
    found : tuple
        ``(distances, indices, tied, n_verified)`` of those queries, as brute
        force's block gives them; ``n_verified`` counts the pairs compared.
    whole : ndarray of int64
        The other queries, to compare with every item.
    """
    bounds = bound.bounds(queries)
    excluded = np.flatnonzero(exclude >= 0)
    bounds[excluded, exclude[excluded]] = np.inf
    most = WORTH_PRUNING * bounds.shape[1]
    n_seeds = min(max(k, SEEDS), bounds.shape[1])
    seed_bounds, seeds = smallest_by_row(bounds, n_seeds)
    # Fewer items than seeds (or excluded), or more seeds than pay: compared whole.
    rows = np.flatnonzero(np.isfinite(seed_bounds[:, -1]) & (n_seeds <= most))
    seeds = seeds[rows]
    seeded = candidate_distances(take_items(queries, rows), items, seeds, metric, check_input=False)
    kth = np.partition(seeded, k - 1, axis=1)[:, k - 1] if len(rows) else np.empty(0)
    n_within = _count_within(bounds, rows, kth)
    pays = np.isfinite(kth) & (n_within <= most)
    rows, seeds, seeded, kth = rows[pays], seeds[pays], seeded[pays], kth[pays]
    rest, offsets = _rest_within(bounds, rows, kth, seeds, n_within[pays])
    verified = _list_distances(metric, take_items(queries, rows), items, rest, offsets, kth)
    lengths = np.diff(offsets)
    n_verified = n_seeds + lengths
    columns = np.concatenate([seeds.ravel(), rest])
    distances = np.concatenate([seeded.ravel(), verified])
    row_of = np.concatenate([np.repeat(np.arange(len(rows)), n_seeds), _row_of_entries(lengths)])
    found = (*_top_k_of_entries(row_of, columns, distances, len(rows), k, ties), n_verified)
    return rows, found, np.setdiff1d(np.arange(len(queries)), rows)


def _row_of_entries(lengths):
    """The row of each entry of lists of these lengths, laid end to end."""
    return np.repeat(np.arange(len(lengths)), lengths)


def _list_distances(metric, queries, items, columns, offsets, limits):
    """The distances of each query to its list ``columns[offsets[i]:offsets[i + 1]]``
    (above ``limits[i]``: inf), laid end to end as the lists are.

    Lists of at most :data:`PAIRED_LIST_LENGTH` are padded into one paired
    call; longer ones are compared a query at a time (one batched call
    each, which prepares the query once)."""
    lengths = np.diff(offsets)
    if not len(columns):
        return np.empty(0)
    if lengths.max() > PAIRED_LIST_LENGTH:
        lists = np.split(columns, offsets[1:-1])
        found = ragged_candidate_distances(
            queries, items, lists, metric, score_cutoff=limits, check_input=False
        )
        return np.concatenate([np.asarray(d, dtype=np.float64) for d in found])
    padded = np.full((len(lengths), int(lengths.max())), -1, dtype=np.int64)
    slot = np.arange(len(columns)) - np.repeat(offsets[:-1], lengths)
    padded[_row_of_entries(lengths), slot] = columns
    block = candidate_distances(
        queries, items, padded, metric, score_cutoff=limits, check_input=False
    )
    return block[padded >= 0]


def _top_k_of_entries(row_of, columns, distances, n_rows, k, ties):
    """Per row, the ``k`` nearest of its compared items, ties by index, and
    (``ties``) every item at its k-th distance. Every row has ``k`` entries
    or more."""
    order = np.lexsort((columns, distances, row_of))
    starts = np.searchsorted(row_of[order], np.arange(n_rows))
    top = order[starts[:, None] + np.arange(k)]
    top_distances, top_indices = distances[top], columns[top]
    if not ties:
        return top_distances, top_indices, []
    at_kth = order[distances[order] == top_distances[row_of[order], -1]]
    # Sorted by row, then column within a distance: each row's ties in order.
    bounds = np.searchsorted(row_of[at_kth], np.arange(n_rows + 1))
    tied = np.split(columns[at_kth], bounds[1:-1])
    return top_distances, top_indices, tied


@njit(cache=True, nogil=True)
def smallest_by_row(block, k):
    """One pass a row, its ``k`` smallest values and their columns kept in
    order. Columns are scanned ascending and a value enters only below the
    k-th (strictly), so a tie keeps the first column. A row of 50,000
    random values takes 0.1 ms at k = 10, where ``argpartition``, a check
    for ties and a sort of the k took 0.39 ms."""
    n_rows, n_columns = block.shape
    values = np.empty((n_rows, k))
    columns = np.empty((n_rows, k), dtype=np.int64)
    for row in range(n_rows):
        kept_values, kept_columns = values[row], columns[row]
        size = 0
        for column in range(n_columns):
            value = block[row, column]
            if size == k and not value < kept_values[k - 1]:
                continue
            position = size if size < k else k - 1
            while position > 0 and kept_values[position - 1] > value:
                kept_values[position] = kept_values[position - 1]
                kept_columns[position] = kept_columns[position - 1]
                position -= 1
            kept_values[position], kept_columns[position] = value, column
            size = min(size + 1, k)
    return values, columns


@njit(cache=True, nogil=True)
def _count_within(bounds, rows, limits):
    """Per row ``rows[i]``, its entries at most ``limits[i]``."""
    counts = np.zeros(len(rows), dtype=np.int64)
    for i in range(len(rows)):
        for value in bounds[rows[i]]:
            counts[i] += value <= limits[i]
    return counts


@njit(cache=True, nogil=True)
def _rest_within(bounds, rows, limits, seeds, counts):
    """Per row ``rows[i]``, the columns at most ``limits[i]`` (``counts[i]`` of
    them) but its seeds ``seeds[i]``, ascending and laid end to end:
    ``(columns, offsets)``."""
    # One slot more: a row's columns past its last kept one are written
    # where the next row's first goes.
    within = np.empty(counts.sum() + 1, dtype=np.int64)
    position = 0
    for i in range(len(rows)):
        # Every column written, the pointer moved by the test: no branch, so
        # the scan of 50,000 bounds stays as fast as the count's.
        row, limit = bounds[rows[i]], limits[i]
        for column in range(bounds.shape[1]):
            within[position] = column
            position += row[column] <= limit
    is_seed = np.zeros(bounds.shape[1], dtype=np.bool_)
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    n_rest, start = 0, 0
    for i in range(len(rows)):
        is_seed[seeds[i]] = True
        for column in within[start : start + counts[i]]:
            within[n_rest] = column
            n_rest += not is_seed[column]
        is_seed[seeds[i]] = False
        start += counts[i]
        offsets[i + 1] = n_rest
    return within[:n_rest], offsets
