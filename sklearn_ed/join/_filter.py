"""The approximate join: the pairs the filter finds within a threshold, with their recall.

Where no lossless filter prunes (Jaro-Winkler, ``token_set``, or a threshold
large for the strings' length, where the partition filter cuts segments too
short to be selective), ``method="filter"`` joins through a fitted search:
:class:`FilterRefineNeighbors` on one side, ``radius_neighbors`` of the
other within the threshold (the radius calibration of the fit picks how far
to look in the embedding). Every pair returned is within the threshold, at
its exact distance; pairs the embedding puts farther than calibrated are
missed. A self-join asks every item for its neighbors and keeps the union
of both directions, each pair once.

The recall check extends to joins: on a seeded sample of rows, the pairs
found are compared with brute force, and the pair recall (pairs found over
pairs within the threshold, with its standard error over rows) is reported
by a warning when it is below ``TARGET_PAIR_RECALL``.
"""

import warnings

import numpy as np

from ..distances import pairwise_distances_within
from ..utils import pair_order, take_items

TARGET_PAIR_RECALL = 0.95
# Rows whose pairs brute force checks, and query rows searched at once.
_SAMPLE_ROWS = 200
_QUERY_BLOCK = 10_000


# The name of the approximate join method, which sklearn_ed.join's registry holds.
FILTER = "filter"


def filter_join(search, queries, self_join, limit):
    """Pairs ``(query rows, fitted rows, distances)`` that ``search`` finds within ``limit``.

    ``search`` is a fitted FilterRefine estimator; with ``self_join`` the
    queries are its fitted items and each pair comes once, ``left < right``.
    """
    rows, columns, distances = [], [], []
    for begin in range(0, len(queries), _QUERY_BLOCK):
        block = take_items(queries, np.arange(begin, min(begin + _QUERY_BLOCK, len(queries))))
        found_distances, found = search.radius_neighbors(block, radius=limit)
        counts = np.fromiter(map(len, found), np.int64, len(found))
        rows.append(np.repeat(np.arange(begin, begin + len(block)), counts))
        columns.append(np.concatenate([*found, np.empty(0, np.int64)]).astype(np.int64))
        distances.append(np.concatenate([*found_distances, np.empty(0)]))
    rows, columns, distances = (np.concatenate(part) for part in (rows, columns, distances))
    if self_join:
        keep = rows != columns
        low, high = np.minimum(rows, columns)[keep], np.maximum(rows, columns)[keep]
        _, first = np.unique(low * len(queries) + high, return_index=True)
        rows, columns, distances = low[first], high[first], distances[keep][first]
    order = pair_order(rows, columns)
    return rows[order], columns[order], distances[order]


def check_pair_recall(pairs, left, right, spec, limit, n_jobs, random_state=0):
    """Pair recall of ``pairs`` on a sample of rows of ``left``, warned about when low.

    Returns
    -------
    recall, standard_error : float
        ``nan`` when the sample holds no pair within the threshold.
    """
    rng = np.random.default_rng(random_state)
    sample = np.sort(rng.choice(len(left), min(len(left), _SAMPLE_ROWS), replace=False))
    other = left if right is None else right
    rows, columns, _ = pairwise_distances_within(
        take_items(left, sample), other, spec, limits=limit, n_jobs=n_jobs, check_input=False
    )
    if right is None:
        keep = columns != sample[rows]
        rows, columns = rows[keep], columns[keep]
    exact = np.bincount(rows, minlength=len(sample)).astype(np.float64)
    if exact.sum() == 0:
        return np.nan, np.nan
    partners = _partners(pairs, sample, right is None, len(other))
    found = np.zeros(len(sample))
    np.add.at(found, rows, np.isin(sample[rows] * len(other) + columns, partners))
    recall, error = _ratio_estimate(found, exact)
    if recall < TARGET_PAIR_RECALL:
        warnings.warn(
            f"The filter join found an estimated {recall:.3f} (+/- {error:.3f}) of the "
            f"pairs within the threshold on {len(sample)} sampled rows, below "
            f"{TARGET_PAIR_RECALL}: use method='partition' or 'brute' for every pair.",
            UserWarning,
            stacklevel=4,
        )
    return recall, error


def _partners(pairs, sample, self_join, n_other):
    """Keys ``row * n_other + partner`` of the found pairs of the sampled rows."""
    left_rows, right_rows, _ = pairs
    sampled = np.isin(left_rows, sample)
    keys = [left_rows[sampled] * n_other + right_rows[sampled]]
    if self_join:
        mirrored = np.isin(right_rows, sample)
        keys.append(right_rows[mirrored] * n_other + left_rows[mirrored])
    return np.concatenate(keys)


def _ratio_estimate(found, exact):
    """Pairs found over pairs within, and its standard error over the sampled rows."""
    recall = found.sum() / exact.sum()
    n = len(exact)
    residuals = found - recall * exact
    error = np.sqrt((residuals**2).sum() / max(n * (n - 1), 1)) / exact.mean()
    return float(recall), float(error)
