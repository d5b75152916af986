"""What the record deduplicator and the record linker share: the tables, the
levels of pairs, the match weights (term frequencies included) and the pairs
as a DataFrame."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ..utils import require_pandas
from ._blocking import BlockingRule
from ._columns import as_columns, value_shares
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
# The parameters the deduplicator and the linker share, as sklearn validates them.
RECORD_MODEL_CONSTRAINTS = {
    "columns": [list, tuple, str],
    "blocking": [list, tuple, None],
    "threshold": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
    "n_random_pairs": [Interval(Integral, 1, None, closed="left")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "n_jobs": [Integral, None],
}


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


class RecordModelMixin:
    """Blocking, levels and match weights of pairs of records (the estimators'
    ``columns_``, ``blocking_``, ``model_`` and ``term_frequencies_``)."""

    def _checked_table(self, X, minimum, name="X"):
        require_pandas(type(self).__name__)
        if not hasattr(X, "columns") or not hasattr(X, "iloc"):
            raise TypeError(
                f"{type(self).__name__} takes a pandas DataFrame as {name}, got {type(X).__name__}."
            )
        absent = [column for column in self._needed() if column not in X.columns]
        if absent:
            raise KeyError(f"The table {name} has no columns {absent}.")
        if len(X) < minimum:
            raise ValueError(
                f"{type(self).__name__} needs at least {minimum} records in {name}, got {len(X)}."
            )
        return X

    def _needed(self):
        columns = getattr(self, "columns_", None) or as_columns(self.columns)
        names = [column.name for column in columns]
        names += [name for rule in getattr(self, "blocking_", ()) for name in rule.columns]
        return list(dict.fromkeys(names))

    def _rules(self, table):
        if self.blocking is None:
            return default_blocking(table, self.columns_)
        rules = tuple(self.blocking)
        if not rules or not all(isinstance(rule, BlockingRule) for rule in rules):
            raise TypeError("blocking must be None or a non-empty list of BlockingRule.")
        return rules

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

    def _random_pairs(self, n_left, n_right=None):
        """Random pairs of two tables' rows (of one table's distinct rows when
        ``n_right`` is None)."""
        random = check_random_state(self.random_state)
        if n_right is None:
            size = min(self.n_random_pairs, n_left * (n_left - 1) // 2)
            rows = random.randint(0, n_left, size)
            columns = random.randint(0, n_left - 1, size)
            return rows, columns + (columns >= rows)
        size = min(self.n_random_pairs, n_left * n_right)
        return random.randint(0, n_left, size), random.randint(0, n_right, size)

    def _fit_model(self, levels, random_levels, found_by, n_record_pairs):
        if len(levels) == 0:
            raise ValueError(
                "The blocking rules found no candidate pairs: no record matches another. "
                "Loosen the rules (blocking_report_ says what each found)."
            )
        names = [column.name for column in self.columns_]
        sessions = [
            (found_by[:, position], tuple(names.index(n) for n in rule.columns if n in names))
            for position, rule in enumerate(self.blocking_)
        ]
        self.model_ = FellegiSunter(max_iter=self.max_iter, threshold=self.threshold).fit(
            levels, random_levels=random_levels, sessions=sessions, n_record_pairs=n_record_pairs
        )

    def _term_adjustments(self, levels, left_values, rows):
        """What term frequencies add to each column's weight: on an exact match of
        a column that asks for them, ``log2(u / frequency of the value)`` (a shared
        rare name says more than a shared common one), 0 elsewhere."""
        adjustments = np.zeros(levels.shape)
        for position, column in enumerate(self.columns_):
            if column.name not in self.term_frequencies_:
                continue
            equal = np.flatnonzero(levels[:, position] == 0)
            values = left_values[position][rows[equal]]
            share = value_shares(self.term_frequencies_[column.name], values)
            u = self.model_.u_probabilities_[position, 0]
            # A value the fit never saw: no adjustment.
            adjustments[equal, position] = np.log2(u / np.where(np.isnan(share), u, share))
        return adjustments

    def _weights(self, levels, left_values, rows):
        """Each pair's match weight, and what term frequencies added to each column's part."""
        adjustments = self._term_adjustments(levels, left_values, rows)
        return self.model_.decision_function(levels) + adjustments.sum(axis=1), adjustments

    def _pairs_frame(self, left_ids, right_ids, pairs, levels, left_values):
        """The pairs ``(rows, columns)`` with weights, probabilities, levels and
        each column's part of the weight."""
        pd = require_pandas(type(self).__name__)
        rows, columns = pairs
        weight, adjustments = self._weights(levels, left_values, rows)
        contributions = self.model_.contributions(levels) + adjustments
        probability = 1.0 / (1.0 + np.exp2(-weight))
        frame = {
            "left": np.asarray(left_ids)[rows],
            "right": np.asarray(right_ids)[columns],
            "match_weight": weight,
            "match_probability": probability,
            "match": probability >= self.model_.threshold_,
        }
        for position, column in enumerate(self.columns_):
            frame[column.name] = levels[:, position]
            frame[column.name + "_weight"] = contributions[:, position]
        return pd.DataFrame(frame)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True  # a DataFrame of text columns
        return tags
