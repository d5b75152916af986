"""Brute force as a search: every item compared, nothing embedded or indexed.

Where comparing a query with the whole base costs no more than the
filter's own query (small bases, cheap metrics: 5,000 records under
normalized Indel take rapidfuzz 0.1 to 0.2 ms a query on 2 threads),
``embedder="auto"`` fits this search instead of a filter, and saves the
filter's fit (:func:`brute_force_seconds`, timed on the base at fit,
against :func:`brute_force_limit`).
:class:`BruteSearch` answers the same contract as
:class:`~sklearn_ed.search.FittedSearch` (k-nearest, ties, radius, append,
save), exactly: its answers are brute force's, ties by index. Under a
metric with a bound that costs a small share of a distance (Jaro,
Jaro-Winkler and the normalized distances: the characters two strings
share), its k-nearest queries bound every item first and compare only those
the bound cannot rule out (``_pruned_brute``).
"""

import math
import time
from functools import partial

import numpy as np
from joblib import effective_n_jobs

from ..distances import (
    map_chunks,
    pairwise_block,
    pairwise_distances,
    pairwise_distances_within,
    ragged_candidate_distances,
)
from ..utils import apply_processor, check_items, saved_class, take_items
from ._batching import appended_items
from ._policy import SearchPolicy
from ._pruned_brute import PruningBound, smallest_by_row

# The values of the estimators' ``search_method_``.
FILTER_REFINE, BRUTE_FORCE = "filter_refine", "brute_force"
# Brute force answers a base whose query costs at most this (seconds, on the
# fit's threads), by (near lookup kept, exact search). Without a near lookup
# (normalized, Jaro and token metrics, long strings, objects) the filter's
# query costs 0.5 to 1.9 ms on 50,000 records, 4 to 28 ms in exact search
# (results/matrix_knn_records at 84fc5a0); with one (Levenshtein and Indel on short
# strings) 0.05 to 0.45 ms on 10^5 to 3 x 10^6 words (results/words_scale).
# Its fit costs 4 us (words) to 100 us (records) per item besides. Below
# these, a query of brute force costs about what the filter's would, and
# there is no fit to pay back.
BRUTE_QUERY_SECONDS = {
    (False, False): 1e-3,
    (False, True): 5e-3,
    (True, False): 2.5e-4,
    (True, True): 5e-4,
}
# Distances computed at once (a block of queries against the whole base):
# 32 MB of float64.
_BLOCK_ENTRIES = 2**22
# (queries, base items) of the successive timings of brute_force_seconds; the
# next is run only while the last took under _TIMING_SECONDS.
_TIMING_SHAPES = ((1, 8), (4, 64), (16, 512), (64, 4096))
_TIMING_SECONDS = 0.005
# A last shape under this many seconds is timed twice more, and the least
# time kept: other work on the machine only ever adds time.
_REPEAT_BELOW = 0.02


def brute_force_seconds(metric, items, n_jobs, random_state):
    """Estimated seconds of one query compared with every item of ``items``.

    Random items are compared with a random sample of the base, in growing
    shapes (``_TIMING_SHAPES``), until one shape takes ``_TIMING_SECONDS``;
    the first (smallest) call is untimed (a callable or compiled metric's
    first call). A cheap last shape is timed three times; the least counts.
    A metric of 1 ms a pair stops after one pair and 8 (the fit of a costly
    callable pays for a few of its pairs, not for hundreds).
    """
    rng = np.random.default_rng(random_state)
    n_items = len(items)
    first = take_items(items, rng.integers(n_items, size=1))
    pairwise_distances(first, first, metric, n_jobs=n_jobs, check_input=False)
    for n_queries, n_base in _TIMING_SHAPES:
        queries = take_items(items, rng.integers(n_items, size=n_queries))
        base = take_items(items, rng.choice(n_items, size=min(n_base, n_items), replace=False))
        seconds = _timed(metric, queries, base, n_jobs)
        if seconds >= _TIMING_SECONDS or len(base) == n_items:
            break
    if seconds < _REPEAT_BELOW:
        seconds = min(seconds, *(_timed(metric, queries, base, n_jobs) for _ in range(2)))
    return seconds / n_queries * n_items / len(base)


def _timed(metric, queries, base, n_jobs):
    start = time.perf_counter()
    pairwise_distances(queries, base, metric, n_jobs=n_jobs, check_input=False)
    return time.perf_counter() - start


def brute_force_limit(policy):
    """The most seconds a brute-force query may cost for a fit of ``policy``
    (a :class:`SearchPolicy`) to choose brute force instead."""
    return BRUTE_QUERY_SECONDS[policy.near_depth > 0, policy.exact]


@saved_class(version=2, added={"prune": True})
class BruteSearch:
    """Every item compared with every query: exact, nothing to build.

    The contract of :class:`~sklearn_ed.search.FittedSearch` that the
    estimators use; ``embedder`` and ``index`` are None, and the policy is
    exact search.

    Parameters
    ----------
    metric : Metric
        The exact distance.
    n_jobs : int or None
        Threads of the distances.
    processor : str, callable or None, default=None
        Applied to queries by :meth:`check_queries`.
    prune : bool, default=True
        Whether k-nearest queries bound every pair first, where the metric
        has a brute-force bound. A bound that rules out too little on a
        block's first queries is skipped for the next blocks
        (``PruningBound``): the cost of trying it is a share of the block's.
    """

    embedder = index = bound = near = far = None
    bound_stages = ()

    def __init__(self, metric, *, n_jobs, processor=None, prune=True):
        self.metric = metric
        self.n_jobs = n_jobs
        self.processor = processor
        self.prune = prune
        self.policy = SearchPolicy(exact=True)
        self.items = None
        self.radius_calibration = np.zeros((0, 2))

    @property
    def n_items(self):
        """Number of items in the base (0 before the first :meth:`add`)."""
        return 0 if self.items is None else len(self.items)

    def build(self, items, progress=None):
        """The search of ``items``: they are kept, nothing else is built.

        Parameters
        ----------
        items : ndarray of shape (n_samples,) or (n_samples, n_features)
            The base, validated and processed.
        progress : object with an ``update(n)`` method, default=None
            A progress bar, advanced by ``n_samples``.

        Returns
        -------
        self : BruteSearch
            The search, holding ``items``.
        """
        return self.add(items, progress=progress)

    def add(self, items, embedding=None, progress=None):
        """Append ``items``; they get the next indices.

        Parameters
        ----------
        items : ndarray of shape (n_samples,) or (n_samples, n_features)
            New base items, validated and processed as the base was.
        embedding : None
            Unused (nothing is embedded); :class:`FittedSearch` takes it.
        progress : object with an ``update(n)`` method, default=None
            A progress bar, advanced by ``n_samples``.

        Returns
        -------
        self : BruteSearch
            The search, with ``n_items`` increased by ``n_samples``.
        """
        self._buffer, self.items = appended_items(getattr(self, "_buffer", None), self.items, items)
        self._bound = None
        if progress is not None:
            progress.update(len(items))
        return self

    def check_queries(self, X):
        """``X`` validated as items of the base's kind, processed as the base was.

        Parameters
        ----------
        X : array-like of shape (n_queries,) or (n_queries, n_features)
            Queries: strings, vectors or objects, as the metric compares.

        Returns
        -------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Validated, and passed through ``processor``.
        """
        return apply_processor(self.processor, check_items(X, self.metric.input_type))

    def kneighbors(self, queries, n_neighbors, n_candidates=None, exclude=None):
        """The exact top-``n_neighbors`` of each query, and the items it was compared with.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        n_neighbors : int
            Neighbors per query.
        n_candidates : int, default=None
            Unused: every item is compared.
        exclude : ndarray of int of shape (n_queries,), default=None
            ``exclude[i]`` (an item index, or -1 for none) is never an
            answer of query i.

        Returns
        -------
        neighbors : tuple of (ndarray, ndarray)
            ``(distances, indices)``, each of shape (n_queries,
            n_neighbors): exact distances ascending, ties by index.
        n_verified : ndarray of int64 of shape (n_queries,)
            Per query, the items compared: the whole base but its excluded
            item, or fewer where the metric's bound pruned them
            (:attr:`~sklearn_ed.distances.Metric.brute_force_bound`).
        """
        distances, indices, _, n_verified = self._top_k_and_ties(
            queries, n_neighbors, exclude, ties=False
        )
        return (distances, indices), n_verified

    def neighbors_and_ties(self, queries, n_neighbors, n_candidates=None, exclude=None):
        """The exact top-``n_neighbors`` and, per query, every item at its k-th distance.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        n_neighbors : int
            Neighbors per query.
        n_candidates : int, default=None
            Unused: every item is compared.
        exclude : ndarray of int of shape (n_queries,), default=None
            ``exclude[i]`` (an item index, or -1 for none) is never an
            answer, nor a tie, of query i.

        Returns
        -------
        distances : ndarray of float64 of shape (n_queries, n_neighbors)
            Exact distances of the neighbors, ascending.
        indices : ndarray of int64 of shape (n_queries, n_neighbors)
            The neighbors' item indices, ties by index.
        tied : list of ndarray of int64
            Per query, every item at exactly its k-th distance.
        """
        return self._top_k_and_ties(queries, n_neighbors, exclude, ties=True)[:3]

    def _top_k_and_ties(self, queries, n_neighbors, exclude, ties):
        exclude = np.full(len(queries), -1) if exclude is None else exclude
        found = map_chunks(
            partial(_block_top_k, self.metric, self._pruning_bound(), n_neighbors, ties),
            queries,
            self.items,
            [exclude],
            self._chunks(len(queries)),
            self.n_jobs,
        )
        if not found:
            empty = np.empty((0, n_neighbors))
            return empty, empty.astype(np.int64), [], np.empty(0, np.int64)
        distances, indices, tied, verified = zip(*found)
        return (
            np.concatenate(distances),
            np.concatenate(indices),
            [t for part in tied for t in part],
            np.concatenate(verified),
        )

    def tied_items(self, queries, kth, n_candidates=None, exclude=None):
        """Per query, every item at exactly ``kth[i]``.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        kth : ndarray of float of shape (n_queries,)
            Per query, the distance of the ties.
        n_candidates : int, default=None
            Unused: every item is compared.
        exclude : ndarray of int of shape (n_queries,), default=None
            ``exclude[i]`` (an item index, or -1 for none) is never a tie of
            query i.

        Returns
        -------
        tied : list of ndarray of int64
            Per query, the item indices at exactly ``kth[i]``.
        """
        found = self.verified_within(queries, kth, exclude=exclude)
        return [items[distances == limit] for (items, distances), limit in zip(found, kth)]

    def verified_within(self, queries, limits, lists=None, exclude=None):
        """Per query, the items within its limit by exact distance, and those distances.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        limits : ndarray of float of shape (n_queries,)
            Per query, the largest exact distance kept (inclusive).
        lists : sequence of ndarray of int, length n_queries, default=None
            Per query, the items to compare; ``None`` compares every item.
        exclude : ndarray of int of shape (n_queries,), default=None
            ``exclude[i]`` (an item index, or -1 for none) is left out of
            query i's items when every item is compared.

        Returns
        -------
        found : list of (ndarray, ndarray)
            Per query, ``(items, distances)``: the item indices (int64)
            within its limit, ascending, and their exact distances (float64).
        """
        if lists is not None:
            compared = ragged_candidate_distances(queries, self.items, lists, self.metric,
                                                  score_cutoff=limits, n_jobs=self.n_jobs,
                                                  check_input=False)  # fmt: skip
            return [
                (np.asarray(items, np.int64)[d <= limit], d[d <= limit])
                for items, d, limit in zip(lists, compared, limits)
            ]
        rows, columns, distances = pairwise_distances_within(
            queries, self.items, self.metric, limits=limits, n_jobs=self.n_jobs, check_input=False
        )
        if exclude is not None:
            kept = columns != exclude[rows]
            rows, columns, distances = rows[kept], columns[kept], distances[kept]
        bounds = np.searchsorted(rows, np.arange(len(queries) + 1))
        return [
            (columns[start:stop], np.asarray(distances[start:stop], dtype=np.float64))
            for start, stop in zip(bounds[:-1], bounds[1:])
        ]

    def embedding_threshold(self, radius, blowup=1.0):
        """Every item is compared: no embedding threshold.

        Parameters
        ----------
        radius : float
            Exact-distance radius (unused).
        blowup : float, default=1.0
            Unused.

        Returns
        -------
        threshold : float
            ``inf``.
        """
        return np.inf

    def rebuild_lookups(self):
        """Nothing is derived from the items: a loaded search is ready.

        Returns
        -------
        self : BruteSearch
            The search, unchanged.
        """
        return self

    def _pruning_bound(self):
        """The metric's brute-force bound over the items
        (:attr:`~sklearn_ed.distances.Metric.brute_force_bound`), or None
        (none, or not ``prune``)."""
        if not self.prune or self.metric.brute_force_bound is None or not self.n_items:
            return None
        if getattr(self, "_bound", None) is None:
            self._bound = PruningBound(self.metric.brute_force_bound(self.items))
        return self._bound

    def _chunks(self, n_queries):
        """Rows of the queries compared at once: one chunk per thread or more,
        each holding at most ``_BLOCK_ENTRIES`` distances."""
        workers = max(1, effective_n_jobs(self.n_jobs))
        per_worker = math.ceil(n_queries * max(self.n_items, 1) / (workers * _BLOCK_ENTRIES))
        rows = max(1, math.ceil(n_queries / (workers * max(per_worker, 1))))
        return [
            np.arange(start, min(start + rows, n_queries)) for start in range(0, n_queries, rows)
        ]

    def __getstate__(self):
        # Declared state: the policy is always exact search.
        state = dict(vars(self))
        state.pop("_buffer", None)
        state.pop("_bound", None)  # rebuilt from the items
        state.pop("policy")
        return state

    def __setstate__(self, state):
        vars(self).update(state)
        self.policy = SearchPolicy(exact=True)


def _block_top_k(metric, bound, k, ties, queries, items, exclude):
    """The top-``k`` of a chunk of queries among ``items`` (``exclude[i]`` left
    out), ties by index, (``ties``) per query every item at its k-th
    distance, and the items compared per query; with a ``bound``
    (:class:`PruningBound`), only the pairs it cannot rule out are compared
    for the queries it prunes."""
    pruned = None if bound is None else bound.top_k(metric, k, ties, queries, items, exclude)
    if pruned is None:
        return _whole_top_k(metric, k, ties, queries, items, exclude)
    rows, found, whole = pruned
    if not len(whole):
        return found
    rest = _whole_top_k(metric, k, ties, take_items(queries, whole), items, exclude[whole])
    return _merged(len(queries), [(rows, found), (whole, rest)], ties)


def _whole_top_k(metric, k, ties, queries, items, exclude):
    """:func:`_block_top_k` comparing every pair."""
    block = np.asarray(pairwise_block(metric, queries, items, None), dtype=np.float64)
    excluded = np.flatnonzero(exclude >= 0)
    block[excluded, exclude[excluded]] = np.inf
    verified = np.full(len(queries), len(items), dtype=np.int64) - (exclude >= 0)
    distances, indices = _top_k(block, k)
    if not ties:
        return distances, indices, [], verified
    tied = [np.flatnonzero(row == kth) for row, kth in zip(block, distances[:, -1])]
    return distances, indices, tied, verified


def _merged(n_queries, parts, ties):
    """The answers of a block from those of its parts: ``(rows, answers)``."""
    k = parts[0][1][0].shape[1]
    distances, indices = np.empty((n_queries, k)), np.empty((n_queries, k), dtype=np.int64)
    verified, tied = np.empty(n_queries, dtype=np.int64), [None] * n_queries
    for rows, (part_distances, part_indices, part_tied, part_verified) in parts:
        distances[rows], indices[rows], verified[rows] = part_distances, part_indices, part_verified
        for row, items in zip(rows, part_tied):
            tied[row] = items
    return distances, indices, tied if ties else [], verified


def _top_k(block, k):
    """Each row's ``k`` smallest values and their columns, ties by column."""
    return smallest_by_row(np.ascontiguousarray(block, dtype=np.float64), k)
