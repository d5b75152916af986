"""StringDeduplicator: groups of near-duplicate strings that do not chain."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..distances import Metric, available_metrics, declare_metric_input
from ..join import (
    check_output_size,
    concatenated_pairs,
    distinct_within,
    join_method_names,
    join_prepared,
    prepared_join,
    reachable_limit,
)
from ..utils import PROCESSORS, check_items, require_pandas, saved_class
from ._grouping import (
    LINKAGES,
    Components,
    adjacency,
    copies_pairs_count,
    grouped_stars,
    numbered,
)

STREAMING_ADVICE = (
    "linkage='connected' groups the pairs as they are found, in memory of the strings "
    "alone (its groups chain: A~B and B~C put A with C); or lower the threshold."
)


# Saves before version 2 did not record the join method (it was not reported).
@saved_class(version=2, added={"method_": None})
class StringDeduplicator(ClusterMixin, BaseEstimator):
    """Group near-duplicate strings; new strings join a group or open one.

    Every pair of strings within the threshold is found exactly
    (:func:`~sklearn_ed.similarity_join`); groups are then formed around
    representatives, so two strings far apart are never put together
    because a chain of near pairs links them.

    Parameters
    ----------
    threshold : float, default=None
        Largest distance between a member and its group's representative
        (with ``linkage="complete"``: between any two members), in the
        metric's unit; a pair exactly at it is kept, and ``float("inf")``
        keeps every pair.
    min_similarity : float, default=None
        Instead of ``threshold``, for a normalized metric: the smallest
        ``1 - distance`` (rapidfuzz's ``score_cutoff=85`` is 0.85).
    metric : str or Metric, default="levenshtein"
        A string metric (:func:`~sklearn_ed.distances.available_metrics`), or
        a :class:`~sklearn_ed.distances.Metric` of other items: the record
        metric of :func:`~sklearn_ed.records.make_record_metric` groups rows
        of :func:`~sklearn_ed.records.to_records`.
    processor : str, callable or None, default=None
        Applied to every string first, as in the estimators
        (``"default_sort_tokens"``: case, punctuation and word order free).
    linkage : {"representative", "complete", "connected"}, default="representative"
        ``"representative"``: the string with the most near neighbors opens a
        group and takes its unassigned neighbors, and so on.
        ``"complete"``: a neighbor joins only if it is within the threshold
        of every member. ``"connected"``: connected components of the near
        pairs, which chain (A~B and B~C group A with C); merged as the pairs
        are found, it holds none of them. The other two hold every pair of
        distinct strings, and ``fit`` refuses (``MemoryError``, before the
        join starts) when a sample says they would not fit in memory.
        Copies of a string are grouped together without their pairs.
    method : str, default="auto"
        How the join finds the pairs: ``"auto"``, ``"partition"``, ``"brute"``
        or another exact method of :func:`sklearn_ed.join.join_method_names`
        (:func:`~sklearn_ed.similarity_join`).
    n_jobs : int, default=None
        Threads of the distance computations.

    Attributes
    ----------
    labels_ : ndarray of int64 of shape (n_samples,)
        Group of each string, numbered in order of each group's first string.
    representatives_ : ndarray of int64 of shape (n_groups,)
        Row of each group's representative.
    group_sizes_ : ndarray of int64 of shape (n_groups,)
        Members per group.
    n_groups_ : int
        Number of groups (a string without near duplicates is a group of one).
    n_pairs_ : int
        Pairs within the threshold that the grouping started from.
    method_ : str
        The join method that found them (what ``method="auto"`` chose on the
        distinct strings; also logged, logger ``"sklearn_ed.join"``).

    Examples
    --------
    >>> from sklearn_ed.dedup import StringDeduplicator
    >>> names = ["Jon Smith", "John Smith", "Smith John", "Ann Lee", "Anne Lee"]
    >>> dedup = StringDeduplicator(min_similarity=0.85, metric="normalized_indel",
    ...                            processor="default_sort_tokens")
    >>> dedup.fit_predict(names).tolist()
    [0, 0, 0, 1, 1]
    >>> dedup.predict(["smith, jon", "Bob Ray"]).tolist()
    [0, 2]
    """

    # What save() writes besides the parameters (sklearn_ed.load refuses others).
    __sklearn_ed_saved__ = (
        "labels_",
        "representatives_",
        "group_sizes_",
        "n_groups_",
        "n_pairs_",
        "representative_strings_",
        "method_",
    )

    _parameter_constraints: dict = {
        "threshold": [Interval(Real, 0, None, closed="both"), None],
        "min_similarity": [Interval(Real, 0, 1, closed="both"), None],
        # Checked against the string metrics registered when fit runs (_prepared).
        "metric": [str, Metric],
        "processor": [StrOptions(set(PROCESSORS)), callable, None],
        "linkage": [StrOptions(set(LINKAGES))],
        # Checked against the join methods registered when fit runs (_prepared).
        "method": [str],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        threshold=None,
        *,
        min_similarity=None,
        metric="levenshtein",
        processor=None,
        linkage="representative",
        method="auto",
        n_jobs=None,
    ):
        self.threshold = threshold
        self.min_similarity = min_similarity
        self.metric = metric
        self.processor = processor
        self.linkage = linkage
        self.method = method
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Find the groups of ``X``.

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Strings (list, array, pandas Series).
        y : None
            Ignored.

        Returns
        -------
        self : StringDeduplicator
        """
        strings, spec, limit = self._prepared(X)
        self.method_ = None  # the join's choice, set when it runs (no pairs to find: None)
        self.labels_, self.representatives_, self.n_pairs_ = self._grouped(
            strings, spec, limit, on_choice=self._record_method
        )
        self.group_sizes_ = np.bincount(self.labels_)
        self.n_groups_ = len(self.representatives_)
        self.representative_strings_ = strings[self.representatives_]
        return self

    def fit_predict(self, X, y=None):
        """Find the groups of ``X`` and return each string's group.

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Strings.
        y : None
            Ignored.

        Returns
        -------
        labels : ndarray of int64 of shape (n_samples,)
        """
        return self.fit(X).labels_

    def predict(self, X):
        """Put new strings in the fitted groups, or in new ones, without refitting.

        A string within the threshold of a representative joins the nearest
        one's group (ties: the lowest label). The others are grouped among
        themselves with the same linkage and numbered from ``n_groups_`` on.
        The fitted groups are not changed.

        Parameters
        ----------
        X : array-like of str of shape (n_queries,)
            New strings.

        Returns
        -------
        labels : ndarray of int64 of shape (n_queries,)
        """
        check_is_fitted(self)
        strings, spec, limit = self._prepared(X)
        labels = np.full(len(strings), -1, dtype=np.int64)
        representatives = self.representative_strings_
        limit = reachable_limit(limit, strings, representatives)
        rows, groups, distances = concatenated_pairs(
            join_prepared(strings, representatives, spec, limit, self.method, self.n_jobs)
        )
        order = np.lexsort((groups, distances, rows))
        matched, first = np.unique(rows[order], return_index=True)
        labels[matched] = groups[order][first]
        new = np.flatnonzero(labels < 0)
        if new.size:
            new_labels, _, _ = self._grouped(strings[new], spec, limit)
            labels[new] = self.n_groups_ + new_labels
        return labels

    def groups_frame(self, X=None):
        """The groups as a table, the largest first.

        Parameters
        ----------
        X : array-like of str, default=None
            The strings ``fit`` was given, to show each representative as
            written (otherwise as processed).

        Returns
        -------
        frame : pandas.DataFrame
            Columns ``group``, ``size`` and ``representative``.
        """
        pd = require_pandas("StringDeduplicator.groups_frame")
        check_is_fitted(self)
        # check_items keeps each string as written (np.asarray would make
        # fixed-width text and drop trailing NULs).
        shown = self.representative_strings_
        if X is not None:
            X = check_items(X, "strings", name="X")
            if len(X) != len(self.labels_):
                raise ValueError(
                    f"X holds {len(X)} strings; groups_frame shows the {len(self.labels_)} "
                    "strings fit was given."
                )
            shown = X[self.representatives_]
        frame = pd.DataFrame(
            {"group": np.arange(self.n_groups_), "size": self.group_sizes_, "representative": shown}
        )
        return frame.sort_values(["size", "group"], ascending=[False, True], ignore_index=True)

    def _prepared(self, X):
        """The strings validated and processed once, the metric and the largest
        distance kept."""
        exact = join_method_names(exact_only=True)
        if self.method not in exact:
            raise ValueError(
                f"method must be an exact join method, one of {exact}; got {self.method!r}."
            )
        metrics = available_metrics("strings")
        if isinstance(self.metric, str) and self.metric not in metrics:
            raise ValueError(
                f"metric must be a string metric, one of {metrics}; got {self.metric!r}."
            )
        if isinstance(self.metric, Metric) and self.metric.input_type == "vectors":
            raise ValueError(
                "metric must compare strings or other items, not vectors; got "
                f"{self.metric.name!r}."
            )
        spec, limit, strings, _ = prepared_join(
            X, None, self.threshold, self.min_similarity, self.metric, self.processor, ("X",)
        )
        return strings, spec, limit

    def _record_method(self, choice):
        self.method_ = choice.name

    def _grouped(self, strings, spec, limit, on_choice=None):
        """``(labels, representatives, n_pairs)`` of the rows of ``strings``.

        Copies of a string are one node of the grouping (see ``_grouping``):
        only the distinct strings are joined.
        """
        distinct = distinct_within(strings, spec, limit)
        nodes, copies = distinct.strings, distinct.counts
        if self.linkage != "connected":
            check_output_size(
                nodes,
                None,
                spec,
                limit,
                what=f"Grouping with linkage={self.linkage!r}",
                advice=STREAMING_ADVICE,
            )
        blocks = join_prepared(
            nodes, None, spec, limit, self.method, self.n_jobs, on_choice,
            distinct=not distinct.kept_apart,
        )  # fmt: skip
        if self.linkage == "connected":
            components = Components(copies)
            for rows, columns, _ in blocks:
                components.add(rows, columns)
            owner, n_pairs = components.owners(), components.n_pairs
        else:
            rows, columns, distances = concatenated_pairs(blocks, ordered=False)
            graph = adjacency(len(nodes), rows, columns, distances)
            owner = grouped_stars(graph, copies, complete=self.linkage == "complete")
            n_pairs = int(np.dot(copies[rows], copies[columns]))
        first_rows = distinct.rows[distinct.starts[:-1]]
        labels, representatives = numbered(first_rows[owner][distinct.codes])
        return labels, representatives, n_pairs + copies_pairs_count(copies)

    def __sklearn_tags__(self):
        return declare_metric_input(super().__sklearn_tags__(), self.metric)
