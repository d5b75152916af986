"""Deduplication of a table of records: blocking, comparison, weights, groups."""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, Real, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..dedup import LINKAGES, group_pairs
from ..utils import require_pandas, saved_class
from ._blocking import BlockingRule, candidate_pairs
from ._columns import as_columns, text_values
from ._fellegi_sunter import FellegiSunter

# The default blocking: each compared column equal, and within a few edits,
# where the rule makes at most this many pairs per record (not a state
# column; not the dates, within an edit of too many others).
DEFAULT_PAIRS_PER_RECORD = 20
# Two edits for values this long on average, one for shorter ones: the join's
# partition filter cuts a value into edits + 1 segments, and segments under
# six characters prune little (two edits of 13-character names cost 30x one).
TWO_EDITS_FROM_LENGTH = 18
# Pairs whose levels are computed at once.
LEVELS_CHUNK = 2**20


def default_blocking(table, columns):
    """Each compared column equal, and within one or two edits, where that is selective."""
    rules = []
    for column in columns:
        equal = BlockingRule(column.name, processor=column.processor)
        keys = equal.keys(table)
        present = keys[keys != ""]
        mean_length = np.mean([len(key) for key in present]) if len(present) else 0.0
        edits = 2 if mean_length >= TWO_EDITS_FROM_LENGTH else 1
        near = BlockingRule(column.name, threshold=edits, processor=column.processor)
        rules += [
            rule
            for rule in (equal, near)
            if rule.n_pairs(table) <= DEFAULT_PAIRS_PER_RECORD * len(table)
        ]
    if not rules:
        raise ValueError(
            f"No compared column is selective enough to block on by default (each makes more than "
            f"{DEFAULT_PAIRS_PER_RECORD} pairs per record): pass blocking rules."
        )
    return tuple(rules)


@saved_class()
class RecordDeduplicator(ClusterMixin, BaseEstimator):
    """Groups of records that stand for one entity, learned without labels.

    ``fit`` runs the whole record-linkage chain on a table:

    1. blocking: the candidate pairs, a union of :class:`BlockingRule`
       (exact fuzzy rules run on the similarity join);
    2. comparison: each pair's level on every :class:`Column`;
    3. weights: a :class:`FellegiSunter` model, ``u`` from random pairs and
       ``m`` by EM over the candidates; a pair matches from ``threshold``;
    4. groups: the matching pairs grouped by ``linkage`` (no chaining by
       default).

    Parameters
    ----------
    columns : list of Column or str
        The columns compared (a name stands for ``Column(name)``).
    blocking : list of BlockingRule, default=None
        The rules of candidate pairs. ``None``: each compared column equal,
        and each within Levenshtein distance 2 (1 for values under 18
        characters on average), where the rule makes at most 20 pairs per
        record (counted, or estimated on 2,000 records): not a state column,
        nor dates within an edit.
    threshold : "auto" or float in (0, 1), default="auto"
        Match probability from which a pair matches (``"auto"``: the one of
        best F1 as the model estimates it).
    linkage : {"representative", "complete", "connected"}, default="representative"
        How matching pairs make groups (as :class:`~sklearn_ed.StringDeduplicator`).
    n_random_pairs : int, default=100_000
        Random pairs that estimate each level's probability among non-matches.
    max_iter : int, default=100
        Most EM iterations.
    random_state : int, RandomState or None, default=0
        Seed of the random pairs.
    n_jobs : int, default=None
        Threads of the fuzzy blocking joins.

    Attributes
    ----------
    labels_ : ndarray of int64 of shape (n_records,)
        Group of each record, numbered in order of each group's first record.
    n_groups_ : int
    candidate_pairs_ : ndarray of int64 of shape (n_pairs, 2)
        Positions of the records of every candidate pair (:meth:`pairs_frame`
        shows them with their weights).
    candidate_levels_ : ndarray of int8 of shape (n_pairs, n_columns)
        Their comparison levels.
    record_ids_ : ndarray of shape (n_records,)
        The table's index labels.
    blocking_report_ : dict of lists
        What each blocking rule added (the columns of
        :func:`candidate_pairs`' report; ``pandas.DataFrame`` of it shows a
        table).
    model_ : FellegiSunter
        The fitted match weights.
    columns_ : tuple of Column
    blocking_ : tuple of BlockingRule

    Examples
    --------
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from sklearn_ed.datasets import make_person_records
    >>> from sklearn_ed.records import RecordDeduplicator
    >>> records = make_person_records(2000, as_frame=True, random_state=0)
    >>> records.frame.columns.tolist()
    ['first_name', 'last_name', 'street_address', 'city', 'date_of_birth']
    >>> dedup = RecordDeduplicator(records.frame.columns.tolist()).fit(records.frame)
    >>> dedup.n_groups_, len(set(records.entity.tolist()))
    (1821, 1820)
    >>> round(adjusted_rand_score(records.entity, dedup.labels_), 3)
    0.997
    """

    __sklearn_ed_saved__ = (
        "labels_",
        "n_groups_",
        "candidate_pairs_",
        "candidate_levels_",
        "record_ids_",
        "blocking_report_",
        "model_",
        "columns_",
        "blocking_",
        "fitted_text_",
    )

    _parameter_constraints: dict = {
        "columns": [list, tuple, str],
        "blocking": [list, tuple, None],
        "threshold": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "linkage": [StrOptions(set(LINKAGES))],
        "n_random_pairs": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        columns,
        *,
        blocking=None,
        threshold="auto",
        linkage="representative",
        n_random_pairs=100_000,
        max_iter=100,
        random_state=0,
        n_jobs=None,
    ):
        self.columns = columns
        self.blocking = blocking
        self.threshold = threshold
        self.linkage = linkage
        self.n_random_pairs = n_random_pairs
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Find the groups of the records of ``X``.

        Parameters
        ----------
        X : pandas.DataFrame
            The records, one per row, with every compared and blocking column.
        y : None
            Ignored.

        Returns
        -------
        self : RecordDeduplicator
        """
        self.columns_ = as_columns(self.columns)
        table = self._table(X, minimum=2)
        self.blocking_ = self._rules(table)
        rows, columns, report, found_by = candidate_pairs(
            table, self.blocking_, return_rules=True, n_jobs=self.n_jobs
        )
        self.blocking_report_ = report.to_dict(orient="list")
        self.candidate_pairs_ = np.column_stack([rows, columns])
        rows, columns = self.candidate_pairs_.T  # views: the pairs are held once
        values = self._values(table)
        levels = self._levels(values, values, rows, columns)
        random_rows, random_columns = self._random_pairs(len(table))
        random_levels = self._levels(values, values, random_rows, random_columns)
        if len(levels) == 0:
            raise ValueError(
                "The blocking rules found no candidate pairs: every record is its own group. "
                "Loosen the rules (blocking_report_ says what each found)."
            )
        self.model_ = FellegiSunter(max_iter=self.max_iter, threshold=self.threshold).fit(
            levels,
            random_levels=random_levels,
            sessions=self._sessions(found_by),
            n_record_pairs=len(table) * (len(table) - 1) // 2,
        )
        self.candidate_levels_ = levels
        self.record_ids_ = table.index.to_numpy()
        probability = 1.0 / (1.0 + np.exp2(-self.model_.decision_function(levels)))
        match = probability >= self.model_.threshold_
        self.labels_, _ = group_pairs(
            len(table), rows[match], columns[match], 1.0 - probability[match], self.linkage
        )
        self.n_groups_ = int(self.labels_.max()) + 1
        self.fitted_text_ = {name: text_values(table[name]) for name in self._needed()}
        return self

    def fit_predict(self, X, y=None):
        """Find the groups of ``X`` and return each record's group.

        Parameters
        ----------
        X : pandas.DataFrame
            The records.
        y : None
            Ignored.

        Returns
        -------
        labels : ndarray of int64 of shape (n_records,)
        """
        return self.fit(X).labels_

    def predict(self, X):
        """The fitted group of each new record, or a new group.

        A new record joins the group of the fitted record it matches with
        the highest probability; the others get new groups, numbered from
        ``n_groups_`` on, one each (new records are not grouped together).

        Parameters
        ----------
        X : pandas.DataFrame
            New records, with the fitted table's columns.

        Returns
        -------
        labels : ndarray of int64 of shape (n_new,)
        """
        pairs = self.link(X)
        pairs = pairs[pairs["match"].to_numpy()]
        labels = np.full(len(X), -1, dtype=np.int64)
        if len(pairs):
            best = pairs.sort_values(
                ["match_probability", "right_position"], ascending=[True, False]
            )
            best = best.drop_duplicates("left_position", keep="last")
            labels[best["left_position"].to_numpy()] = self.labels_[
                best["right_position"].to_numpy()
            ]
        unmatched = labels < 0
        labels[unmatched] = self.n_groups_ + np.arange(unmatched.sum())
        return labels

    def pairs_frame(self):
        """Every candidate pair with its weight, probability and levels.

        Returns
        -------
        pairs : pandas.DataFrame
            ``left`` and ``right`` (the table's index labels),
            ``match_weight``, ``match_probability``, ``match`` and, per
            column, its level (``<name>``: 0 equal, ..., -1 missing) and what
            it added to the weight (``<name>_weight``): why a pair matched.
        """
        check_is_fitted(self, "model_")
        rows, columns = self.candidate_pairs_.T
        return self._pairs_frame(
            self.record_ids_, self.record_ids_, rows, columns, self.candidate_levels_
        )

    def link(self, X):
        """The candidate pairs of new records with the fitted ones, with their weights.

        Parameters
        ----------
        X : pandas.DataFrame
            New records, with the fitted table's columns.

        Returns
        -------
        pairs : pandas.DataFrame
            As :meth:`pairs_frame`: ``left`` is the new record's index label,
            ``right`` the fitted one's (their positions in ``left_position``
            and ``right_position``).
        """
        check_is_fitted(self, "model_")
        pd = require_pandas("RecordDeduplicator.link")
        table = self._table(X, minimum=1)
        fitted = pd.DataFrame(self.fitted_text_)
        rows, columns, _ = candidate_pairs(table, self.blocking_, fitted, n_jobs=self.n_jobs)
        levels = self._levels(self._values(table), self._values(fitted), rows, columns)
        pairs = self._pairs_frame(table.index, self.record_ids_, rows, columns, levels)
        pairs.insert(2, "left_position", rows)
        pairs.insert(3, "right_position", columns)
        return pairs

    def _rules(self, table):
        if self.blocking is None:
            return default_blocking(table, self.columns_)
        rules = tuple(self.blocking)
        if not rules or not all(isinstance(rule, BlockingRule) for rule in rules):
            raise TypeError("blocking must be None or a non-empty list of BlockingRule.")
        return rules

    def _sessions(self, found_by):
        """The pairs of each rule and the compared columns it blocked on."""
        names = [column.name for column in self.columns_]
        return [
            (
                found_by[:, position],
                tuple(names.index(name) for name in rule.columns if name in names),
            )
            for position, rule in enumerate(self.blocking_)
        ]

    def _needed(self):
        names = [column.name for column in self.columns_]
        names += [name for rule in getattr(self, "blocking_", ()) for name in rule.columns]
        return list(dict.fromkeys(names))

    def _table(self, X, minimum):
        require_pandas("RecordDeduplicator")
        if not hasattr(X, "columns") or not hasattr(X, "iloc"):
            raise TypeError(f"RecordDeduplicator takes a pandas DataFrame, got {type(X).__name__}.")
        absent = [name for name in self._needed() if name not in X.columns]
        if absent:
            raise KeyError(f"The table has no columns {absent}.")
        if len(X) < minimum:
            raise ValueError(f"RecordDeduplicator needs at least {minimum} records, got {len(X)}.")
        return X

    def _values(self, table):
        return [column.values(table[column.name]) for column in self.columns_]

    def _levels(self, left_values, right_values, rows, columns):
        """The levels of the pairs, a chunk at a time (the values of a chunk's
        pairs are gathered as object arrays: their memory is bounded)."""
        levels = np.empty((len(rows), len(self.columns_)), dtype=np.int8)
        workers = 1 if self.n_jobs is None else self.n_jobs
        for start in range(0, len(rows), LEVELS_CHUNK):
            chunk = slice(start, start + LEVELS_CHUNK)
            left_rows, right_rows = rows[chunk], columns[chunk]
            for position, column in enumerate(self.columns_):
                levels[chunk, position] = column.levels_of_values(
                    left_values[position][left_rows],
                    right_values[position][right_rows],
                    workers,
                )
        return levels

    def _random_pairs(self, n_records):
        random = check_random_state(self.random_state)
        size = min(self.n_random_pairs, n_records * (n_records - 1) // 2)
        rows = random.randint(0, n_records, size)
        columns = random.randint(0, n_records - 1, size)
        return rows, columns + (columns >= rows)

    def _pairs_frame(self, left_ids, right_ids, rows, columns, levels):
        pd = require_pandas("RecordDeduplicator")
        probability = 1.0 / (1.0 + np.exp2(-self.model_.decision_function(levels)))
        frame = {
            "left": np.asarray(left_ids)[rows],
            "right": np.asarray(right_ids)[columns],
            "match_weight": self.model_.decision_function(levels),
            "match_probability": probability,
            "match": probability >= self.model_.threshold_,
        }
        contributions = self.model_.contributions(levels)
        for position, column in enumerate(self.columns_):
            frame[column.name] = levels[:, position]
            frame[column.name + "_weight"] = contributions[:, position]
        return pd.DataFrame(frame)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True  # a DataFrame of text columns
        return tags
