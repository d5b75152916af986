"""The refine step: exact distances from each query to its own candidates.

``candidate_distances`` takes a rectangular array of candidate indices (the
top-C of the filter), ``ragged_candidate_distances`` lists of any length (the
candidates of radius queries). Metrics with a ``paired`` kernel (rapidfuzz's
``cpdist``) refine all pairs in one call with the metric's own threads when
joblib runs its default backend; the others take one call per query.
"""

from functools import partial

import numpy as np
from joblib import effective_n_jobs

from ...utils import check_items, default_backend, take_items
from .._registry import get_metric
from ._dispatch import map_chunks, query_chunks
from ._pairwise import _LARGEST_CUTOFF, integer_cutoff

# Candidates per query up to which one paired call over all pairs is used;
# beyond, each query is compared with its candidates in one batched call,
# which prepares the query once (rapidfuzz's paired call prepares every pair:
# 20x slower per pair on words when a radius query verifies thousands).
_PAIRED_WIDTH = 512
# Distinct cut-offs of a block that get a call each; beyond, they share calls
# on a ladder of steps 1/8 apart.
_CUTOFF_GROUPS = 16
_CUTOFF_LADDER = 1.125
_LADDER_SLACK = 1e-9


def candidate_distances(
    X, Y, candidates, metric="levenshtein", *, check_input=True, score_cutoff=None, n_jobs=None
):
    """Exact distances from each query to its own list of candidates.

    This is the refine step of filter-and-refine: query ``i`` is compared
    with ``Y[candidates[i]]`` only.

    Parameters
    ----------
    X : sequence of queries, length n_queries
    Y : sequence of base items
    candidates : ndarray of int, shape (n_queries, n_candidates)
        Indices into ``Y``; ``-1`` marks an empty slot (distance ``inf``).
    metric : str, Metric or callable, default="levenshtein"
    score_cutoff : array-like of shape (n_queries,), default=None
        Per-query upper bound of interest. Distances above it are returned
        as ``inf`` (metrics that support cut-offs skip most of the work).
    n_jobs : int, default=None
    check_input : bool, default=True
        Validate ``X`` and ``Y``. Callers whose items are already validated
        object arrays (the estimators, which validate at fit and once per
        query call) pass False: checking a base of 100,000 strings costs
        ~10 ms, per call.

    Returns
    -------
    distances : ndarray of float64, shape (n_queries, n_candidates)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.distances import candidate_distances
    >>> candidate_distances(["kitten"], ["sitting", "lawn", "kitchen"],
    ...                     np.array([[2, 0]]))
    array([[2., 3.]])
    """
    spec, X, Y = _metric_and_items(metric, X, Y, check_input)
    candidates = np.asarray(candidates)
    if candidates.ndim != 2 or candidates.shape[0] != len(X):
        raise ValueError(
            "candidates must be a 2-D integer array with one row per query; "
            f"got shape {candidates.shape} for {len(X)} queries."
        )
    _check_candidate_range(candidates, len(Y))
    cutoffs = None if score_cutoff is None else np.asarray(score_cutoff, dtype=np.float64)

    if spec.paired is not None and candidates.shape[1] <= _PAIRED_WIDTH and default_backend():
        # One batched call over all pairs, its threads inside the metric: no
        # per-chunk task dispatch, which costs more than short strings do.
        workers = effective_n_jobs(n_jobs)
        return _paired_block(spec, X, Y, candidates, cutoffs, partial(spec.paired, workers=workers))

    chunks = query_chunks(len(X), n_jobs)
    if not chunks:
        return np.empty((0, candidates.shape[1]))
    return np.concatenate(
        map_chunks(partial(_candidate_block, spec), X, Y, [candidates, cutoffs], chunks, n_jobs),
        axis=0,
    )


def _metric_and_items(metric, X, Y, check_input):
    """The metric's spec, and the queries and base checked for its input type."""
    spec = get_metric(metric)
    if check_input:
        X = check_items(X, spec.input_type, name="X", allow_empty=True)
        Y = check_items(Y, spec.input_type, name="Y")
    return spec, X, Y


def _candidate_block(spec, queries, Y, candidates, cutoffs):
    """Distances of a chunk of queries to their candidate rows."""
    if spec.paired is not None and candidates.shape[1] <= _PAIRED_WIDTH:
        return _paired_block(spec, queries, Y, candidates, cutoffs, spec.paired)
    return np.stack(
        [
            _one_query(spec, query, Y, row, None if cutoffs is None else cutoffs[i])
            for i, (query, row) in enumerate(zip(queries, candidates))
        ]
    )


def ragged_candidate_distances(
    X, Y, candidates, metric="levenshtein", *, check_input=True, score_cutoff=None, n_jobs=None
):
    """Exact distances from each query to a candidate list of its own length.

    As :func:`candidate_distances`, for lists of any lengths (the candidates
    of radius queries): each query is compared with its candidates in one
    batched call of the metric, queries spread over ``n_jobs`` threads.

    Parameters
    ----------
    X : sequence of queries, length n_queries
    Y : sequence of base items
    candidates : sequence of ndarray of int, length n_queries
        Indices into ``Y`` per query.
    metric : str, Metric or callable, default="levenshtein"
    score_cutoff : array-like of shape (n_queries,), default=None
        Per-query upper bound of interest; distances above it are ``inf``.
    n_jobs : int, default=None
    check_input : bool, default=True
        Validate ``X`` and ``Y``. Callers whose items are already validated
        object arrays (the estimators, which validate at fit and once per
        query call) pass False: checking a base of 100,000 strings costs
        ~10 ms, per call.

    Returns
    -------
    distances : list of ndarray of float64
        ``distances[i][j]`` is the distance of query ``i`` to ``Y[candidates[i][j]]``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.distances import ragged_candidate_distances
    >>> ragged_candidate_distances(["kitten", "flaw"], ["sitting", "lawn", "kitchen"],
    ...                            [np.array([0, 2]), np.array([1])])
    [array([3., 2.]), array([2.])]
    """
    spec, X, Y = _metric_and_items(metric, X, Y, check_input)
    if len(candidates) != len(X):
        raise ValueError(
            f"candidates has {len(candidates)} lists for {len(X)} queries; "
            "one list per query is needed."
        )
    cutoffs = None if score_cutoff is None else np.asarray(score_cutoff, dtype=np.float64)

    candidates = [np.asarray(row, dtype=np.int64) for row in candidates]
    for row in candidates:
        _check_candidate_range(row, len(Y))

    blocks = map_chunks(
        partial(_ragged_block, spec),
        X,
        Y,
        [candidates, cutoffs],
        query_chunks(len(X), n_jobs),
        n_jobs,
    )
    return [row for block in blocks for row in block]


def _ragged_block(spec, queries, Y, candidates, cutoffs):
    return [
        _one_query(spec, query, Y, row, None if cutoffs is None else cutoffs[i])
        for i, (query, row) in enumerate(zip(queries, candidates))
    ]


def _check_candidate_range(candidates, n_items):
    """Candidate indices must point into ``Y`` (``-1``: an empty slot)."""
    if candidates.size and not np.issubdtype(candidates.dtype, np.integer):
        raise TypeError(f"candidates must hold integer indices, got dtype {candidates.dtype}.")
    bad = (candidates < -1) | (candidates >= n_items)
    if bad.any():
        raise ValueError(
            f"candidates holds {candidates[bad].flat[0]}, outside the {n_items} items of Y "
            "(valid: 0 to len(Y) - 1, and -1 for an empty slot)."
        )


def _paired_block(spec, queries, Y, candidates, cutoffs, paired):
    """Distances of a block of queries to their candidates, one call per cut-off.

    rapidfuzz takes one cut-off a call, so the pairs are grouped by their
    query's cut-off and each group is one batched call; past
    ``_CUTOFF_GROUPS`` distinct cut-offs, each is rounded up to a step of a
    geometric ladder for its call (see :func:`_laddered`), and the pairs are
    still held to their own.
    """
    block = np.full(candidates.shape, np.inf)
    rows, columns = np.nonzero(candidates >= 0)
    if rows.size == 0:
        return block
    query_items = _as_object_array(queries)
    base_items = Y if isinstance(Y, np.ndarray) else _as_object_array(Y)
    pair_queries = query_items[rows]
    pair_items = base_items[candidates[rows, columns]]
    if cutoffs is None:
        block[rows, columns] = paired(pair_queries, pair_items)
        return block
    pair_cutoffs = cutoffs[rows]
    if spec.integer_valued:
        pair_cutoffs = np.floor(np.minimum(pair_cutoffs, _LARGEST_CUTOFF))
    call_cutoffs = np.unique(pair_cutoffs)
    if len(call_cutoffs) > _CUTOFF_GROUPS:
        call_cutoffs, group_of_pair = np.unique(
            _laddered(pair_cutoffs, spec.integer_valued), return_inverse=True
        )
    else:
        group_of_pair = np.searchsorted(call_cutoffs, pair_cutoffs)
    by_group = np.argsort(group_of_pair, kind="stable")
    bounds = np.searchsorted(group_of_pair[by_group], np.arange(len(call_cutoffs) + 1))
    for cutoff, start, stop in zip(call_cutoffs, bounds[:-1], bounds[1:]):
        group = by_group[start:stop]
        kwargs = (
            {}
            if np.isinf(cutoff) or not spec.supports_cutoff
            else {"score_cutoff": int(cutoff) if spec.integer_valued else float(cutoff)}
        )
        values = paired(pair_queries[group], pair_items[group], **kwargs).astype(np.float64)
        values[values > pair_cutoffs[group]] = np.inf
        block[rows[group], columns[group]] = values
    return block


def _laddered(cutoffs, integer_valued):
    """Each cut-off rounded up to the next step of ``_CUTOFF_LADDER`` (zero and
    ``inf`` kept): never below its own, at most 1/8 above.

    The refine of long strings cuts each query off at its own k-th distance:
    2,048 reads held about 300 distinct ones, and 300 calls of 7 reads'
    candidates each were too small to share between threads.
    """
    positive = np.isfinite(cutoffs) & (cutoffs > 0)
    laddered = cutoffs.copy()
    steps = np.ceil(np.log(cutoffs[positive]) / np.log(_CUTOFF_LADDER) - _LADDER_SLACK)
    laddered[positive] = np.maximum(np.power(_CUTOFF_LADDER, steps), cutoffs[positive])
    return np.floor(laddered) if integer_valued else laddered


def _as_object_array(items):
    if isinstance(items, np.ndarray):
        return items
    array = np.empty(len(items), dtype=object)
    array[:] = list(items)
    return array


def _one_query(spec, query, Y, row, cutoff):
    distances = np.full(len(row), np.inf)
    valid = row >= 0
    if not valid.any():
        return distances
    query_batch = np.asarray(query)[None] if spec.input_type == "vectors" else [query]
    kwargs = {}
    if cutoff is not None and spec.supports_cutoff and np.isfinite(cutoff):
        kwargs["score_cutoff"] = integer_cutoff(cutoff) if spec.integer_valued else cutoff
    values = spec.pairwise(query_batch, take_items(Y, row[valid]), **kwargs)[0]
    values = values.astype(np.float64)
    if cutoff is not None:
        values[values > cutoff] = np.inf
    distances[valid] = values
    return distances
