"""Candidate pairs as a stream: the union of the blocking rules in bounded memory.

:func:`~sklearn_ed.records.candidate_pairs` holds every pair (and sorts the
union); here each rule's pairs come a block at a time, and a pair an earlier
rule also makes is dropped by testing that rule on the pair itself (keys
equal, or their distance within its threshold), so nothing but the keys and
one block is ever held: each pair comes once, in the block of the first rule
that makes it.
"""

import numpy as np

from ..distances import get_metric
from ..utils import require_pandas
from ._blocking import _offsets_within, near_blocks

# Pairs of a block, at most (a key shared by more records gives one row's
# partners as a block of their own).
BLOCK_PAIRS = 2**20


def iter_candidate_pairs(records, rules, other=None, *, block_size=BLOCK_PAIRS, n_jobs=None):
    """Yield the candidate pairs of a union of rules, block by block, each pair once.

    The same pairs as :func:`candidate_pairs`, in bounded memory: write each
    block out, or compare it and keep what matches.

    Parameters
    ----------
    records : pandas.DataFrame
        The table (a self-join: each pair once, ``i < j``).
    rules : list of BlockingRule
        The rules, in order.
    other : pandas.DataFrame, default=None
        A second table: pairs ``(row of records, row of other)``.
    block_size : int, default=1048576
        Most pairs of a block (one record's partners under one key may
        exceed it: they come as one block).
    n_jobs : int, default=None
        Threads of the fuzzy rules' joins.

    Yields
    ------
    left_index, right_index : ndarray of int64
        Positions of the pairs' records (blocks come in no set order within
        a rule).
    rule : int
        The position in ``rules`` of the first rule that makes them.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ed.records import BlockingRule, iter_candidate_pairs
    >>> people = pd.DataFrame({"first": ["ann", "ann", "bob"], "last": ["lee", "lea", "lee"]})
    >>> rules = [BlockingRule("first"), BlockingRule("last", threshold=1)]
    >>> blocks = iter_candidate_pairs(people, rules)
    >>> sorted((int(i), int(j), rule) for rows, cols, rule in blocks for i, j in zip(rows, cols))
    [(0, 1, 0), (0, 2, 1), (1, 2, 1)]
    """
    if not isinstance(block_size, int) or block_size < 1:
        raise ValueError(f"block_size must be a positive int, got {block_size!r}.")
    keys = [(rule.keys(records), None if other is None else rule.keys(other)) for rule in rules]
    for position, rule in enumerate(rules):
        left, right = keys[position]
        blocks = (
            _equal_blocks(left, right, block_size)
            if rule.threshold is None
            else near_blocks(left, right, rule, n_jobs)
        )
        for rows, columns in blocks:
            earlier = np.zeros(len(rows), dtype=bool)
            for previous, previous_keys in zip(rules[:position], keys[:position]):
                earlier |= _holds(previous, *previous_keys, rows, columns)
            yield rows[~earlier], columns[~earlier], position


def _holds(rule, left, right, rows, columns):
    """Whether ``rule`` pairs each of the pairs ``(rows[i], columns[i])``."""
    right = left if right is None else right
    a, b = left[rows], right[columns]
    present = (a != "") & (b != "")
    if rule.threshold is None:
        return present & (a == b)
    metric = get_metric(rule.metric)
    limit = metric.limit(rule.threshold)
    holds = np.zeros(len(rows), dtype=bool)
    at = np.flatnonzero(present)
    if len(at):
        distances = metric.paired(a[at], b[at], score_cutoff=rule.threshold)
        holds[at] = np.asarray(distances, dtype=np.float64) <= limit
    return holds


def _equal_blocks(left, right, block_size):
    """The pairs of equal present keys, a block of rows at a time."""
    both = left if right is None else np.concatenate([left, right])
    codes, _ = require_pandas("iter_candidate_pairs").factorize(both)
    codes[both == ""] = -1
    if right is None:
        order = np.argsort(codes, kind="stable")
        order = order[codes[order] >= 0]
        group_end = np.searchsorted(codes[order], codes[order], side="right")
        # Each row pairs with the rows after it in its group (rows ascend in a group).
        counts = group_end - np.arange(len(order)) - 1
        rows_of, partners_start, partners = order, np.arange(len(order)) + 1, order
    else:
        left_codes, right_codes = codes[: len(left)], codes[len(left) :]
        partners = np.argsort(right_codes, kind="stable")
        sorted_codes = right_codes[partners]
        partners_start = np.searchsorted(sorted_codes, left_codes, side="left")
        stop = np.searchsorted(sorted_codes, left_codes, side="right")
        counts = np.where(left_codes >= 0, stop - partners_start, 0)
        rows_of = np.arange(len(left))
    ends = np.cumsum(counts)
    start = 0
    while start < len(counts):
        # The rows whose pairs fit in one block (one row at least).
        stop = max(
            start + 1,
            int(np.searchsorted(ends, ends[start] - counts[start] + block_size, side="right")),
        )
        chunk = slice(start, stop)
        chunk_counts = counts[chunk]
        rows = np.repeat(rows_of[chunk], chunk_counts)
        columns = partners[
            np.repeat(partners_start[chunk], chunk_counts) + _offsets_within(chunk_counts)
        ]
        yield rows.astype(np.int64), columns.astype(np.int64)
        start = stop
