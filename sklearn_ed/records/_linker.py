"""Linking two tables of records: the pairs, one record from each, that stand for one entity."""

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils.validation import check_is_fitted

from ..utils import require_pandas, saved_class
from ._blocking import candidate_pairs
from ._columns import as_columns, term_frequencies, text_values
from ._record_model import RECORD_MODEL_CONSTRAINTS, RecordModelMixin


@saved_class()
class RecordLinker(RecordModelMixin, BaseEstimator):
    """The records of two tables that stand for one entity, learned without labels.

    ``fit(X, Y)`` runs the record-linkage chain between two tables (splink's
    ``link_only``): blocking rules between them, each candidate pair's
    levels, a :class:`FellegiSunter` model (``u`` from random pairs across
    the tables, ``m`` by EM over the candidates, the prior among all
    ``len(X) * len(Y)`` pairs), and the pairs that match. Pairs within one
    table are never made.

    Parameters
    ----------
    columns : list of Column or str
        The columns compared, present in both tables (a name stands for
        ``Column(name)``).
    blocking : list of BlockingRule, default=None
        The rules of candidate pairs. ``None``: as
        :class:`RecordDeduplicator` chooses them, on the two tables together.
    threshold : "auto" or float in (0, 1), default="auto"
        Match probability from which a pair matches (``"auto"``: the one of
        best F1 as the model estimates it).
    one_to_one : bool, default=False
        Whether each record matches at most one of the other table (the pairs
        taken by decreasing probability): for tables without duplicates of
        their own.
    n_random_pairs : int, default=100_000
        Random pairs across the tables that estimate each level's probability
        among non-matches.
    max_iter : int, default=100
        Most EM iterations.
    random_state : int, RandomState or None, default=0
        Seed of the random pairs.
    n_jobs : int, default=None
        Threads of the fuzzy blocking joins and of the levels.

    Attributes
    ----------
    candidate_pairs_ : ndarray of int64 of shape (n_pairs, 2)
        Positions of every candidate pair: a row of ``X``, a row of ``Y``.
    candidate_levels_ : ndarray of int8 of shape (n_pairs, n_columns)
    matches_ : ndarray of bool of shape (n_pairs,)
        Which candidate pairs match (one to one where asked).
    left_ids_, right_ids_ : ndarray
        The index labels of ``X`` and ``Y``.
    blocking_report_ : dict of lists
        What each blocking rule added.
    model_ : FellegiSunter
    term_frequencies_ : dict
        Each term-frequency column's distinct values and their shares among
        both tables' values.
    columns_ : tuple of Column
    blocking_ : tuple of BlockingRule

    See Also
    --------
    RecordDeduplicator : Groups of records within one table.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from sklearn_ed.datasets import make_person_records
    >>> from sklearn_ed.records import RecordLinker
    >>> people = make_person_records(3000, duplicate_share=0.2, random_state=0, as_frame=True)
    >>> frame, entity = people.frame, people.entity
    >>> first = ~pd.Series(entity).duplicated().to_numpy()      # one record per entity
    >>> left, right = frame[first], frame[~first]               # right: the duplicates
    >>> linker = RecordLinker(frame.columns.tolist()).fit(left, right)
    >>> found = linker.predict(right)                           # left label of each, or None
    >>> same = [label is not None and entity[label] == e for label, e in zip(found, entity[~first])]
    >>> round(float(np.mean(same)), 3)
    0.972
    """

    __sklearn_ed_saved__ = (
        "candidate_pairs_",
        "candidate_levels_",
        "matches_",
        "left_ids_",
        "right_ids_",
        "blocking_report_",
        "model_",
        "term_frequencies_",
        "columns_",
        "blocking_",
        "fitted_text_",
    )

    _parameter_constraints: dict = {
        **RECORD_MODEL_CONSTRAINTS,
        "one_to_one": ["boolean"],
    }

    def __init__(
        self,
        columns,
        *,
        blocking=None,
        threshold="auto",
        one_to_one=False,
        n_random_pairs=100_000,
        max_iter=100,
        random_state=0,
        n_jobs=None,
    ):
        self.columns = columns
        self.blocking = blocking
        self.threshold = threshold
        self.one_to_one = one_to_one
        self.n_random_pairs = n_random_pairs
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, Y):
        """Learn the match weights of pairs of ``X`` and ``Y`` and find the matches.

        Parameters
        ----------
        X, Y : pandas.DataFrame
            The two tables, one record per row, with every compared and
            blocking column.

        Returns
        -------
        self : RecordLinker
        """
        pd = require_pandas("RecordLinker")
        self.columns_ = as_columns(self.columns)
        left = self._checked_table(X, minimum=1, name="X")
        right = self._checked_table(Y, minimum=1, name="Y")
        both = pd.concat([left[self._needed()], right[self._needed()]], ignore_index=True)
        self.blocking_ = self._rules(both)
        rows, columns, report, found_by = candidate_pairs(
            left, self.blocking_, right, return_rules=True, n_jobs=self.n_jobs
        )
        self.blocking_report_ = report.to_dict(orient="list")
        self.candidate_pairs_ = np.column_stack([rows, columns])
        rows, columns = self.candidate_pairs_.T
        left_values, right_values = self._values(left), self._values(right)
        levels = self._levels(left_values, right_values, rows, columns)
        random_rows, random_columns = self._random_pairs(len(left), len(right))
        random_levels = self._levels(left_values, right_values, random_rows, random_columns)
        self._fit_model(levels, random_levels, found_by, len(left) * len(right))
        self.term_frequencies_ = term_frequencies(
            self.columns_, [np.concatenate(pair) for pair in zip(left_values, right_values)]
        )
        self.candidate_levels_ = levels
        self.left_ids_, self.right_ids_ = left.index.to_numpy(), right.index.to_numpy()
        self.matches_ = self._matches(levels, left_values, rows, columns)
        self.fitted_text_ = {name: text_values(left[name]) for name in self._needed()}
        return self

    def fit_predict(self, X, Y):
        """Link ``Y`` to ``X`` and return, for each record of ``Y``, its match in ``X``.

        Parameters
        ----------
        X, Y : pandas.DataFrame
            The two tables.

        Returns
        -------
        matched : ndarray of object of shape (len(Y),)
            The index label in ``X`` of each record's best match, None where
            it has none.
        """
        self.fit(X, Y)
        rows, columns = self.candidate_pairs_[self.matches_].T
        return self._best_of(rows, columns, self._probabilities_of_matches(), len(Y))

    def predict(self, Y):
        """The match in the fitted ``X`` of each new record of the ``Y`` side.

        Parameters
        ----------
        Y : pandas.DataFrame
            Records to link to the fitted ``X``, with its columns.

        Returns
        -------
        matched : ndarray of object of shape (len(Y),)
            The index label in ``X`` of each record's best match, None where
            it has none.
        """
        pairs = self.link(Y)
        pairs = pairs[pairs["match"].to_numpy()]
        return self._best_of(
            pairs["left_position"].to_numpy(),
            pairs["right_position"].to_numpy(),
            pairs["match_probability"].to_numpy(),
            len(Y),
        )

    def link(self, Y):
        """The candidate pairs of the fitted ``X`` with new records, with their weights.

        Parameters
        ----------
        Y : pandas.DataFrame
            Records of the ``Y`` side.

        Returns
        -------
        pairs : pandas.DataFrame
            As :meth:`pairs_frame` (``left``: the label in ``X``, ``right``: in
            ``Y``), with their positions in ``left_position`` and
            ``right_position``; ``match`` is one to one where asked.
        """
        check_is_fitted(self, "model_")
        pd = require_pandas("RecordLinker.link")
        table = self._checked_table(Y, minimum=1, name="Y")
        fitted = pd.DataFrame(self.fitted_text_)
        rows, columns, _ = candidate_pairs(fitted, self.blocking_, table, n_jobs=self.n_jobs)
        fitted_values = self._values(fitted)
        levels = self._levels(fitted_values, self._values(table), rows, columns)
        pairs = self._pairs_frame(
            self.left_ids_, table.index, (rows, columns), levels, fitted_values
        )
        pairs["match"] = self._matches(levels, fitted_values, rows, columns)
        pairs.insert(2, "left_position", rows)
        pairs.insert(3, "right_position", columns)
        return pairs

    def pairs_frame(self):
        """Every candidate pair of the fit with its weight, probability and levels.

        Returns
        -------
        pairs : pandas.DataFrame
            ``left`` (label in ``X``) and ``right`` (label in ``Y``),
            ``match_weight``, ``match_probability``, ``match`` and, per
            column, its level and its part of the weight (``<name>_weight``).
        """
        check_is_fitted(self, "model_")
        values = self._values(require_pandas("RecordLinker").DataFrame(self.fitted_text_))
        pairs = self._pairs_frame(
            self.left_ids_, self.right_ids_, self.candidate_pairs_.T, self.candidate_levels_, values
        )
        pairs["match"] = self.matches_
        return pairs

    def _matches(self, levels, left_values, rows, columns):
        """The pairs that reach the threshold, one to one where asked."""
        weight, _ = self._weights(levels, left_values, rows)
        probability = 1.0 / (1.0 + np.exp2(-weight))
        match = probability >= self.model_.threshold_
        if self.one_to_one:
            match[match] = _one_to_one(rows[match], columns[match], probability[match])
        return match

    def _probabilities_of_matches(self):
        rows = self.candidate_pairs_[self.matches_, 0]
        values = self._values(require_pandas("RecordLinker").DataFrame(self.fitted_text_))
        weight, _ = self._weights(self.candidate_levels_[self.matches_], values, rows)
        return 1.0 / (1.0 + np.exp2(-weight))

    def _best_of(self, rows, columns, probability, n_right):
        """Each right record's most probable match among the pairs (ties: the first
        left row), as a left index label; None where it has none."""
        matched = np.full(n_right, None, dtype=object)
        order = np.lexsort((rows, -probability, columns))
        best_columns, first = np.unique(columns[order], return_index=True)
        matched[best_columns] = self.left_ids_[rows[order][first]]
        return matched


def _one_to_one(rows, columns, probability):
    """Which pairs to keep so that each row and each column appears once, taking
    the pairs by decreasing probability (ties: by row, then column)."""
    keep = np.zeros(len(rows), dtype=bool)
    used_rows, used_columns = set(), set()
    for pair in np.lexsort((columns, rows, -probability)):
        row, column = rows[pair], columns[pair]
        if row not in used_rows and column not in used_columns:
            keep[pair] = True
            used_rows.add(row)
            used_columns.add(column)
    return keep
