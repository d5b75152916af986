"""``join`` of the estimators: the fitted strings against new ones, through
the join methods of :mod:`sklearn_ed.join`, or through the estimator's own
filter (``method="filter"``)."""

from sklearn.utils.validation import check_is_fitted

from ..join import (
    FILTER,
    check_output_size,
    check_pair_recall,
    distance_threshold,
    filter_join,
    join_prepared,
    pairs_output,
    reachable_limit,
)
from ..utils import check_items, reads_fitted_state


class JoinMixin:
    """``join``: the fitted strings against new ones, every pair within a threshold."""

    @reads_fitted_state
    def join(self, X, threshold=None, *, min_similarity=None, method="auto", as_frame=False):
        """Every pair of a new string and a fitted one within a threshold.

        The fitted base is matched against ``X`` under the estimator's
        ``metric`` and ``processor``: a register fitted once is matched with
        each new batch of records. See :func:`~sklearn_ed.similarity_join`.

        Parameters
        ----------
        X : array-like of str of shape (n_queries,)
            The new strings.
        threshold : float, default=None
            Largest distance kept, in the metric's unit.
        min_similarity : float, default=None
            Instead of ``threshold`` for a normalized metric: smallest
            ``1 - distance`` kept.
        method : {"auto", "partition", "brute", "filter"}, default="auto"
            As in :func:`~sklearn_ed.similarity_join`; ``"filter"`` uses
            this fitted search as the filter (``FilterRefineNeighbors``).
        as_frame : bool, default=False
            Return a pandas DataFrame (``left``: row of ``X``, ``right``: fitted
            row, ``distance``).

        Returns
        -------
        query_index, fitted_index : ndarray of int64
            Row of ``X`` and of the fitted data of each pair, sorted.
        distance : ndarray
            Their exact distances.

        Examples
        --------
        >>> from sklearn_ed import FilterRefineNeighbors
        >>> register = FilterRefineNeighbors(random_state=0).fit(["kitten", "mitten", "dog"])
        >>> register.join(["sitten", "cat"], threshold=1)
        (array([0, 0]), array([0, 1]), array([1, 1], dtype=int32))
        """
        check_is_fitted(self)
        spec = self._metric_spec
        if spec.input_type != "strings":
            raise ValueError(
                f"join compares strings; this estimator was fitted with metric="
                f"{self.effective_metric_!r}, which compares {spec.input_type}."
            )
        processed = self._validate_X(X, reset=False)
        fitted = self.search_.items
        limit = distance_threshold(spec, threshold, min_similarity)
        limit = reachable_limit(limit, processed, fitted)
        check_output_size(processed, fitted, spec, limit)
        if method == FILTER:
            blocks = [self._filter_join(X, processed, limit)]
        else:
            blocks = join_prepared(processed, fitted, spec, limit, method, self.n_jobs)
        return pairs_output(blocks, as_frame)

    def _filter_join(self, X, processed, limit):
        """This fitted search as the filter of the approximate join (``radius_neighbors``
        takes the strings as given: it applies the processor itself)."""
        if not hasattr(self, "radius_neighbors"):
            raise ValueError(
                f"method='filter' joins through radius_neighbors, which "
                f"{type(self).__name__} has not; use FilterRefineNeighbors, or another method."
            )
        pairs = filter_join(self, check_items(X, "strings"), False, limit)
        check_pair_recall(
            pairs, processed, self.search_.items, self._metric_spec, limit, self.n_jobs
        )
        return pairs
