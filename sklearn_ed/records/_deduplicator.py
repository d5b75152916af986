"""Deduplication of a table of records: blocking, comparison, weights, groups."""

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ..dedup import LINKAGES, group_pairs
from ..utils import require_pandas, saved_class
from ._blocking import candidate_pairs
from ._columns import as_columns, term_frequencies, text_values
from ._record_model import RECORD_MODEL_CONSTRAINTS, RecordModelMixin


@saved_class(version=2, added={"term_frequencies_": {}})
class RecordDeduplicator(RecordModelMixin, ClusterMixin, BaseEstimator):
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
        "term_frequencies_",
    )

    _parameter_constraints: dict = {
        **RECORD_MODEL_CONSTRAINTS,
        "linkage": [StrOptions(set(LINKAGES))],
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
        table = self._checked_table(X, minimum=2)
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
        self._fit_model(levels, random_levels, found_by, len(table) * (len(table) - 1) // 2)
        self.term_frequencies_ = term_frequencies(self.columns_, values)
        self.candidate_levels_ = levels
        self.record_ids_ = table.index.to_numpy()
        weight, _ = self._weights(levels, values, rows)
        probability = 1.0 / (1.0 + np.exp2(-weight))
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
        values = self._values(require_pandas("RecordDeduplicator").DataFrame(self.fitted_text_))
        return self._pairs_frame(
            self.record_ids_,
            self.record_ids_,
            self.candidate_pairs_.T,
            self.candidate_levels_,
            values,
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
        table = self._checked_table(X, minimum=1)
        fitted = pd.DataFrame(self.fitted_text_)
        rows, columns, _ = candidate_pairs(table, self.blocking_, fitted, n_jobs=self.n_jobs)
        values = self._values(table)
        levels = self._levels(values, self._values(fitted), rows, columns)
        pairs = self._pairs_frame(table.index, self.record_ids_, (rows, columns), levels, values)
        pairs.insert(2, "left_position", rows)
        pairs.insert(3, "right_position", columns)
        return pairs
