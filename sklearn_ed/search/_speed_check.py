"""Whether a fitted filter answers slower than brute force: timed at fit.

``embedder="auto"`` fits brute force up front where a query of the whole
base costs less than a fixed limit (:func:`brute_force_limit`). A filter
built past that limit can still answer slower than brute force would:
exact search under a metric whose lower bound rules out few items (Jaro on
person records: up to 7 times brute force's query at 50,000 records, in
results/matrix_knn_records at 84fc5a0), or a filter whose recall needs
thousands of candidates. The fit then times the filter on pseudo-queries,
and brute force on the same ones where the two are close, and the
estimator answers by the faster.

The pseudo-queries are items of the base with one random edit (strings):
misspellings, as users' queries are. A base item queried as it is finds
itself at distance 0, which the near lookup and the exact passes settle at
once, and would time a cheaper search than users get.
"""

import time
from dataclasses import dataclass
from functools import partial

import numpy as np
from sklearn.utils import check_random_state

from ..utils import take_items
from ._brute import BruteSearch

# Pseudo-queries timed; the first few are run once untimed before (the
# search's first call loads compiled kernels).
TIMED_QUERIES = 16
_UNTIMED_QUERIES = 2
# Pruned brute force is timed on this many more where the first
# TIMED_QUERIES took under _MORE_QUERIES_BELOW seconds and their mean is
# above _CLEAR_SHARE of the limit it is held to: its mean over 16 misspelt
# records is led by the few the bound rules out little for (Jaro-Winkler on
# 50,000 records: 2.2 ms with one seed, 0.6 ms with another, 0.38 ms over
# 1,000 queries). Far below the limit the answer is clear, and 48 queries
# more are 5 % of a benchmark cell's 1,000. Where the bound pruned none of
# the 16, they took alike, and no more are timed.
MORE_TIMED_QUERIES = 48
_MORE_QUERIES_BELOW = 0.05
_CLEAR_SHARE = 0.25
# They are timed on the 48 more, however slow, where their mean is above the
# limit by at most NEAR_LIMIT times: each call pays a fixed cost (rapidfuzz
# prepares the whole base again, 9 ms for 100,000 records), which a fit's
# 1,000 queries share and 16 in two calls of 8 do not. On 100,000 person
# records under Jaro, k = 10: 5.4 ms a query over the 16, 3.9 ms over 64 and
# over 1,000; against exact search's limit of 5 ms, the 16 alone built a
# filter (0.8 s) that gave way to brute force after all.
NEAR_LIMIT = 1.5
# Brute force is timed too only where the filter costs more than this share
# of its estimate (``brute_force_seconds`` reads 0.6 of the time a query of
# ``BruteSearch`` takes: it leaves out the top-k selection; under a metric
# with a brute-force bound the estimate is that search's own time,
# ``pruned_brute_seconds``).
_CLOSE_SHARE = 0.5
# Where a bound rules out at most half of the base at the k-th neighbors'
# distance, they are no nearer than much of the base: the tenth neighbor of
# a misspelt person record among 50,000, where the q-gram filter needed
# 1,500 candidates to reach a recall of 0.95 under normalized Indel (a query
# 1.9 ms, brute force's 0.9 ms).
CROWDED_SHARE = 0.5


@dataclass(frozen=True)
class QueryTiming:
    """Seconds of one query: the fitted filter's, and brute force's.

    Attributes
    ----------
    filter_seconds : float
        The filter's mean over :data:`TIMED_QUERIES` pseudo-queries.
    brute_seconds : float
        Brute force's mean over the same pseudo-queries, or its estimate
        (``brute_force_seconds``) where the filter was far below it.
    brute_timed : bool
        Whether ``brute_seconds`` was timed (the two were close).
    """

    filter_seconds: float
    brute_seconds: float
    brute_timed: bool

    @property
    def brute_force_faster(self):
        """Whether brute force answered the pseudo-queries in less time."""
        return self.brute_seconds < self.filter_seconds


def time_queries(search, n_neighbors, n_candidates, brute_estimate, random_state=None):
    """Time ``search`` and, where close, brute force on edited base items.

    Parameters
    ----------
    search : FittedSearch
        The fitted filter, its recall check done.
    n_neighbors : int
        Neighbors per query, as the estimator answers.
    n_candidates : int
        The filter's candidate count (``n_candidates_``).
    brute_estimate : float
        Seconds of one brute-force query estimated at fit
        (:func:`~sklearn_ed.search.brute_force_seconds`, or under a metric
        with a brute-force bound :func:`pruned_brute_seconds`).
    random_state : int, RandomState instance or None, default=None
        Seeds the pseudo-queries.

    Returns
    -------
    timing : QueryTiming
        The two costs per query.
    """
    rng = check_random_state(random_state)
    strings = search.metric.input_type == "strings"
    queries, exclude = pseudo_queries(
        search.items, _UNTIMED_QUERIES + TIMED_QUERIES, rng, strings=strings
    )
    warm, timed = np.split(np.arange(len(exclude)), [_UNTIMED_QUERIES])
    n_neighbors = max(1, min(n_neighbors, search.n_items - 1))
    timing = partial(_seconds_per_query, queries=queries, exclude=exclude, n_neighbors=n_neighbors)
    timing(search, warm, n_candidates=n_candidates)
    filter_seconds = timing(search, timed, n_candidates=n_candidates)
    if filter_seconds < _CLOSE_SHARE * brute_estimate:
        return QueryTiming(filter_seconds, brute_estimate, brute_timed=False)
    brute = BruteSearch(search.metric, n_jobs=search.n_jobs).build(search.items)
    # Its first call builds its bound over the base (character counts: 0.1 s
    # for 50,000 records, 3 to 6 ms a query of the 16 timed), a cost of the
    # fit that never recurs.
    timing(brute, warm)
    return QueryTiming(filter_seconds, timing(brute, timed), brute_timed=True)


def _seconds_per_query(answering, rows, queries, exclude, n_neighbors, **count):
    """Mean seconds of ``answering.kneighbors`` on ``queries[rows]`` (each
    leaving out ``exclude[rows]``, none where ``exclude`` is None)."""
    left_out = None if exclude is None else exclude[rows]
    start = time.perf_counter()
    answering.kneighbors(take_items(queries, rows), n_neighbors, exclude=left_out, **count)
    return (time.perf_counter() - start) / len(rows)


@dataclass(frozen=True)
class PrunedBruteTiming:
    """A k-nearest query of brute force pruned by the metric's bound.

    Attributes
    ----------
    seconds : float
        The mean over :data:`TIMED_QUERIES` pseudo-queries, and
        :data:`MORE_TIMED_QUERIES` more where those were quick, not far below
        the limit, and pruned by the bound; where they were above the limit
        by at most :data:`NEAR_LIMIT` times, the mean of those more alone.
    share_verified : float
        The median share of the base whose distance they computed (the rest
        the bound ruled out at their k-th distance).
    """

    seconds: float
    share_verified: float

    @property
    def crowded(self):
        """Whether the k-th neighbors lie in the crowd: the bound rules out at
        most half of the base at their distance (:data:`CROWDED_SHARE`)."""
        return self.share_verified > CROWDED_SHARE


def pruned_brute_seconds(
    metric, items, n_neighbors, n_jobs, random_state=None, limit=None, crowded_limit=None
):
    """One k-nearest query of :class:`BruteSearch` over ``items``, timed on
    pseudo-queries (:func:`pseudo_queries`), and the share it compared.

    For a metric whose bound prunes brute force
    (:attr:`~sklearn_ed.distances.Metric.brute_force_bound`), a query costs
    less than comparing every item (``brute_force_seconds``), by how much
    depends on ``n_neighbors`` and the data: on 50,000 person records under
    Jaro-Winkler, 5 to 8 times less for the nearest neighbor, nothing for
    the tenth.

    Parameters
    ----------
    metric : Metric
        The exact distance.
    items : ndarray of shape (n_samples,)
        The base, validated and processed.
    n_neighbors : int
        Neighbors per query.
    n_jobs : int or None
        Threads of the search.
    random_state : int, RandomState instance or None, default=None
        Seeds the pseudo-queries.
    limit : float, default=None
        The seconds a query the timing is held to: more queries are timed
        where the first are quick and not far below it (None: not far below
        any), and also where they are slow but above it by at most
        :data:`NEAR_LIMIT` times.
    crowded_limit : float, default=None
        The limit instead where the k-th neighbors lie in the crowd
        (:attr:`PrunedBruteTiming.crowded`); None: ``limit`` there too.

    Returns
    -------
    timing : PrunedBruteTiming
        Seconds a query, and the share of the base it compared.
    """
    rng = check_random_state(random_state)
    n_queries = _UNTIMED_QUERIES + TIMED_QUERIES + MORE_TIMED_QUERIES
    queries, _ = pseudo_queries(items, n_queries, rng, strings=True)
    warm, timed, more = np.split(queries, [_UNTIMED_QUERIES, _UNTIMED_QUERIES + TIMED_QUERIES])
    n_neighbors = max(1, min(n_neighbors, len(items)))
    brute = BruteSearch(metric, n_jobs=n_jobs).build(items)
    brute.kneighbors(warm, n_neighbors)
    seconds, verified = _timed_kneighbors(brute, timed, n_neighbors)
    first = PrunedBruteTiming(seconds / len(timed), float(np.median(verified)) / len(items))
    held_to = crowded_limit if first.crowded and crowded_limit is not None else limit
    clear = held_to is not None and first.seconds < _CLEAR_SHARE * held_to
    near = held_to is not None and held_to < first.seconds <= NEAR_LIMIT * held_to
    # Where the bound pruned none of them, each compared the whole base: their
    # times are alike (about 2 ms each on 50,000 records under Jaro-Winkler).
    alike = (verified >= len(items)).all()
    if not (near or seconds < _MORE_QUERIES_BELOW and not (clear or alike)):
        return first
    more_seconds, more_verified = _timed_kneighbors(brute, more, n_neighbors)
    verified = np.concatenate([verified, more_verified])
    # Near the limit, the one call of 48 alone: its fixed cost is shared as
    # a fit's queries share it.
    mean = more_seconds / len(more) if near else (seconds + more_seconds) / len(verified)
    return PrunedBruteTiming(mean, float(np.median(verified)) / len(items))


def _timed_kneighbors(search, queries, n_neighbors):
    """Seconds of ``search.kneighbors`` on ``queries``, and the items each compared."""
    start = time.perf_counter()
    _, verified = search.kneighbors(queries, n_neighbors)
    return time.perf_counter() - start, verified


def pseudo_queries(items, n_queries, rng, *, strings):
    """Queries like users', made of the base: strings with one random edit.

    Parameters
    ----------
    items : ndarray of shape (n_samples,) or (n_samples, n_features)
        The base.
    n_queries : int
        Pseudo-queries made.
    rng : numpy.random.RandomState
        Draws the items and the edits.
    strings : bool
        Whether the items are strings (edited) or other items (kept).

    Returns
    -------
    queries : ndarray of shape (n_queries,) or (n_queries, n_features)
        Strings: base items with one character substituted, deleted or
        inserted (from the drawn items' characters). Other items: base
        items as they are.
    exclude : ndarray of int64 of shape (n_queries,)
        The item each query must not find (its own, when it is a base item
        unchanged; -1 for an edited string, whose item is a true neighbor).
    """
    rows = rng.randint(len(items), size=n_queries)
    drawn = take_items(items, rows)
    if not strings:
        return drawn, rows.astype(np.int64)
    characters = sorted(set("".join(drawn))) or ["a"]
    edited = [_edited(text, rng, characters) for text in drawn]
    return np.array(edited, dtype=object), np.full(n_queries, -1, dtype=np.int64)


def _edited(text, rng, characters):
    """``text`` with one character substituted, deleted or inserted."""
    kind = rng.randint(3) if text else 2
    where = rng.randint(len(text) + (kind == 2))
    letter = characters[rng.randint(len(characters))]
    if kind == 0:
        return text[:where] + letter + text[where + 1 :]
    if kind == 1:
        return text[:where] + text[where + 1 :]
    return text[:where] + letter + text[where:]
