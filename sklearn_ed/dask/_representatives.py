"""Representative linkage on a Dask cluster, in rounds over the pairs' files.

The single-process linkage (:mod:`sklearn_ed.dedup`) takes the strings in
order of most neighbours (then lowest row): one not yet taken opens a group
and takes every neighbour not yet taken. A string therefore opens a group
exactly when none of its neighbours before it in that order opened one,
and joins the first in order of those that did. That is decided in rounds
without the order being walked (the parallel greedy independent set,
Blelloch, Fineman and Shun, SPAA 2012): in each round one pass over the
pairs tells, for every undecided string, whether a neighbour opened a group
(it joins) and whether an undecided neighbour comes before it (it waits);
the others open groups. The groups are those of the single process.

Each pass reads the Parquet files of the pairs a row group at a time, so a
task holds one engine block of pairs; its result is the rows it touched,
merged in a tree of tasks. The client holds nothing but a count per round;
the state of every row (its order and its decision) lives in one task's
result and goes to each worker once a round.
"""

import dask
import numpy as np
import pyarrow.parquet as pq

UNDECIDED, OPENS, JOINS = 0, 1, 2
# Partial results merged by one task of a tree.
MERGE_FAN_IN = 8


def representative_groups(files, n_rows, client):
    """A Delayed ``(rows, groups, represents)`` of every row of ``n_rows``: the
    group of each, named by its smallest row, as representative linkage makes
    them, and whether the row opened (represents) its group."""
    files = sorted(files)
    degrees = _tree(
        [dask.delayed(_degrees, pure=True)(file) for file in files], summed_counts, "degrees"
    )
    state = client.persist(dask.delayed(_first_state, pure=True)(degrees, n_rows))
    while True:
        passes = [dask.delayed(_round_pass, pure=True)(file, state) for file in files]
        state = client.persist(
            dask.delayed(_next_state, pure=True)(state, _tree(passes, _round_merged, "round"))
        )
        if not client.compute(dask.delayed(_undecided)(state)).result():
            break
    owners = [dask.delayed(_owner_pass, pure=True)(file, state) for file in files]
    return dask.delayed(_named_groups, pure=True)(state, _tree(owners, _smallest, "owners"))


def _batches(file):
    for batch in pq.ParquetFile(file).iter_batches(columns=["left", "right"]):
        yield batch.column(0).to_numpy(), batch.column(1).to_numpy()


def _degrees(file):
    rows, counts = _empty(), _empty()
    for left, right in _batches(file):
        found, found_counts = np.unique(np.concatenate([left, right]), return_counts=True)
        rows, counts = summed_counts([(rows, counts), (found, found_counts)])
    return rows, counts


def summed_counts(parts):
    """Sparse counts of several parts, added."""
    rows = np.concatenate([part[0] for part in parts])
    values = np.concatenate([part[1] for part in parts])
    unique, inverse = np.unique(rows, return_inverse=True)
    return unique, np.bincount(inverse, weights=values, minlength=len(unique)).astype(np.int64)


def _first_state(degrees, n_rows):
    """``(rank, decision)``: each row's place in the order (most neighbours,
    then lowest row) and its decision; a row without pairs opens its group."""
    degree = np.zeros(n_rows, np.int64)
    degree[degrees[0]] = degrees[1]
    rank = np.empty(n_rows, np.int64)
    rank[np.lexsort((np.arange(n_rows), -degree))] = np.arange(n_rows)
    decision = np.where(degree == 0, OPENS, UNDECIDED).astype(np.int8)
    return rank, decision


def _round_pass(file, state):
    """For the undecided rows of the pairs of a file: whether a neighbour opened
    a group, and the first rank of an undecided neighbour."""
    rank, decision = state
    merged = _round_merged([])
    for left, right in _batches(file):
        parts = [merged]
        for row, other in ((left, right), (right, left)):
            undecided = decision[row] == UNDECIDED
            row, other = row[undecided], other[undecided]
            opened = decision[other] == OPENS
            waits = np.where(decision[other] == UNDECIDED, rank[other], np.iinfo(np.int64).max)
            parts.append((row, opened, waits))
        merged = _round_merged(parts)  # one batch of pairs held at a time
    return merged


def _round_merged(parts):
    if not parts:
        return _empty(), np.empty(0, bool), _empty()
    rows = np.concatenate([part[0] for part in parts])
    unique, inverse = np.unique(rows, return_inverse=True)
    opened = np.zeros(len(unique), bool)
    np.logical_or.at(opened, inverse, np.concatenate([part[1] for part in parts]))
    first = np.full(len(unique), np.iinfo(np.int64).max)
    np.minimum.at(first, inverse, np.concatenate([part[2] for part in parts]))
    return unique, opened, first


def _next_state(state, merged):
    """Rows next to an opened group join; undecided rows with no undecided
    neighbour before them open groups."""
    rank, decision = state
    decision = decision.copy()
    rows, opened, first_waiting = merged
    decision[rows[opened]] = JOINS
    opens = rows[~opened & (first_waiting > rank[rows])]
    decision[opens] = OPENS
    return rank, decision


def _undecided(state):
    return int((state[1] == UNDECIDED).sum())


def _owner_pass(file, state):
    """For the rows that join: the first rank of a neighbour that opened a group."""
    rank, decision = state
    smallest = _empty(), _empty()
    for left, right in _batches(file):
        parts = [smallest]
        for row, other in ((left, right), (right, left)):
            keep = (decision[row] == JOINS) & (decision[other] == OPENS)
            parts.append((row[keep], rank[other[keep]]))
        smallest = _smallest(parts)
    return smallest


def _smallest(parts):
    """Per row, the smallest value of several sparse parts."""
    rows = np.concatenate([_empty(), *(part[0] for part in parts)])
    values = np.concatenate([_empty(), *(part[1] for part in parts)])
    unique, inverse = np.unique(rows, return_inverse=True)
    smallest = np.full(len(unique), np.iinfo(np.int64).max)
    np.minimum.at(smallest, inverse, values)
    return unique, smallest


def _named_groups(state, owners):
    """``(rows, groups, represents)`` of every row: its group named by the
    group's smallest row, and whether it opened the group."""
    rank, decision = state
    n_rows = len(rank)
    by_rank = np.argsort(rank)
    owner = np.arange(n_rows, dtype=np.int64)
    owner[owners[0]] = by_rank[owners[1]]
    smallest = np.full(n_rows, n_rows, dtype=np.int64)
    np.minimum.at(smallest, owner, np.arange(n_rows))
    return np.arange(n_rows, dtype=np.int64), smallest[owner], decision == OPENS


def _tree(parts, merge, name):
    merge = dask.delayed(merge, pure=True)
    while len(parts) > 1:
        parts = [merge(parts[i : i + MERGE_FAN_IN]) for i in range(0, len(parts), MERGE_FAN_IN)]
    return parts[0] if parts else dask.delayed(_empty_pair)(name)


def _empty():
    return np.empty(0, np.int64)


def _empty_pair(name):
    if name == "round":
        return _empty(), np.empty(0, bool), _empty()
    return _empty(), _empty()
