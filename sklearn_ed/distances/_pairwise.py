"""Batched exact distances: full matrices and per-query candidate lists.

Both functions split the queries into chunks dispatched through joblib, so
``n_jobs`` and ``joblib.parallel_config`` (threads, processes, or a Dask
cluster) decide where the work runs. rapidfuzz releases the GIL, so the
default is threads. Metrics with a ``paired`` kernel (rapidfuzz's
``cpdist``) refine all pairs in one call with the metric's own threads when
joblib runs its default backend.
"""

from functools import partial

import numpy as np
from joblib import effective_n_jobs

from ..utils import check_items, take_items
from ._dispatch import default_backend, map_chunks, n_workers, query_chunks
from ._registry import get_metric

# Candidates per query up to which one paired call over all pairs is used;
# beyond, each query is compared with its candidates in one batched call,
# which prepares the query once (rapidfuzz's paired call prepares every pair:
# 20x slower per pair on words when a radius query verifies thousands).
_PAIRED_WIDTH = 512


def pairwise_distances(X, Y=None, metric="levenshtein", *, score_cutoff=None, n_jobs=None,
                       check_input=True):
    """Exact distances between every item of ``X`` and every item of ``Y``.

    Parameters
    ----------
    X : sequence of str, array of shape (n_x, n_features), or sequence of objects
        Query items, of the kind the metric takes.
    Y : same kind as X, default=None
        Base items; ``None`` means ``X``.
    metric : str, Metric or callable, default="levenshtein"
        A registry name (see :func:`available_metrics`), a :class:`Metric`,
        or a callable ``metric(x, y) -> float``.
    score_cutoff : float or array-like of shape (n_x,), default=None
        Upper bound of interest, for all rows or per row of ``X``: distances
        above it are ``inf`` (float64 output), and metrics that support
        cut-offs skip most of their work (rapidfuzz bands long strings).
    n_jobs : int, default=None
        Number of parallel jobs (joblib semantics; ``-1`` uses all cores).
    check_input : bool, default=True
        Validate ``X`` and ``Y``. Callers whose items are already validated
        object arrays (the estimators, which validate at fit and once per
        query call) pass False: checking a base of 100,000 strings costs
        ~10 ms, per call.

    Returns
    -------
    distances : ndarray of shape (n_x, n_y)

    Examples
    --------
    >>> from sklearn_ed.distances import pairwise_distances
    >>> pairwise_distances(["kitten", "flaw"], ["sitting", "lawn"])
    array([[3, 5],
           [7, 2]], dtype=int32)
    """
    spec = get_metric(metric)
    if check_input:
        X = check_items(X, spec.input_type, name="X")
        Y = None if Y is None else check_items(Y, spec.input_type, name="Y")
    Y = X if Y is None else Y
    if score_cutoff is None:
        chunks = _chunk_per_worker(np.arange(len(X)), n_jobs)
        if not chunks:
            return np.empty((0, len(Y)))
        return np.concatenate(map_chunks(partial(_pairwise_block, spec), X, Y, [None], chunks,
                                         n_jobs), axis=0)
    cutoffs = np.broadcast_to(np.asarray(score_cutoff, dtype=np.float64), (len(X),))
    # One cut-off per chunk, so each chunk is one batched call with it.
    chunks = [chunk for value in np.unique(cutoffs)
              for chunk in _chunk_per_worker(np.flatnonzero(cutoffs == value), n_jobs)]
    distances = np.empty((len(X), len(Y)))
    for rows, block in zip(chunks, map_chunks(partial(_pairwise_block, spec), X, Y, [cutoffs],
                                              chunks, n_jobs)):
        distances[rows] = block
    return distances


def _chunk_per_worker(rows, n_jobs):
    """A base is prepared once per batched call: as few chunks as workers."""
    return [chunk for chunk in np.array_split(rows, max(1, min(len(rows), n_workers(n_jobs))))
            if len(chunk)]


def _pairwise_block(spec, queries, Y, cutoffs):
    if cutoffs is None:
        return spec.pairwise(queries, Y)
    cutoff = cutoffs[0]
    kwargs = {}
    if spec.supports_cutoff and np.isfinite(cutoff):
        kwargs["score_cutoff"] = integer_cutoff(cutoff) if spec.integer_valued else cutoff
    distances = np.asarray(spec.pairwise(queries, Y, **kwargs), dtype=np.float64)
    distances[distances > cutoff] = np.inf
    return distances


def candidate_distances(X, Y, candidates, metric="levenshtein", *, check_input=True,
                        score_cutoff=None, n_jobs=None):
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
    spec = get_metric(metric)
    if check_input:
        X = check_items(X, spec.input_type, name="X", allow_empty=True)
        Y = check_items(Y, spec.input_type, name="Y")
    candidates = np.asarray(candidates)
    if candidates.ndim != 2 or candidates.shape[0] != len(X):
        raise ValueError(
            "candidates must be a 2-D integer array with one row per query; "
            f"got shape {candidates.shape} for {len(X)} queries."
        )
    _check_candidate_range(candidates, len(Y))
    cutoffs = None if score_cutoff is None else np.asarray(score_cutoff, dtype=np.float64)

    if spec.paired is not None and candidates.shape[1] <= _PAIRED_WIDTH and \
            default_backend():
        # One batched call over all pairs, its threads inside the metric: no
        # per-chunk task dispatch, which costs more than short strings do.
        workers = effective_n_jobs(n_jobs)
        return _paired_block(spec, X, Y, candidates, cutoffs,
                             partial(spec.paired, workers=workers))

    chunks = query_chunks(len(X), n_jobs)
    if not chunks:
        return np.empty((0, candidates.shape[1]))
    return np.concatenate(map_chunks(partial(_candidate_block, spec), X, Y,
                                     [candidates, cutoffs], chunks, n_jobs), axis=0)


def _candidate_block(spec, queries, Y, candidates, cutoffs):
    """Distances of a chunk of queries to their candidate rows."""
    if spec.paired is not None and candidates.shape[1] <= _PAIRED_WIDTH:
        return _paired_block(spec, queries, Y, candidates, cutoffs, spec.paired)
    return np.stack([_one_query(spec, query, Y, row, None if cutoffs is None else cutoffs[i])
                     for i, (query, row) in enumerate(zip(queries, candidates))])


def ragged_candidate_distances(X, Y, candidates, metric="levenshtein", *, check_input=True,
                               score_cutoff=None, n_jobs=None):
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
    spec = get_metric(metric)
    if check_input:
        X = check_items(X, spec.input_type, name="X", allow_empty=True)
        Y = check_items(Y, spec.input_type, name="Y")
    if len(candidates) != len(X):
        raise ValueError(f"candidates has {len(candidates)} lists for {len(X)} queries; "
                         "one list per query is needed.")
    cutoffs = None if score_cutoff is None else np.asarray(score_cutoff, dtype=np.float64)

    candidates = [np.asarray(row, dtype=np.int64) for row in candidates]
    for row in candidates:
        _check_candidate_range(row, len(Y))

    blocks = map_chunks(partial(_ragged_block, spec), X, Y, [candidates, cutoffs],
                        query_chunks(len(X), n_jobs), n_jobs)
    return [row for block in blocks for row in block]


def _ragged_block(spec, queries, Y, candidates, cutoffs):
    return [_one_query(spec, query, Y, row, None if cutoffs is None else cutoffs[i])
            for i, (query, row) in enumerate(zip(queries, candidates))]


# Integer cut-offs beyond this are no cut-off (rapidfuzz takes a C long).
_LARGEST_CUTOFF = np.iinfo(np.int32).max


def integer_cutoff(cutoff):
    """A finite cut-off as the integer rapidfuzz takes, at most ``_LARGEST_CUTOFF``."""
    return int(np.floor(min(cutoff, _LARGEST_CUTOFF)))


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

    Integer-valued metrics have few distinct cut-offs, so the pairs are
    grouped by their query's cut-off and each group is one batched call.
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
    for cutoff in np.unique(pair_cutoffs):
        group = np.flatnonzero(pair_cutoffs == cutoff)
        kwargs = {} if np.isinf(cutoff) or not spec.supports_cutoff else {
            "score_cutoff": int(cutoff) if spec.integer_valued else float(cutoff)}
        values = paired(pair_queries[group], pair_items[group], **kwargs).astype(np.float64)
        values[values > cutoff] = np.inf
        block[rows[group], columns[group]] = values
    return block


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


def symmetric_pairwise_distances(X, metric="levenshtein", *, n_jobs=None):
    """Exact distance matrix of ``X`` with itself, each pair computed once.

    For symmetric metrics (training sets of the learned embedders): rows are
    split into blocks of equal upper-triangle area, block ``[s, e)`` is
    compared with items ``[s, n)``, and the upper triangle is mirrored.

    Parameters
    ----------
    X : sequence of items of the metric's kind
    metric : str, Metric or callable, default="levenshtein"
    n_jobs : int, default=None

    Returns
    -------
    distances : ndarray of shape (n, n)
        Zero diagonal; float64, or the smallest signed integer type that
        holds the values for integer-valued metrics.

    Examples
    --------
    >>> from sklearn_ed.distances import symmetric_pairwise_distances
    >>> symmetric_pairwise_distances(["ab", "abc", "b"])
    array([[0, 1, 1],
           [1, 0, 2],
           [1, 2, 0]], dtype=int16)
    """
    spec = get_metric(metric)
    X = check_items(X, spec.input_type, name="X", allow_empty=True)
    n = len(X)
    n_blocks = max(1, min(n, 8 * effective_n_jobs(n_jobs)))
    area = np.linspace(0, 1, n_blocks + 1)
    bounds = np.unique(np.round(n * (1 - np.sqrt(1 - area))).astype(np.int64))
    blocks = [(start, stop) for start, stop in zip(bounds[:-1], bounds[1:]) if stop > start]

    values = map_chunks(partial(_upper_block, spec), None, X, [blocks],
                        [[index] for index in range(len(blocks))], n_jobs)
    upper = np.zeros((n, n))
    for (start, stop), part in zip(blocks, values):
        upper[start:stop, start:] = part[0]
    upper = np.triu(upper, 1)
    full = upper + upper.T
    if spec.integer_valued:
        top = full.max(initial=0)
        return full.astype(np.int16 if top < np.iinfo(np.int16).max else np.int32)
    return full


def _upper_block(spec, _, X, bounds):
    """Rows ``[start, stop)`` of ``X`` against items ``[start, n)``, per block bound."""
    return [spec.pairwise(take_items(X, np.arange(start, stop)),
                          take_items(X, np.arange(start, len(X))))
            for start, stop in bounds]
