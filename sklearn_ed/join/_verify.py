"""What both exact join methods do with their pairs: verify them, and keep
each pair of a self-join once."""

import numpy as np

from ..utils import pair_order


def verified(spec, left, right, left_rows, right_rows, threshold, n_jobs):
    workers = 1 if n_jobs is None else -1 if n_jobs < 0 else n_jobs
    distances = np.asarray(
        spec.paired(left[left_rows], right[right_rows], score_cutoff=threshold, workers=workers)
    )
    keep = distances <= threshold
    left_rows, right_rows, distances = left_rows[keep], right_rows[keep], distances[keep]
    order = pair_order(left_rows, right_rows)
    return left_rows[order], right_rows[order], distances[order]


def upper_pairs(rows, columns, *values):
    """The pairs of a self-join's block with ``rows < columns`` (each pair once, no self-pair)."""
    keep = columns > rows
    return (rows[keep], columns[keep], *(value[keep] for value in values))
