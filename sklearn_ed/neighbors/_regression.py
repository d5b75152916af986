"""FilterRefineRegressor: k-nearest-neighbor average under an expensive metric."""

import numpy as np
from sklearn.base import RegressorMixin, _fit_context
from sklearn.utils.validation import check_consistent_length, check_is_fitted

from ..search import FILTER_REFINE
from ..utils import reads_fitted_state, saved_class, writes_fitted_state
from ._supervised import SupervisedFilterRefineBase


@saved_class(version=3, added={"processor": None, "search_method_": FILTER_REFINE})
class FilterRefineRegressor(RegressorMixin, SupervisedFilterRefineBase):
    """Regressor averaging the targets of neighbors found by filter-and-refine.

    Neighbors are found as in :class:`FilterRefineNeighbors`; the prediction
    is their (weighted) mean target, as in
    :class:`sklearn.neighbors.KNeighborsRegressor`.

    Parameters
    ----------
    embedder : "auto" or transformer, default="auto"
        Embedding used by the filter; "auto" chooses from the data, brute
        force where a query of the whole base is cheap (see
        :class:`FilterRefineNeighbors`).
    metric : str, Metric or callable, default="levenshtein"
        Exact distance.
    processor : str, callable or None, default=None
        Applied to every string, of the base and of the queries, before any
        distance. Named: ``"lower"`` lowercases, ``"default"`` is rapidfuzz's
        ``default_process`` (lowercase, non-alphanumeric characters to spaces,
        trimmed), ``"sort_tokens"`` sorts the words ("smith john" ->
        "john smith": swapped fields cost nothing), ``"default_sort_tokens"``
        both (rapidfuzz's ``token_sort_ratio`` input). A callable ``str ->
        str`` works too (pickle then; ``save`` writes only the named ones).
    n_neighbors : int, default=5
        Number of neighbors averaged.
    weights : {"uniform", "distance"}, callable or None, default="uniform"
        Averaging weights.
    ties : {"include", "index"}, default="include"
        Neighbors at the k-th exact distance. "include": all of them vote,
        sharing equally the votes the closer neighbors leave (the expected
        vote over every order of the training data), so predictions do not
        depend on that order; R's ``class::knn(use.all=TRUE)`` includes them
        too. "index": the k first by training index; shuffling the training
        data can then change predictions (29 % of 5-NN predictions on
        misspelt words, whose integer distances tie often).
        :class:`~sklearn.neighbors.KNeighborsRegressor` keeps whichever tied
        neighbors its partial sort leaves first, neither the first by index
        nor all of them (measured for the classifier in :ref:`ug_supervised`).
    n_candidates : "auto", int or float, default="auto"
        Candidates refined per query (count, fraction of the fitted set, or
        "auto": the smallest count reaching ``target_recall`` on the recall
        check; see :class:`FilterRefineNeighbors`). With ``ties="include"``
        the check counts every item tied at the k-th distance, since each
        of them votes: strings whose distances tie often need more candidates.
    target_recall : float in (0, 1], default=0.95
        Recall the filter should reach; fit warns when the estimate is below
        (or gives way to brute force, as :class:`FilterRefineNeighbors` does).
    check_recall : bool, default=True
        Estimate the filter's recall at fit (``estimated_recall_``).
    filter_algorithm : {"auto", "brute", "hnsw", "ivf", "nndescent"}, default="auto"
        The filter's vector index (see :class:`FilterRefineNeighbors`).
    index_params : dict, default=None
        Construction parameters of the index.
    exact : bool, default=False
        Return the exact brute-force answer, always: after the filter's
        candidates, verify every item whose lower bound of the metric is
        at most the current k-th distance (lossless pruning; the metric must
        declare a lower bound, as ``"levenshtein"`` does).
    n_jobs : int, default=None
        Parallel jobs of the refine step.
    random_state : int, RandomState instance or None, default=None
        Seeds the default embedder, the recall check's sample, the radius
        calibration and NNDescent. None is a fixed seed (0): two fits of the
        same data choose the same ``n_candidates_`` and answer alike, as
        scikit-learn's KNeighbors estimators do; pass an int for other draws.
    verbose : int, default=0
        Progress bars (tqdm) for embedding, the recall check and queries,
        and a line per fit stage; 0 is silent. Both go to stderr: the lines
        are logged at INFO on the ``sklearn_ed`` logger, which the
        :mod:`logging` API silences (``setLevel(logging.WARNING)``) or
        redirects (a handler of your own, added before the fit).

    Attributes
    ----------
    search_method_ : {"filter_refine", "brute_force"}
        Filter and refine, or every item compared (see
        :class:`FilterRefineNeighbors`).
    embedder_ : transformer or None
        Fitted clone of ``embedder`` (None for brute force).
    embedding_metric_ : str or None
        Filter distance (None for brute force).
    effective_metric_ : str
        Name of the exact metric.
    n_samples_fit_ : int
        Number of fitted samples.
    n_candidates_ : int
        Candidates refined per query, resolved at fit.
    estimated_recall_ : float
        Top-``n_neighbors`` recall of the filter at ``n_candidates_``,
        estimated on a sample of the base (1.0 when every item is a
        candidate, NaN with ``check_recall=False`` or with ``exact=True`` at a
        fixed ``n_candidates``, where no check runs).
    estimated_recall_se_ : float
        Standard error of ``estimated_recall_`` over the sampled queries.
    recall_curve_ : ndarray of shape (n_counts, 3)
        The check's candidate counts, recall estimates and standard errors.

    Examples
    --------
    >>> from sklearn_ed import CGKEmbedder, FilterRefineRegressor
    >>> words = ["a", "ab", "abc", "abcd", "abcde"]
    >>> reg = FilterRefineRegressor(CGKEmbedder(random_state=0), n_neighbors=2)
    >>> reg.fit(words, [1.0, 2.0, 3.0, 4.0, 5.0]).predict(["abcdx"]).tolist()
    [4.5]
    """

    def __init__(
        self,
        embedder="auto",
        *,
        metric="levenshtein",
        processor=None,
        n_neighbors=5,
        weights="uniform",
        ties="include",
        n_candidates="auto",
        target_recall=0.95,
        check_recall=True,
        filter_algorithm="auto",
        index_params=None,
        exact=False,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        super().__init__(
            embedder,
            metric=metric,
            processor=processor,
            n_neighbors=n_neighbors,
            n_candidates=n_candidates,
            target_recall=target_recall,
            check_recall=check_recall,
            filter_algorithm=filter_algorithm,
            index_params=index_params,
            exact=exact,
            n_jobs=n_jobs,
            random_state=random_state,
            verbose=verbose,
        )
        self.weights = weights
        self.ties = ties

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Fit the embedder on X and store the targets.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            Training items.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets.

        Returns
        -------
        self : FilterRefineRegressor
            Fitted regressor.
        """
        self._resolve_metric()
        X, y = self._validate_X_y(X, y)
        self._y = _check_targets(y)
        return self._fit(X)

    @writes_fitted_state
    def partial_fit(self, X, y):
        """Append items with targets without refitting the embedder.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            New training items, of the kind ``fit`` saw.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Their targets.

        Returns
        -------
        self : FilterRefineRegressor
            The regressor.
        """
        X = self._check_partial_fit(X)
        y = _check_targets(y)
        check_consistent_length(X, y)
        if y.ndim != self._y.ndim or y.shape[1:] != self._y.shape[1:]:
            raise ValueError(
                f"y has shape {y.shape}; partial_fit needs targets shaped like those "
                f"of fit, (n_samples,) + {self._y.shape[1:]}."
            )
        self._partial_fit(X)
        self._y = np.concatenate([self._y, y])
        return self

    @reads_fitted_state
    def predict(self, X=None):
        """Weighted mean target of the neighbors of each query.

        Parameters
        ----------
        X : array-like, default=None
            Queries; ``None`` uses the fitted samples, each excluding itself.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,) or (n_queries, n_outputs)
            Predicted targets.
        """
        check_is_fitted(self)
        indices, weights = self._voters(X)
        neighbor_targets = self._y[indices]
        if neighbor_targets.ndim == 3:
            weights = weights[:, :, None]
        return (neighbor_targets * weights).sum(axis=1) / weights.sum(axis=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


def _check_targets(y):
    """Float targets; NaN or infinite values would spread into every prediction."""
    y = np.asarray(y, dtype=np.float64)
    bad = ~np.isfinite(y)
    if bad.any():
        raise ValueError(
            f"y contains {bad.sum()} NaN or infinite value(s) (first at index "
            f"{np.argwhere(bad)[0][0]}): a neighbor average with them is undefined. "
            "Drop or impute those targets."
        )
    return y
