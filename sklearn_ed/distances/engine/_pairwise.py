"""Batched exact distances: full and symmetric matrices (the candidate lists of
the refine step are in ``_candidates``).

The queries are split into chunks dispatched through joblib, so ``n_jobs``
and ``joblib.parallel_config`` (threads, processes, or a Dask cluster) decide
where the work runs. rapidfuzz releases the GIL, so the default is threads.
"""

from functools import partial

import numpy as np
from joblib import effective_n_jobs

from ...utils import check_items, take_items
from .._registry import get_metric
from ._dispatch import map_chunks, n_workers


def pairwise_distances(
    X, Y=None, metric="levenshtein", *, score_cutoff=None, n_jobs=None, check_input=True
):
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
        chunks = chunk_per_worker(np.arange(len(X)), n_jobs)
        if not chunks:
            return np.empty((0, len(Y)))
        return np.concatenate(
            map_chunks(partial(pairwise_block, spec), X, Y, [None], chunks, n_jobs), axis=0
        )
    cutoffs = np.broadcast_to(np.asarray(score_cutoff, dtype=np.float64), (len(X),))
    distances = np.empty((len(X), len(Y)))
    for rows, block in _blocks_with_cutoffs(spec, X, Y, cutoffs, n_jobs):
        block = np.asarray(block, dtype=np.float64)
        block[block > cutoffs[rows, None]] = np.inf
        distances[rows] = block
    return distances


def pairwise_distances_within(X, Y, metric="levenshtein", *, limits, n_jobs=None, check_input=True):
    """The pairs of ``X`` and ``Y`` within a distance limit per row of ``X``, sparse.

    What :func:`pairwise_distances` with ``score_cutoff=limits`` keeps, as
    coordinates instead of a dense matrix with ``inf`` elsewhere: a small
    limit over a large base keeps few pairs. Integer distances stay integers.

    Parameters
    ----------
    X : sequence of str, array of shape (n_x, n_features), or sequence of objects
        Query items, of the kind the metric takes.
    Y : same kind as X
        Base items.
    metric : str, Metric or callable, default="levenshtein"
    limits : float or array-like of shape (n_x,)
        Largest distance kept, for all rows or per row of ``X``.
    n_jobs : int, default=None
    check_input : bool, default=True
        Validate ``X`` and ``Y`` (the estimators, which validated them at fit,
        pass False).

    Returns
    -------
    rows, columns : ndarray of int64
        Row of ``X`` and of ``Y`` of each pair, by row then column.
    distances : ndarray
        Their distances.

    Examples
    --------
    >>> from sklearn_ed.distances import pairwise_distances_within
    >>> rows, columns, distances = pairwise_distances_within(
    ...     ["kitten", "flaw"], ["sitting", "lawn"], limits=[3, 1])
    >>> rows.tolist(), columns.tolist(), distances.tolist()
    ([0], [0], [3])
    """
    spec = get_metric(metric)
    if check_input:
        X = check_items(X, spec.input_type, name="X")
        Y = check_items(Y, spec.input_type, name="Y")
    limits = np.broadcast_to(np.asarray(limits, dtype=np.float64), (len(X),))
    found = []
    for rows, block in _blocks_with_cutoffs(spec, X, Y, limits, n_jobs):
        block = np.asarray(block)
        block_rows, columns = np.nonzero(block <= limits[rows, None])
        found.append((rows[block_rows], columns, block[block_rows, columns]))
    if not found:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
    rows, columns, distances = (np.concatenate(part) for part in zip(*found))
    # Each chunk's pairs are by row then column already: a stable sort by row merges them.
    order = np.argsort(rows, kind="stable")
    return rows[order], columns[order].astype(np.int64), distances[order]


def _blocks_with_cutoffs(spec, X, Y, cutoffs, n_jobs):
    """``(rows, distances of X[rows] to Y)`` pairs, each chunk computed with its cut-off.

    Rows of one cut-off band are split into one chunk per worker: a batched
    call prepares the base once (and compares up to 64 short queries at
    once), and metrics that support cut-offs do less work the smaller it is
    (rapidfuzz bands long strings). A band is one value of an integer
    metric's few, or real values within ``CUTOFF_BAND`` of the band's least
    (each row's own limit of a normalized metric would otherwise make one
    call per row: four times slower on 200 queries of 50,000 records). A
    chunk's rows come largest cut-off first, the one its call takes. Values
    above a row's cut-off are left for the caller to drop.
    """
    chunks = [
        chunk[np.argsort(-cutoffs[chunk], kind="stable")]
        for band in _cutoff_bands(cutoffs)
        for chunk in chunk_per_worker(band, n_jobs)
    ]
    blocks = map_chunks(partial(pairwise_block, spec), X, Y, [cutoffs], chunks, n_jobs)
    return zip(chunks, blocks)


# Real cut-offs in one band of this ratio (powers of it apart) share a call.
CUTOFF_BAND = 1.25


def _cutoff_bands(cutoffs):
    """The rows of each band of cut-offs: 0 and below, each interval between
    powers of ``CUTOFF_BAND``, infinity (so integers 1 to 4 each apart)."""
    with np.errstate(divide="ignore"):
        bands = np.floor(np.log(np.maximum(cutoffs, 0)) / np.log(CUTOFF_BAND))
    _, band_of_row = np.unique(bands, return_inverse=True)
    order = np.argsort(band_of_row, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(band_of_row[order])) + 1)


def chunk_per_worker(rows, n_jobs):
    """A base is prepared once per batched call: as few chunks as workers."""
    return [
        chunk
        for chunk in np.array_split(rows, max(1, min(len(rows), n_workers(n_jobs))))
        if len(chunk)
    ]


def pairwise_block(spec, queries, Y, cutoffs):
    """Distances of ``queries`` to every item of ``Y`` in one batched call, with
    the cut-off ``cutoffs[0]`` (one for the block) when given."""
    if cutoffs is None:
        return spec.pairwise(queries, Y)
    cutoff = cutoffs[0]
    if spec.supports_cutoff and np.isfinite(cutoff):
        cutoff = integer_cutoff(cutoff) if spec.integer_valued else cutoff
        return spec.pairwise(queries, Y, score_cutoff=cutoff)
    return spec.pairwise(queries, Y)


# Integer cut-offs beyond this are no cut-off (rapidfuzz takes a C long).
_LARGEST_CUTOFF = np.iinfo(np.int32).max


def integer_cutoff(cutoff):
    """A finite cut-off as the integer rapidfuzz takes, at most ``_LARGEST_CUTOFF``."""
    return int(np.floor(min(cutoff, _LARGEST_CUTOFF)))


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

    values = map_chunks(
        partial(_upper_block, spec),
        None,
        X,
        [blocks],
        [[index] for index in range(len(blocks))],
        n_jobs,
    )
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
    return [
        spec.pairwise(
            take_items(X, np.arange(start, stop)), take_items(X, np.arange(start, len(X)))
        )
        for start, stop in bounds
    ]
