"""Exact search by lower bounds: verify every item a metric's bound cannot rule out.

After the filter's candidates give each query a k-th distance, the items
whose lower bound is at most that distance are verified in increasing bound
order, each block with the current k-th distance as a cut-off, until the
next bound exceeds it. Items ruled out by their bound cannot be nearer, so
the answer equals brute force.
"""

import numpy as np

from ..distances import available_metrics, candidate_distances, get_metric
from ..index import sort_rows
from ..utils import map_in_threads, take_items

# Bounds are computed for at most this many (query, item) pairs at once, and
# items are verified in blocks of increasing bound.
_BOUND_BLOCK = 2**23
_VERIFY_BLOCK = 256
# Items of a query up to which it is verified in a batched call with others.
_TOGETHER_WIDTH = 4096


def bounded_items(search, queries, limits, exclude, skip=None):
    """Per query: items whose lower bound is at most its limit, and their bounds.

    ``search`` is a :class:`FittedSearch` holding the metric's bound. The
    excluded item ``exclude[i]`` and the already refined ``skip[i]`` are left
    out.
    """
    found = []
    step = max(1, _BOUND_BLOCK // max(search.n_items, 1))
    for start in range(0, len(queries), step):
        rows = np.arange(start, min(start + step, len(queries)))
        within = search.within_bound(take_items(queries, rows), limits[rows])
        found.extend(_drop_known(within, rows, skip, exclude, search.n_items))
    return found


def _drop_known(within, rows, skip, exclude, n_items):
    """``within`` without each row's ``skip`` and ``exclude`` items (one membership test)."""
    if skip is None and exclude is None:
        return within
    known = [] if skip is None else [skip[rows]]
    if exclude is not None:
        known.append(np.asarray(exclude)[rows, None])
    known = np.concatenate(known, axis=1)
    known_keys = (np.arange(len(rows))[:, None] * n_items + known)[known >= 0]
    sizes = [len(items) for items, _ in within]
    keys = np.repeat(np.arange(len(rows)), sizes) * n_items + np.concatenate(
        [items for items, _ in within] + [np.empty(0, dtype=np.int64)]
    )
    keep = np.split(~np.isin(keys, known_keys), np.cumsum(sizes)[:-1])
    return [(items[mask], bounds[mask]) for (items, bounds), mask in zip(within, keep)]


def answer_near(search, queries, k, exclude):
    """Queries answered by the near lookup alone: ``rows, (distances, indices), n_verified``.

    The metric's near lookup (symmetric deletions for short strings) returns
    a superset of the items within a limit of a query. A query with ``k``
    verified items within the limit has its exact top-k among them (every
    item as near as its k-th is there, ties included), with no filter. The
    limits grow one edit per pass, and each pass verifies only the items the
    earlier ones did not: most misspellings have a word one edit away, and
    stop before the many items two deletions reach.
    """
    n_queries, depth, n_items = len(queries), search.near.depth, search.n_items
    distances, indices = empty_top_k(n_queries, k)
    verified = np.zeros(n_queries, dtype=np.int64)
    answered = [np.empty(0, dtype=np.int64)]
    pending, known = np.arange(n_queries), [np.empty(0, dtype=np.int64)] * n_queries
    for radius in range(1, depth + 1):
        found = search.near.within(take_items(queries, pending), np.full(len(pending), radius))
        batch_exclude = None if exclude is None else np.asarray(exclude)[pending]
        found = _drop_known(found, np.arange(len(pending)), _padded(known), batch_exclude, n_items)
        new = [items for items, _ in found]
        sizes = np.array([len(items) for items in new], dtype=np.int64)
        # Fewer than k items so far cannot answer at this radius: verified later.
        ready = sizes + np.array([len(items) for items in known], dtype=np.int64) >= k
        for rows in _size_tiers(np.where(ready, sizes, 0)):
            # Cut off at the depth, not the radius: later passes keep these.
            items = [new[row] for row in rows]
            _merge_exact(search, queries, pending[rows], items, distances, indices, most=depth)
            verified[pending[rows]] += sizes[rows]
        done = distances[pending, -1] <= radius
        answered.append(pending[done])
        # Queries with too many items to verify together go to the filter.
        going_on = np.flatnonzero(~done & (sizes <= _TOGETHER_WIDTH))
        known = [
            np.concatenate([known[row], new[row]]) if ready[row] else known[row] for row in going_on
        ]
        pending = pending[going_on]
        if not pending.size:
            break
    rows = np.sort(np.concatenate(answered))
    return rows, (distances[rows], indices[rows]), verified[rows]


def empty_top_k(n_queries, k):
    """A top-k per query with no item yet: ``inf`` distances, ``-1`` indices."""
    return np.full((n_queries, k), np.inf), np.full((n_queries, k), -1, dtype=np.int64)


def _size_tiers(sizes):
    """Rows with 1 to 256 items, and with up to ``_TOGETHER_WIDTH``: one
    batched call each (short rows all pair by pair, long ones query by query)."""
    tiers = [
        np.flatnonzero((sizes >= 1) & (sizes <= _VERIFY_BLOCK)),
        np.flatnonzero((sizes > _VERIFY_BLOCK) & (sizes <= _TOGETHER_WIDTH)),
    ]
    return [rows for rows in tiers if rows.size]


def _exact_to_lists(search, queries, rows, items, cutoffs):
    """Query ``rows[i]``'s exact distances to ``items[i]`` (``inf`` beyond its cut-off),
    with the padded item rows (``-1``: an empty slot)."""
    block = _padded(items)
    return block, search.distances(take_items(queries, rows), block, cutoffs)


def _padded(lists):
    """Rows of item indices, padded with -1 (an empty slot: distance inf)."""
    width = max((len(items) for items in lists), default=0)
    block = np.full((len(lists), width), -1, dtype=np.int64)
    for position, items in enumerate(lists):
        block[position, : len(items)] = items
    return block


def verify_bounded(search, queries, distances, indices, candidates, exclude, filtered=None):
    """Exact search: verify, in increasing bound order, every item whose lower
    bound is at most the current k-th distance; returns the counts verified.

    ``distances``, ``indices`` are the top-k of the filter's ``candidates``
    (verified already). When the far lookup answers some limits cheaply
    (``search.bound_stages``: the halves' deletions of short strings, 3 and
    4 edits), the items within each such limit below a query's k-th
    distance are verified first, in passes: a k-th distance that falls to
    the limit of a pass ends the query there (everything within it was
    verified), so only the queries whose neighbors are truly far pay for a
    larger limit. ``filtered(rows)``, when given, returns the candidates of
    those queries: the filter then runs only for the queries the passes
    leave, before the last, unbounded one.
    """
    distances, indices = distances.copy(), indices.copy()
    verified = np.zeros(len(queries), dtype=np.int64)
    # The queries still to verify, and per query the items already verified.
    pending, known = np.arange(len(queries)), candidates
    for stage in (*search.bound_stages, np.inf):
        batch = take_items(queries, pending)
        batch_exclude = None if exclude is None else np.asarray(exclude)[pending]
        found = distances[pending], indices[pending]
        if stage == np.inf and filtered is not None:
            # A finite k-th distance first: the last pass's limit is that.
            filter_candidates = filtered(pending)
            lists = [(row[row >= 0], np.zeros((row >= 0).sum())) for row in filter_candidates]
            lists = _drop_known(lists, np.arange(len(pending)), known, None, search.n_items)
            verified[pending] += _verify_lists(search, batch, lists, *found)
            known = np.concatenate([known, filter_candidates], axis=1)
        limits = np.minimum(found[0][:, -1], stage)
        bounded = bounded_items(search, batch, limits, batch_exclude, known)
        verified[pending] += _verify_lists(search, batch, bounded, *found)
        distances[pending], indices[pending] = found
        further = np.flatnonzero(distances[pending, -1] > limits)
        if not further.size:
            break
        # The next pass leaves out the items this one verified.
        checked = _padded([bounded[row][0] for row in further])
        known = np.concatenate([known[further], checked], axis=1)
        pending = pending[further]
    return (distances, indices), verified


def _verify_lists(search, queries, bounded, distances, indices):
    """Merge each query's ``bounded`` items into its top-k, in place; returns
    the counts verified.

    Queries with at most one block of items to verify (most of them, when the
    filter's candidates gave a good k-th distance) are verified together in
    one batched call, those with up to ``_TOGETHER_WIDTH`` in a second one;
    beyond, each query block by block, so that a k-th distance that falls
    stops its verification early.
    """
    verified = np.zeros(len(queries), dtype=np.int64)
    sizes = np.array([len(items) for items, _ in bounded], dtype=np.int64)
    for rows in _size_tiers(sizes):
        _merge_exact(search, queries, rows, [bounded[row][0] for row in rows], distances, indices)
        verified[rows] = sizes[rows]
    long_rows = np.flatnonzero(sizes > _TOGETHER_WIDTH)

    def verify_long(row):  # updates its own row of distances and indices
        items, bounds = bounded[row]
        return _verify_row(search, queries[row], items, bounds, distances[row], indices[row])

    # Single-query calls use one core each: the long queries share the threads.
    verified[long_rows] = map_in_threads(verify_long, list(long_rows), search.n_jobs)
    return verified


def _merge_exact(search, queries, rows, items, distances, indices, most=np.inf):
    """Merge the exact distances of ``items[i]`` into the top-k of query ``rows[i]``,
    in place; distances beyond the k-th or ``most`` are not computed."""
    cutoffs = np.minimum(distances[rows, -1], most)
    block, exact = _exact_to_lists(search, queries, rows, items, cutoffs)
    merged_dist, merged_ind = sort_rows(
        np.concatenate([distances[rows], exact], axis=1),
        np.concatenate([indices[rows], block], axis=1),
    )
    k = indices.shape[1]
    distances[rows], indices[rows] = merged_dist[:, :k], merged_ind[:, :k]


def _verify_row(search, query, items, bounds, distances, indices):
    """Update one query's top-k in place; returns how many items it verified."""
    order = _increasing(bounds)
    items, bounds = items[order], bounds[order]
    n_verified, start, size = 0, 0, _VERIFY_BLOCK
    while start < len(items):
        block = items[start : start + size]
        block = block[bounds[start : start + size] <= distances[-1]]
        # Blocks double: a query with thousands of items to verify makes
        # few calls, one whose k-th distance falls quickly stops early.
        start, size = start + size, 2 * size
        if block.size == 0:  # the bounds only grow, the k-th distance only falls
            break
        exact = candidate_distances(
            [query],
            search.items,
            block[None, :],
            search.metric,
            score_cutoff=distances[-1:],
            check_input=False,
        )[0]
        # Only items as near as the k-th can enter the top-k: sorting the
        # rest cost more than their distances (most of the block, when a
        # short word's bound rules out little).
        closer = exact <= distances[-1]
        merged_ind = np.concatenate([indices, block[closer]])
        merged_dist = np.concatenate([distances, exact[closer]])
        order = np.lexsort((merged_ind, merged_dist))[: len(indices)]
        indices[:], distances[:] = merged_ind[order], merged_dist[order]
        n_verified += block.size
    return n_verified


def _increasing(bounds):
    """Stable order of increasing ``bounds``: a radix sort when they are small integers."""
    small = bounds.size and np.all(bounds == np.floor(bounds)) and 0 <= bounds.min()
    if small and bounds.max() < np.iinfo(np.int16).max:
        return np.argsort(bounds.astype(np.int16), kind="stable")
    return np.argsort(bounds, kind="stable")


def check_lower_bound(metric_spec, metric_name):
    """Raise unless the metric declares the lower bound ``exact=True`` prunes with."""
    if metric_spec.lower_bound is None:
        names = [name for name in available_metrics() if get_metric(name).lower_bound is not None]
        raise ValueError(
            f"exact=True needs a metric that declares a lower bound ({names}, or "
            "make_dtw_metric(window=...)); "
            f"metric={metric_name!r} declares none. Register a Metric "
            "with a lower_bound, or set n_candidates=1.0 for brute force."
        )
