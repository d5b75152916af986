"""StringDeduplicator: groups of near-duplicate strings that do not chain."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..distances import available_metrics, declare_metric_input
from ..neighbors import concatenated_pairs, iter_similarity_join
from ..utils import PROCESSORS, apply_processor, check_items
from ._grouping import LINKAGES, adjacency, group

STRING_METRICS = available_metrics("strings")


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
        metric's unit.
    min_similarity : float, default=None
        Instead of ``threshold``, for a normalized metric: the smallest
        ``1 - distance`` (rapidfuzz's ``score_cutoff=85`` is 0.85).
    metric : str, default="levenshtein"
        A string metric (:func:`~sklearn_ed.distances.available_metrics`).
    processor : str, callable or None, default=None
        Applied to every string first, as in the estimators
        (``"default_sort_tokens"``: case, punctuation and word order free).
    linkage : {"representative", "complete", "connected"}, default="representative"
        ``"representative"``: the string with the most near neighbors opens a
        group and takes its unassigned neighbors, and so on.
        ``"complete"``: a neighbor joins only if it is within the threshold
        of every member. ``"connected"``: connected components of the near
        pairs, which chain (A~B and B~C group A with C).
    method : {"auto", "partition", "brute"}, default="auto"
        How the join finds the pairs (:func:`~sklearn_ed.similarity_join`).
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
    )

    _parameter_constraints: dict = {
        "threshold": [Interval(Real, 0, None, closed="left"), None],
        "min_similarity": [Interval(Real, 0, 1, closed="both"), None],
        "metric": [StrOptions(set(STRING_METRICS))],
        "processor": [StrOptions(set(PROCESSORS)), callable, None],
        "linkage": [StrOptions(set(LINKAGES))],
        "method": [StrOptions({"auto", "partition", "brute"})],
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
        strings = self._prepared(X)
        self.labels_, self.representatives_, self.n_pairs_ = self._grouped(strings)
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
        strings = self._prepared(X)
        labels = np.full(len(strings), -1, dtype=np.int64)
        rows, groups, distances = concatenated_pairs(
            self._join(strings, self.representative_strings_)
        )
        order = np.lexsort((groups, distances, rows))
        matched, first = np.unique(rows[order], return_index=True)
        labels[matched] = groups[order][first]
        new = np.flatnonzero(labels < 0)
        if new.size:
            new_labels, _, _ = self._grouped(strings[new])
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
        import pandas as pd

        check_is_fitted(self)
        shown = self.representative_strings_ if X is None else np.asarray(X)[self.representatives_]
        frame = pd.DataFrame(
            {"group": np.arange(self.n_groups_), "size": self.group_sizes_, "representative": shown}
        )
        return frame.sort_values(["size", "group"], ascending=[False, True], ignore_index=True)

    def _prepared(self, X):
        return apply_processor(self.processor, check_items(X, "strings", name="X"), name="X")

    def _join(self, left, right=None):
        return iter_similarity_join(
            left,
            right,
            threshold=self.threshold,
            min_similarity=self.min_similarity,
            metric=self.metric,
            method=self.method,
            n_jobs=self.n_jobs,
        )

    def _grouped(self, strings):
        rows, columns, distances = concatenated_pairs(self._join(strings))
        graph = adjacency(len(strings), rows, columns, distances)
        labels, representatives = group(graph, self.linkage)
        return labels, representatives, len(rows)

    def __sklearn_tags__(self):
        return declare_metric_input(super().__sklearn_tags__(), self.metric)
