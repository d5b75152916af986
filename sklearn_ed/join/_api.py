"""Similarity joins: every pair of two lists (or of one) within a threshold.

The sides are validated and processed once, the threshold turned into the
largest distance kept, and the method of the registry (:mod:`._methods`)
finds the pairs of the distinct strings (:mod:`._distinct`).
"""

from numbers import Real

import numpy as np

from ..distances import get_metric, pairwise_distances_within
from ..utils import apply_processor, available_memory, check_items, pair_order, require_pandas
from ._auto import choose_join_method
from ._distinct import distinct_pairs
from ._methods import checked_join_method

# Peak bytes of a join per pair it returns (pairs of 24 bytes: two int64 rows
# and a float64 distance), allowed for: the blocks, their concatenation and
# the sort by rows (measured: 72 bytes for 584,170 pairs of 6,000 strings, 85
# for the deduplicator's graph of them; 182 for 133,357 pairs, with the
# join's fixed costs).
JOIN_BYTES_PER_PAIR = 8 * 24
_SAMPLE_LEFT, _SAMPLE_RIGHT = 300, 3000


def distance_threshold(spec, threshold, min_similarity):
    """The largest computed distance kept (:meth:`Metric.limit`), from a threshold
    in the metric's unit or a similarity."""
    if (threshold is None) == (min_similarity is None):
        raise ValueError("Give exactly one of threshold= (a distance) or min_similarity=.")
    if min_similarity is not None:
        if not spec.normalized:
            raise ValueError(
                f"min_similarity needs a normalized metric (distances in [0, 1]), got "
                f"metric={spec.name!r}; use metric='normalized_levenshtein' or "
                "'normalized_indel', or a threshold= in edits."
            )
        _check_real(min_similarity, "min_similarity", 0.0, 1.0)
        return spec.limit(1.0 - float(min_similarity))
    upper = 1.0 if spec.normalized else np.inf
    _check_real(threshold, "threshold", 0.0, upper)
    if spec.integer_valued and 0 < threshold < 1:
        raise ValueError(
            f"threshold={threshold!r} with metric={spec.name!r}, whose distances are whole "
            "edits, would keep only equal strings. For a share of the length use "
            "metric='normalized_levenshtein' or 'normalized_indel' (min_similarity=0.85 "
            "is threshold=0.15)."
        )
    return spec.limit(threshold)


def _check_real(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, Real) or not low <= value <= high:
        unit = "[0, 1] for a normalized metric" if high == 1.0 else "a distance >= 0"
        raise ValueError(f"{name} must be a number in {unit}, got {value!r}.")


def prepared_join(
    left, right, threshold, min_similarity, metric, processor, names=("left", "right")
):
    """``(spec, limit, left, right)``: the sides validated and processed once, and
    the threshold as the largest distance kept, at most the largest possible.
    ``names`` name the sides in the errors."""
    spec = get_metric(metric)
    limit = distance_threshold(spec, threshold, min_similarity)
    left = _prepared(left, processor, names[0], spec)
    right = None if right is None else _prepared(right, processor, names[1], spec)
    return spec, reachable_limit(limit, left, right), left, right


def _prepared(strings, processor, name, spec):
    return apply_processor(processor, check_items(strings, spec.input_type, name=name), name=name)


def reachable_limit(limit, left, right):
    """``limit``, or the largest distance two of the strings can have if it is less:
    no string metric exceeds the sum of the two lengths, so a larger threshold
    (``inf``, ``1e300``) keeps every pair without overflowing an integer. Other
    items (records, series) have no such bound: ``limit`` as it is."""
    if not all(_strings(side) for side in (left, right) if side is not None):
        return limit
    longest = max(map(len, left)) + max(map(len, left if right is None else right))
    return min(limit, float(longest))


def _strings(items):
    return getattr(items, "ndim", 1) == 1 and len(items) > 0 and isinstance(items[0], str)


def iter_similarity_join(
    left,
    right=None,
    *,
    threshold=None,
    min_similarity=None,
    metric="levenshtein",
    processor=None,
    method="auto",
    n_jobs=None,
):
    """Stream every pair within a threshold, block by block, in bounded memory.

    The same pairs as :func:`similarity_join`, as blocks of arrays, so the
    output need not fit in memory: write each block out, or reduce it.

    Parameters
    ----------
    left, right, threshold, min_similarity, metric, processor, method, n_jobs
        As in :func:`similarity_join`.

    Yields
    ------
    left_index, right_index : ndarray of int64
        Positions of each pair's strings in ``left`` and ``right`` (in
        ``left`` for a self-join, with ``left_index < right_index``).
    distance : ndarray
        Their distances. Within a block pairs are sorted by left then right
        index; blocks come in no set order.

    Examples
    --------
    >>> from sklearn_ed import iter_similarity_join
    >>> blocks = iter_similarity_join(["kitten", "sitting", "mitten"], threshold=1)
    >>> [(i.tolist(), j.tolist()) for i, j, _ in blocks if len(i)]
    [([0], [2])]
    """
    spec, limit, left, right = prepared_join(
        left, right, threshold, min_similarity, metric, processor
    )
    yield from join_prepared(left, right, spec, limit, method, n_jobs)


def join_prepared(left, right, spec, limit, method, n_jobs, on_choice=None, distinct=False):
    """The blocks of pairs of two prepared sides within ``limit``, by the method
    named (:func:`join_method_names`), each distinct string compared once.

    ``on_choice(choice)`` is called with the :class:`~._auto.JoinChoice` once
    the method is chosen (on the distinct strings, when the blocks are first
    asked for). ``distinct=True``: the caller's sides hold no copies (the
    deduplicator joins its distinct strings), so they are not looked for."""
    checked_join_method(method, spec, limit)

    def engine(left, right):
        choice = choose_join_method(method, left, right, spec, limit, n_jobs)
        if on_choice is not None:
            on_choice(choice)
        return choice.blocks

    if distinct:
        return _lazily(engine, left, right)
    return distinct_pairs(left, right, spec, limit, engine)


def _lazily(engine, left, right):
    yield from engine(left, right)


def similarity_join(
    left,
    right=None,
    *,
    threshold=None,
    min_similarity=None,
    metric="levenshtein",
    processor=None,
    method="auto",
    n_jobs=None,
    as_frame=False,
):
    """Every pair of strings within a threshold: a self-join or two lists.

    Exact unless ``method="filter"``: no pair within the threshold is missed
    and none beyond it is returned;
    the N x M matrix of distances is never built. With
    ``method="partition"`` only pairs that share a segment of the partition
    filter (Li et al., "Pass-Join", PVLDB 2011) are compared, which is
    lossless for Levenshtein, Indel, OSA, Damerau-Levenshtein, LCSseq and
    their normalized forms; ``"brute"`` compares every pair with rapidfuzz's
    score cut-off, a block of rows at a time.

    Parameters
    ----------
    left : array-like of str of shape (n_left,)
        Strings (a list, array or pandas Series).
    right : array-like of str of shape (n_right,), default=None
        The second list; ``None`` joins ``left`` with itself (each pair once,
        never a string with itself).
    threshold : float, default=None
        Largest distance kept, in the metric's unit: edits for
        ``"levenshtein"``, a share in [0, 1] for the normalized metrics. A
        pair exactly at it is kept (as by rapidfuzz's ``score_cutoff``);
        ``float("inf")`` keeps every pair.
    min_similarity : float, default=None
        Instead of ``threshold``, for a normalized metric: smallest similarity
        ``1 - distance`` kept. rapidfuzz's ``fuzz.ratio(a, b,
        score_cutoff=85)`` is ``metric="normalized_indel",
        min_similarity=0.85``.
    metric : str, default="levenshtein"
        A string metric of :func:`~sklearn_ed.distances.available_metrics`.
    processor : {"lower", "default", "sort_tokens", "default_sort_tokens"}, callable or None
        Applied to every string of both sides first (as the estimators'
        ``processor``); ``"default_sort_tokens"`` makes word order free.
    method : {"auto", "partition", "brute", "filter"}, default="auto"
        ``"auto"`` runs the exact method of least time: above a million
        pairs it prepares each one (the partition filter, where the metric
        has a Levenshtein bound, builds its index), times it on random rows
        (at most about 3 % of the estimated time), and says what it chose in
        a log line (logger ``"sklearn_ed.join"``, level INFO); smaller joins
        compare every pair. ``"filter"`` is the approximate join, for thresholds no lossless
        filter prunes: a :class:`~sklearn_ed.FilterRefineNeighbors` fitted
        on one side, ``radius_neighbors`` of the other; every pair returned
        is within the threshold, some may be missed, and a warning says
        when the pair recall, estimated against brute force on 200 sampled
        rows, is below 0.95.
    n_jobs : int, default=None
        Threads of the distance computations (``-1``: all cores).
    as_frame : bool, default=False
        Return a pandas DataFrame (columns ``left``, ``right``,
        ``distance``) instead of three arrays.

    Returns
    -------
    left_index, right_index : ndarray of int64
        Positions of each pair's strings, sorted by left then right index.
    distance : ndarray
        Their distances (integers for integer metrics).

    Raises
    ------
    ValueError
        A threshold outside its unit's range, ``min_similarity`` with a
        metric that is not normalized, an empty side.
    MemoryError
        Before any work, when a sample says the pairs would not fit in
        memory at the join's peak (192 bytes a pair);
        :func:`iter_similarity_join` streams them instead.

    Examples
    --------
    >>> from sklearn_ed import similarity_join
    >>> names = ["Jon Smith", "John Smith", "Smith, John", "Ann Lee"]
    >>> left, right, distance = similarity_join(names, threshold=1)
    >>> left.tolist(), right.tolist(), distance.tolist()
    ([0], [1], [1])
    >>> similarity_join(names, min_similarity=0.9, metric="normalized_indel",
    ...                 processor="default_sort_tokens", as_frame=True)
       left  right  distance
    0     0      1  0.052632
    1     0      2  0.052632
    2     1      2  0.000000
    """
    spec, limit, left, right = prepared_join(
        left, right, threshold, min_similarity, metric, processor
    )
    check_output_size(left, right, spec, limit)
    return pairs_output(join_prepared(left, right, spec, limit, method, n_jobs), as_frame)


def pairs_output(blocks, as_frame):
    """The pairs of join blocks as three sorted arrays, or a DataFrame."""
    pairs = concatenated_pairs(blocks)
    if as_frame:
        pd = require_pandas("as_frame=True")
        return pd.DataFrame(dict(zip(("left", "right", "distance"), pairs)))
    return pairs


def concatenated_pairs(blocks, ordered=True):
    """The pairs of join blocks as three arrays, sorted by left then right index
    (in the blocks' order if not ``ordered``: a caller that builds a graph of
    them needs no sort, 0.1 s for a million pairs)."""
    blocks = list(blocks)
    if not blocks:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
    left, right, distance = (np.concatenate(part) for part in zip(*blocks))
    left, right = left.astype(np.int64, copy=False), right.astype(np.int64, copy=False)
    if not ordered or _in_order(left, right):
        return left, right, distance
    order = pair_order(left, right)
    return left[order], right[order], distance[order]


def _in_order(left, right):
    """Whether the pairs are sorted by left then right index already (brute
    force's blocks of rows are, in order)."""
    step = np.diff(left)
    return bool((step >= 0).all() and (np.diff(right)[step == 0] > 0).all())


def check_output_size(
    left, right, spec, limit, *, bytes_per_pair=JOIN_BYTES_PER_PAIR, what="The join", advice=None
):
    """Refuse, before any work, a join whose pairs (their count estimated on a
    sample) would take more than the free memory at ``bytes_per_pair``."""
    available = available_memory()
    n_left, n_right = len(left), len(left if right is None else right)
    n_pairs = n_left * n_right * (0.5 if right is None else 1.0)
    if available is None or n_pairs * bytes_per_pair <= available:
        return
    rng = np.random.default_rng(0)
    sample_left = rng.choice(n_left, min(n_left, _SAMPLE_LEFT), replace=False)
    other = left if right is None else right
    sample_right = rng.choice(n_right, min(n_right, _SAMPLE_RIGHT), replace=False)
    rows, _, _ = pairwise_distances_within(
        np.asarray(left, dtype=object)[sample_left],
        np.asarray(other, dtype=object)[sample_right],
        spec,
        limits=limit,
    )
    expected = len(rows) / (len(sample_left) * len(sample_right)) * n_pairs
    if expected * bytes_per_pair > available:
        raise MemoryError(
            f"{what} would hold about {expected:,.0f} pairs (estimated on a sample): "
            f"{expected * bytes_per_pair / 2**30:.1f} GiB at its peak, more than the "
            f"{available / 2**30:.1f} GiB of free memory. "
            + (advice or "Lower the threshold, or stream the pairs with iter_similarity_join.")
        )
