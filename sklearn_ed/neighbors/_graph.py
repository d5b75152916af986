"""FilterRefineTransformer: sparse neighbor graphs for precomputed-metric estimators."""

from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin, _fit_context
from sklearn.utils._param_validation import StrOptions

from ..search import FILTER_REFINE
from ..utils import reads_fitted_state, saved_class, writes_fitted_state
from ._base import FilterRefineBase


@saved_class(version=3, added={"processor": None, "search_method_": FILTER_REFINE})
class FilterRefineTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, FilterRefineBase):
    """Sparse k-nearest-neighbor graph under an expensive metric.

    The output has the format of :class:`sklearn.neighbors.KNeighborsTransformer`,
    so estimators taking ``metric="precomputed"`` (``DBSCAN``, ``TSNE``,
    ``Isomap``, ``SpectralClustering`` with an affinity graph...) run on
    strings or any object with an exact metric.

    Parameters
    ----------
    embedder : "auto" or transformer, default="auto"
        Embedding used by the filter; "auto" chooses from the data, brute
        force where a query of the whole base is cheap (see
        :class:`FilterRefineNeighbors`).
    mode : {"distance", "connectivity"}, default="distance"
        Edge values: exact distances or ones. In "distance" mode each row
        holds ``n_neighbors + 1`` entries because every sample is its own
        first neighbor (as in ``KNeighborsTransformer``).
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
        Neighbors per sample.
    n_candidates : "auto", int or float, default="auto"
        Candidates refined per query (count, fraction of the fitted set, or
        "auto": the smallest count reaching ``target_recall`` on the recall
        check; see :class:`FilterRefineNeighbors`).
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
    >>> from sklearn.cluster import DBSCAN
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn_ed import CGKEmbedder, FilterRefineTransformer
    >>> words = ["color", "colour", "colr", "banana", "bananas", "banan"]
    >>> graph = FilterRefineTransformer(CGKEmbedder(random_state=0), n_neighbors=2)
    >>> model = make_pipeline(graph, DBSCAN(eps=1.5, min_samples=2, metric="precomputed"))
    >>> model.fit_predict(words).tolist()
    [0, 0, 0, 1, 1, 1]
    """

    __sklearn_ed_saved__ = FilterRefineBase.__sklearn_ed_saved__ + ("_n_features_out",)

    _parameter_constraints: dict = {
        **FilterRefineBase._parameter_constraints,
        "mode": [StrOptions({"distance", "connectivity"})],
    }

    def __init__(
        self,
        embedder="auto",
        *,
        mode="distance",
        metric="levenshtein",
        processor=None,
        n_neighbors=5,
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
        self.mode = mode

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Fit the embedder on X and index the embedded base set.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            Base items.
        y : None
            Ignored.

        Returns
        -------
        self : FilterRefineTransformer
            Fitted transformer.
        """
        self._resolve_metric()
        self._fit(self._validate_X(X, reset=True))
        self._n_features_out = self.n_samples_fit_
        return self

    @writes_fitted_state
    def partial_fit(self, X, y=None):
        """Append items to the fitted base without refitting the embedder.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            New base items, of the kind ``fit`` saw.
        y : None
            Ignored.

        Returns
        -------
        self : FilterRefineTransformer
            The transformer; its graphs get ``n_samples_fit_`` columns.
        """
        self._partial_fit(self._check_partial_fit(X))
        self._n_features_out = self.n_samples_fit_
        return self

    @reads_fitted_state
    def transform(self, X):
        """Neighbor graph of X against the fitted samples.

        Parameters
        ----------
        X : array-like of shape (n_queries,) or (n_queries, n_features)
            Queries.

        Returns
        -------
        graph : sparse matrix in CSR format, shape (n_queries, n_samples_fit)
            ``n_neighbors + 1`` entries per row in "distance" mode (the query
            itself comes first when it is a fitted sample), ``n_neighbors``
            in "connectivity" mode.
        """
        extra = 1 if self.mode == "distance" else 0
        return self.kneighbors_graph(X, n_neighbors=self.n_neighbors + extra, mode=self.mode)

    def fit_transform(self, X, y=None):
        """Fit on X, then return the neighbor graph of X.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            Base items.
        y : None
            Ignored.

        Returns
        -------
        graph : sparse matrix in CSR format, shape (n_samples, n_samples)
        """
        return self.fit(X).transform(X)
