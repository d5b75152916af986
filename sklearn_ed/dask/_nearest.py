"""New strings against the representatives of fitted groups, on a Dask cluster.

The join of the new strings with the representatives runs as the
distributed join does (:mod:`._join`: length blocks, one task per pair of
blocks), but a task keeps, for each new string it met, only the nearest
representative's group (ties: the lowest group); the tasks' results merge
in a tree of tasks to one entry per new string within the threshold. No
pair is written, and a task's result is at most a block of strings.
"""

import dask
import numpy as np

from ._join import block_pair_blocks

# Partial results merged by one task of the tree.
MERGE_FAN_IN = 8


def nearest_groups(job, representative_groups):
    """A Delayed ``(rows, groups)``: each row of the job's left table within the
    threshold of a representative (its right table), and the nearest one's
    group. ``representative_groups`` (a Delayed array) is the group of each
    row of the right table."""
    found = job.tasks(_nearest_in_blocks, job.method, representative_groups)
    merge = dask.delayed(_nearest, pure=True)
    while len(found) > 1:
        found = [
            merge(found[start : start + MERGE_FAN_IN])
            for start in range(0, len(found), MERGE_FAN_IN)
        ]
    return found[0] if found else dask.delayed(_nearest)([])  # no pair of blocks to join


def _nearest_in_blocks(
    left_block, right_block, metric, limit, self_join, method, representative_groups, name
):
    """The nearest representative's group of each left row of two blocks:
    ``(rows, groups, distances)``."""
    best = _nearest([])
    pairs = block_pair_blocks(left_block, right_block, metric, limit, self_join, method)
    for rows, representatives, distances in pairs:
        best = _nearest([best, (rows, representative_groups[representatives], distances)])
    return best


def _nearest(parts):
    """Per row, the group at the smallest distance (then the lowest group)."""
    rows = np.concatenate([np.empty(0, np.int64), *(part[0] for part in parts)])
    groups = np.concatenate([np.empty(0, np.int64), *(part[1] for part in parts)])
    distances = np.concatenate([np.empty(0), *(part[2] for part in parts)])
    order = np.lexsort((groups, distances, rows))
    rows, first = np.unique(rows[order], return_index=True)
    return rows, groups[order][first], distances[order][first]
