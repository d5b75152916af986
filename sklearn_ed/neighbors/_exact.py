"""Exact search by lower bounds: verify every item a metric's bound cannot rule out.

After the filter's candidates give each query a k-th distance, the items
whose lower bound is at most that distance are verified in increasing bound
order, each block with the current k-th distance as a cut-off, until the
next bound exceeds it. Items ruled out by their bound cannot be nearer, so
the answer equals brute force.
"""

import numpy as np

from ..distances import available_metrics, candidate_distances, get_metric
from ..utils import take_items

# Bounds are computed for at most this many (query, item) pairs at once, and
# items are verified in blocks of increasing bound.
_BOUND_BLOCK = 2**23
_VERIFY_BLOCK = 256


def bounded_items(search, queries, limits, exclude, skip=None):
    """Per query: items whose lower bound is at most its limit, and their bounds.

    ``search`` is a fitted FilterRefine estimator with ``exact=True``. The
    excluded item ``exclude[i]`` and the already refined ``skip[i]`` are left
    out.
    """
    found = []
    step = max(1, _BOUND_BLOCK // max(search.n_samples_fit_, 1))
    for start in range(0, len(queries), step):
        rows = np.arange(start, min(start + step, len(queries)))
        within = search._bound.within(take_items(queries, rows), limits[rows])
        for row, (items, bounds) in zip(rows, within):
            drop = [] if skip is None else [skip[row][skip[row] >= 0]]
            if exclude is not None:
                drop.append([exclude[row]])
            keep = ~np.isin(items, np.concatenate(drop)) if drop else slice(None)
            found.append((items[keep], bounds[keep]))
    return found


def verify_bounded(search, queries, distances, indices, candidates, exclude):
    """Exact search: verify, in increasing bound order, every item whose lower
    bound is at most the current k-th distance; returns the counts verified."""
    distances, indices = distances.copy(), indices.copy()
    bounded = bounded_items(search, queries, distances[:, -1], exclude, candidates)
    verified = np.zeros(len(queries), dtype=np.int64)
    for row, (items, bounds) in enumerate(bounded):
        verified[row] = _verify_row(
            search, queries[row], items, bounds, distances[row], indices[row]
        )
    return (distances, indices), verified


def _verify_row(search, query, items, bounds, distances, indices):
    """Update one query's top-k in place; returns how many items it verified."""
    order = np.argsort(bounds, kind="stable")
    items, bounds = items[order], bounds[order]
    n_verified = 0
    for start in range(0, len(items), _VERIFY_BLOCK):
        block = items[start : start + _VERIFY_BLOCK]
        block = block[bounds[start : start + _VERIFY_BLOCK] <= distances[-1]]
        if block.size == 0:  # the bounds only grow, the k-th distance only falls
            break
        exact = candidate_distances(
            [query],
            search._fit_X,
            block[None, :],
            search._metric_spec,
            score_cutoff=distances[-1:],
            check_input=False,
        )[0]
        merged_ind = np.concatenate([indices, block])
        merged_dist = np.concatenate([distances, exact])
        order = np.lexsort((merged_ind, merged_dist))[: len(indices)]
        indices[:], distances[:] = merged_ind[order], merged_dist[order]
        n_verified += block.size
    return n_verified


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
