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

from ..distances import ragged_candidate_distances
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
    than a list).

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
    seed_limits = _kth_smallest(bounds, min(max(k, SEEDS), bounds.shape[1]))
    # Fewer items than seeds (or excluded): compared whole.
    rows = np.flatnonzero(np.isfinite(seed_limits))
    seeds = _lists_within(bounds, rows, np.full(len(rows), -np.inf), seed_limits[rows])
    n_seeded = np.array([len(columns) for columns in seeds], dtype=np.int64)
    few = n_seeded <= most  # more than SEEDS where bounds tie
    rows, seeds, n_seeded = rows[few], _kept(seeds, few), n_seeded[few]
    seeded = _distances(metric, take_items(queries, rows), items, seeds, None)
    kth = np.array([np.partition(d, k - 1)[k - 1] for d in seeded])
    n_kept = n_seeded + _count_within(bounds, rows, seed_limits[rows], kth)
    pays = np.isfinite(kth) & (n_kept <= most)
    rows, seeds, seeded, kth = rows[pays], _kept(seeds, pays), _kept(seeded, pays), kth[pays]
    rest = _lists_within(bounds, rows, seed_limits[rows], kth)
    verified = _distances(metric, take_items(queries, rows), items, rest, kth)
    lists = [np.concatenate(pair) for pair in zip(seeds, rest)]
    n_verified = np.array([len(columns) for columns in lists], dtype=np.int64)
    distances = [np.concatenate(pair) for pair in zip(seeded, verified)]
    found = (*_top_k_of_lists(lists, distances, k, ties), n_verified)
    return rows, found, np.setdiff1d(np.arange(len(queries)), rows)


def _kept(values, mask):
    return [value for value, keep in zip(values, mask) if keep]


def _distances(metric, queries, items, lists, limits):
    return [
        np.asarray(d, dtype=np.float64)
        for d in ragged_candidate_distances(
            queries, items, lists, metric, score_cutoff=limits, check_input=False
        )
    ]


def _top_k_of_lists(lists, distances, k, ties):
    """Per query, the ``k`` nearest of its compared items, ties by index."""
    top_distances = np.empty((len(lists), k))
    top_indices = np.empty((len(lists), k), dtype=np.int64)
    tied = []
    for row, (columns, values) in enumerate(zip(lists, distances)):
        order = np.lexsort((columns, values))[:k]
        top_distances[row], top_indices[row] = values[order], columns[order]
        if ties:
            at_kth = columns[values == values[order[-1]]]
            tied.append(np.sort(at_kth))
    return top_distances, top_indices, tied


@njit(cache=True, nogil=True)
def _kth_smallest(bounds, n):
    """Per row, its ``n``-th smallest value (one pass, ``n`` kept in order)."""
    kth = np.empty(bounds.shape[0])
    smallest = np.empty(n)
    for row in range(bounds.shape[0]):
        smallest[:] = np.inf
        for value in bounds[row]:
            if value < smallest[n - 1]:
                position = n - 1
                while position > 0 and smallest[position - 1] > value:
                    smallest[position] = smallest[position - 1]
                    position -= 1
                smallest[position] = value
        kth[row] = smallest[n - 1]
    return kth


@njit(cache=True, nogil=True)
def _count_within(bounds, rows, above, limits):
    """Per row ``rows[i]``, its entries in ``(above[i], limits[i]]``."""
    counts = np.zeros(len(rows), dtype=np.int64)
    for i in range(len(rows)):
        for value in bounds[rows[i]]:
            counts[i] += above[i] < value <= limits[i]
    return counts


def _lists_within(bounds, rows, above, limits):
    """Per row ``rows[i]``, the columns whose value lies in ``(above[i], limits[i]]``."""
    columns, offsets = _flat_within(bounds, rows, above, limits)
    return np.split(columns, offsets[1:-1]) if len(rows) else []


@njit(cache=True, nogil=True)
def _flat_within(bounds, rows, above, limits):
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    for i in range(len(rows)):
        count = 0
        for value in bounds[rows[i]]:
            count += above[i] < value <= limits[i]
        offsets[i + 1] = offsets[i] + count
    columns = np.empty(offsets[-1], dtype=np.int64)
    for i in range(len(rows)):
        position = offsets[i]
        for column in range(bounds.shape[1]):
            value = bounds[rows[i], column]
            if above[i] < value <= limits[i]:
                columns[position] = column
                position += 1
    return columns, offsets
