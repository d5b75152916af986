"""Blocking: the candidate pairs of records, as a union of rules.

A rule keys each record by one column, or several joined by a space, and
pairs the records whose keys are equal or, with a threshold, within it by a
string metric. Fuzzy rules run on the exact similarity join, so a rule
finds every pair it describes: nothing is lost to the method, only to the
rule. A key of several columns is its present parts joined (a record with
a blank city is still keyed by its name); a record with no part is paired by
no rule.
"""

import time
from dataclasses import dataclass
from numbers import Real

import numpy as np

from ..join import iter_similarity_join
from ..utils import apply_processor, require_pandas, saved_class
from ._columns import Column, text_values


@saved_class()
@dataclass(frozen=True)
class BlockingRule:
    """Pair the records whose key is equal, or within a threshold.

    Parameters
    ----------
    columns : str or tuple of str
        The key: one column, or several joined by a space.
    threshold : float, default=None
        ``None``: keys equal (after the processor). A number: keys within
        this distance by ``metric`` (in its unit), every such pair found by
        :func:`~sklearn_ed.similarity_join`.
    metric : str, default="levenshtein"
        A string metric, for a threshold.
    processor : {"lower", "default", "sort_tokens", "default_sort_tokens"}, default="default"
        Applied to each key first, or None.

    Examples
    --------
    >>> from sklearn_ed.records import BlockingRule
    >>> BlockingRule("surname")
    BlockingRule(columns=('surname',), threshold=None, metric='levenshtein', processor='default')
    >>> BlockingRule(("given_name", "surname"), threshold=2).describe()
    'given_name + surname within 2 (levenshtein)'
    """

    columns: tuple
    threshold: object = None
    metric: str = "levenshtein"
    processor: object = "default"

    def __post_init__(self):
        columns = (self.columns,) if isinstance(self.columns, str) else tuple(self.columns)
        if not columns or not all(isinstance(name, str) and name for name in columns):
            raise TypeError(f"A rule's columns are column names, got {self.columns!r}.")
        object.__setattr__(self, "columns", columns)
        if self.threshold is not None and not (
            isinstance(self.threshold, Real) and self.threshold >= 0
        ):
            raise ValueError(f"A rule's threshold is None or >= 0, got {self.threshold!r}.")
        # Checks the metric and processor the way a compared column does.
        Column(columns[0], metric=self.metric, thresholds=(), processor=self.processor)

    def describe(self):
        """The rule in words, for the blocking report.

        Returns
        -------
        description : str
        """
        key = " + ".join(self.columns)
        if self.threshold is None:
            return f"{key} equal"
        return f"{key} within {self.threshold:g} ({self.metric})"

    def keys(self, records):
        """Each record's processed key: its present parts joined.

        Parameters
        ----------
        records : pandas.DataFrame
            The table.

        Returns
        -------
        keys : ndarray of object (str)
            "" for a record with no part present.
        """
        joined = text_values(records[self.columns[0]])
        for name in self.columns[1:]:
            part = text_values(records[name])
            spaced = np.where((joined != "") & (part != ""), " ", "").astype(object)
            joined = joined + spaced + part
        return apply_processor(self.processor, joined, name=" + ".join(self.columns))

    def n_pairs(self, records, sample_size=2000, random_state=0):
        """How many pairs the rule makes in a self-join of ``records``.

        Parameters
        ----------
        records : pandas.DataFrame
            The table.
        sample_size : int, default=2000
            Records a threshold rule is joined on, when the table has more.
        random_state : int, default=0
            Seed of that sample.

        Returns
        -------
        n_pairs : int
            Exact for an equality rule (counted, not made); for a threshold,
            the pairs of the sample scaled to the table.
        """
        if self.threshold is None:
            pd = require_pandas("BlockingRule.n_pairs")
            keys = self.keys(records)
            counts = pd.Series(keys[keys != ""]).value_counts().to_numpy()
            return int((counts * (counts - 1) // 2).sum())
        n_records = len(records)
        if n_records <= sample_size:
            return len(self.pairs(records)[0])
        rows = np.random.default_rng(random_state).choice(n_records, sample_size, replace=False)
        found = len(self.pairs(records.iloc[np.sort(rows)])[0])
        return int(round(found * (n_records * (n_records - 1)) / (sample_size * (sample_size - 1))))

    def pairs(self, records, other=None, n_jobs=None):
        """Positions ``(i, j)`` of the pairs the rule makes.

        Parameters
        ----------
        records : pandas.DataFrame
            The table.
        other : pandas.DataFrame, default=None
            A second table (``None``: a self-join, each pair once, ``i < j``).
        n_jobs : int, default=None
            Threads of a threshold rule's join.

        Returns
        -------
        left_index, right_index : ndarray of int64
        """
        left = self.keys(records)
        right = None if other is None else self.keys(other)
        if self.threshold is None:
            return _equal_pairs(left, right)
        return _near_pairs(left, right, self, n_jobs)


def _equal_pairs(left, right):
    pd = require_pandas("BlockingRule")
    both = left if right is None else np.concatenate([left, right])
    codes, _ = pd.factorize(both)
    codes[both == ""] = -1
    if right is None:
        return _pairs_within_groups(codes)
    left_codes, right_codes = codes[: len(left)], codes[len(left) :]
    order = np.argsort(right_codes, kind="stable")
    sorted_codes = right_codes[order]
    start = np.searchsorted(sorted_codes, left_codes, side="left")
    stop = np.searchsorted(sorted_codes, left_codes, side="right")
    counts = np.where(left_codes >= 0, stop - start, 0)
    rows = np.repeat(np.arange(len(left)), counts)
    columns = order[np.repeat(start, counts) + _offsets_within(counts)]
    return rows.astype(np.int64), columns.astype(np.int64)


def _pairs_within_groups(codes):
    """Every pair ``i < j`` of rows with the same code (>= 0)."""
    order = np.argsort(codes, kind="stable")
    order = order[codes[order] >= 0]
    sorted_codes = codes[order]
    group_end = np.searchsorted(sorted_codes, sorted_codes, side="right")
    # Each row pairs with the rows after it in its group (rows ascend in a group).
    counts = group_end - np.arange(len(order)) - 1
    rows = np.repeat(order, counts)
    columns = order[np.repeat(np.arange(len(order)) + 1, counts) + _offsets_within(counts)]
    return rows.astype(np.int64), columns.astype(np.int64)


def _offsets_within(counts):
    """0, 1, ..., counts[i] - 1 for each i in turn, as one array."""
    return np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)


def _near_pairs(left, right, rule, n_jobs):
    blocks = list(near_blocks(left, right, rule, n_jobs))
    if not blocks:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    rows, columns = zip(*blocks)
    return np.concatenate(rows), np.concatenate(columns)


def near_blocks(left, right, rule, n_jobs):
    """The pairs of present keys within the rule's threshold, as the join yields them."""
    left_present = np.flatnonzero(left != "")
    right_present = None if right is None else np.flatnonzero(right != "")
    if not len(left_present) or (right is not None and not len(right_present)):
        return
    blocks = iter_similarity_join(
        left[left_present],
        None if right is None else right[right_present],
        threshold=rule.threshold,
        metric=rule.metric,
        n_jobs=n_jobs,
    )
    for rows, columns, _ in blocks:
        yield (
            left_present[rows].astype(np.int64),
            (left_present if right is None else right_present)[columns].astype(np.int64),
        )


def candidate_pairs(
    records, rules, other=None, *, true_pairs=None, return_rules=False, n_jobs=None
):
    """The union of the pairs of every rule, and what each rule added.

    Parameters
    ----------
    records : pandas.DataFrame
        The table (a self-join: each pair once, ``i < j``).
    rules : list of BlockingRule
        The rules, applied in order.
    other : pandas.DataFrame, default=None
        A second table: pairs ``(row of records, row of other)``.
    true_pairs : tuple of two arrays of int, default=None
        Positions of known matches: the report then says the share of them
        each rule's union so far covers.
    return_rules : bool, default=False
        Also return which rules found each pair.
    n_jobs : int, default=None
        Threads of the fuzzy rules' joins.

    Returns
    -------
    left_index, right_index : ndarray of int64
        The candidate pairs, sorted.
    report : pandas.DataFrame
        One row per rule: ``rule``, ``pairs`` (its own), ``new_pairs`` (not
        made by an earlier rule), ``total_pairs``, ``seconds`` (the time the
        rule took) and, with ``true_pairs``, ``recall`` of the union so far.
    found_by : ndarray of bool of shape (n_pairs, n_rules)
        With ``return_rules=True``: whether each rule found each pair.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ed.records import BlockingRule, candidate_pairs
    >>> people = pd.DataFrame({"first": ["ann", "ann", "bob"], "last": ["lee", "lea", "lee"]})
    >>> rows, cols, report = candidate_pairs(
    ...     people, [BlockingRule("first"), BlockingRule("last", threshold=1)])
    >>> rows.tolist(), cols.tolist()
    ([0, 0, 1], [1, 2, 2])
    >>> report[["rule", "pairs", "new_pairs"]]
                              rule  pairs  new_pairs
    0                  first equal      1          1
    1  last within 1 (levenshtein)      3          2
    """
    pd = require_pandas("candidate_pairs")
    width = len(records if other is None else other)
    seen = np.empty(0, dtype=np.int64)  # the union so far, sorted
    found, new_pairs, seconds = [], [], []
    for rule in rules:
        started = time.perf_counter()
        keys = _sorted_unique(_pair_keys(*rule.pairs(records, other, n_jobs), width))
        seconds.append(time.perf_counter() - started)
        new = keys[~_in_sorted(keys, seen)]
        # Two sorted runs: a stable sort merges them in linear time.
        seen = np.sort(np.concatenate([seen, new]), kind="stable")
        found.append(keys)
        new_pairs.append(len(new))
    report = pd.DataFrame(
        {
            "rule": [rule.describe() for rule in rules],
            "pairs": [len(keys) for keys in found],
            "new_pairs": new_pairs,
        }
    )
    report["total_pairs"] = report["new_pairs"].cumsum()
    report["seconds"] = seconds
    if true_pairs is not None:
        truth = _pair_keys(*true_pairs, width, ordered=other is None)
        covered = np.zeros(len(truth), dtype=bool)
        recall = []
        for keys in found:
            covered |= _in_sorted(truth, keys)
            recall.append(covered.mean() if len(truth) else 1.0)
        report["recall"] = recall
    result = (seen // width, seen % width, report)
    if not return_rules:
        return result
    found_by = np.zeros((len(seen), len(rules)), dtype=bool)
    for position, keys in enumerate(found):
        found_by[np.searchsorted(seen, keys), position] = True
    return result + (found_by,)


def _sorted_unique(keys):
    keys = np.sort(keys)
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if len(keys) else keys


def _in_sorted(values, sorted_keys):
    """Whether each value is one of ``sorted_keys``."""
    if not len(sorted_keys):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_keys, values), len(sorted_keys) - 1)
    return sorted_keys[at] == values


def _pair_keys(rows, columns, width, ordered=False):
    rows, columns = np.asarray(rows, np.int64), np.asarray(columns, np.int64)
    if ordered:  # a self-join's pair is (lower, higher) however it was given
        rows, columns = np.minimum(rows, columns), np.maximum(rows, columns)
    return rows * width + columns
