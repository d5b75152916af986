"""FilterRefineNeighbors: unsupervised filter-and-refine neighbor search."""

from numbers import Real

import numpy as np
from scipy import sparse
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ..search import FILTER_REFINE, QUERY_BATCH_SIZE, SearchPolicy, batches, calibrate_radius
from ..utils import reads_fitted_state, saved_class, take_items, writes_fitted_state
from ._base import FilterRefineBase


@saved_class(version=3, added={"processor": None, "search_method_": FILTER_REFINE})
class FilterRefineNeighbors(FilterRefineBase):
    """Nearest neighbors under an expensive metric, filtered by an embedding.

    The embedder maps every item to a vector; queries take the
    ``n_candidates`` nearest base items in that cheap vector space (filter),
    then the exact ``metric`` ranks the candidates (refine). Returned
    distances are exact. With ``n_candidates >= n_samples_fit_`` the result
    equals exact brute-force search, ties broken by base index.

    Parameters
    ----------
    embedder : "auto" or transformer, default="auto"
        Maps items to vectors for the filter; fitted on the base set in
        ``fit`` (a clone is used). "auto" first times the exact metric on
        the base: where one query compared with every item costs at most
        what a filter's query would (0.25 to 5 ms: user guide, "When brute
        force is the answer"), a filter could not pay for its fit, and the
        search is brute force (``search_method_="brute_force"``: no
        embedder, exact answers); a filter it builds and then times slower
        than brute force on edited items of the base gives way to it too
        (with ``n_candidates="auto"`` or ``exact=True``). Otherwise
        it chooses the filter from the data and the
        metric: :class:`~sklearn_ed.QGramEmbedder` for strings,
        :class:`~sklearn_ed.CGKEmbedder` when a dense index ("hnsw", "ivf",
        "nndescent") is asked for, the identity for vector metrics and
        :class:`~sklearn_ed.FastMapEmbedder` for other objects (the rule and
        its measurements: user guide, "Choosing an embedder"). A
        transformer's ``embedding_metric`` attribute ("euclidean" by default,
        "hamming" for CGK, "cosine" for q-grams) sets the filter distance.
        ``None`` means "auto".
    metric : str, Metric or callable, default="levenshtein"
        Exact distance: a name from :func:`sklearn_ed.distances.available_metrics`,
        a :class:`~sklearn_ed.distances.Metric`, or ``metric(x, y) -> float``.
    processor : str, callable or None, default=None
        Applied to every string, of the base and of the queries, before any
        distance. Named: ``"lower"`` lowercases, ``"default"`` is rapidfuzz's
        ``default_process`` (lowercase, non-alphanumeric characters to spaces,
        trimmed), ``"sort_tokens"`` sorts the words ("smith john" ->
        "john smith": swapped fields cost nothing), ``"default_sort_tokens"``
        both (rapidfuzz's ``token_sort_ratio`` input). A callable ``str ->
        str`` works too (pickle then; ``save`` writes only the named ones).
    n_neighbors : int, default=5
        Default number of neighbors of :meth:`kneighbors`.
    radius : float, default=1.0
        Default radius of :meth:`radius_neighbors`.
    n_candidates : "auto", int or float, default="auto"
        Candidates refined per query: a count, a fraction in (0, 1] of the
        fitted samples, or "auto": the smallest count whose recall, estimated
        at fit by the recall check, reaches ``target_recall`` (less one
        standard error). On a base of at most twice the check's sample
        every item is a candidate (exact search).
    target_recall : float in (0, 1], default=0.95
        Top-``n_neighbors`` recall the filter should reach. With
        ``n_candidates="auto"``, where no candidate count up to a tenth of
        the base reaches it on the check's sample, a filter of the
        ``"auto"`` embedder gives way to brute force (``search_method_`` is
        ``"brute_force"``: exact answers) with a warning that gives a
        query's cost then, and a given embedder warns. With
        a fixed ``n_candidates``, fit warns once when the estimate is below
        it (never with ``exact=True``, whose answers are exact anyway).
    check_recall : bool, default=True
        Estimate the filter's recall at fit (``estimated_recall_``): a
        seeded sample of the base (20 to 200 items, about 200 true
        neighbors in all, or 4 / (1 - ``target_recall``) where that is
        more) is searched as queries, each excluded from its
        own answer, and compared with its exact neighbors: by brute force
        with a cut-off, or, for short strings, among the items the metric's
        lower bound cannot rule out. A third to a half of the fit on the
        defaults benchmark (:ref:`choosing`). Required by
        ``n_candidates="auto"``.
    radius_blowup : float, default=1.0
        ``mu`` of threshold search (Algorithm 2 of the CNN-ED paper):
        candidates of a radius query are the items whose embedding distance
        is at most ``mu * g(radius)``, where ``g(r)`` is the largest
        embedding distance of a pair within exact distance ``r`` among the
        pairs of a sample of the base (``radius_calibration_``). ``inf`` verifies
        every item (exact radius search). The paper fitted ``g`` as a line
        and needed ``mu > 1``; the line's negative intercept lost three
        quarters of the neighbors at radius 1 on words, the largest pair
        distance does not. Metrics with a lower bound on short strings
        (mean length up to 64, as words) skip the embedding: radius queries
        verify every item the lossless bound keeps, as with ``exact=True``.
    filter_algorithm : {"auto", "brute", "hnsw", "ivf", "nndescent"}, default="auto"
        The vector index of the filter (:mod:`sklearn_ed.index`): "brute"
        scans every item (faiss flat indexes, exact); "hnsw" searches a faiss
        HNSW graph and "ivf" faiss inverted lists (approximate, sub-linear);
        "nndescent" a pynndescent graph. "auto" scans while a query reads at
        most 32 MiB of codes (100,000 words), then uses HNSW; symbol codes
        wider than 512 bytes (CGK codes of long reads) always take the scan,
        which no approximate index matched on them.
    index_params : dict, default=None
        Construction parameters of the index, for example ``{"M": 16}`` for
        HNSW or ``{"n_probe": 32}`` for inverted lists (see the classes of
        :mod:`sklearn_ed.index`).
    exact : bool, default=False
        Return the exact brute-force answer, always: after the filter's
        candidates, verify every item whose lower bound of the metric is
        at most the current k-th distance (lossless pruning; the metric must
        declare a lower bound, as ``"levenshtein"`` does).
    n_jobs : int, default=None
        Parallel jobs of the refine step (joblib; threads by default, any
        joblib backend such as Dask through ``joblib.parallel_config``).
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
        How queries are answered: filtered by the embedding and refined, or
        by comparing every item (chosen by ``embedder="auto"``: where a query
        of the base costs less than a filter could pay back, where its
        filter misses ``target_recall``, or where the filter it built
        answers edited items of the base slower than brute force, timed
        at fit).
    embedder_ : transformer or None
        The fitted clone of ``embedder`` (None for brute force).
    embedding_metric_ : {"euclidean", "hamming"} or None
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
    index_ : BaseIndex or None
        The filter's vector index over the embedded base set (None for
        brute force).
    radius_calibration_ : ndarray of shape (n_radii, 2)
        Exact radii seen among the recall check's pairs and, for each, the
        largest embedding distance of a pair within it (non-decreasing).
        With ``check_recall=False`` a sample of its own gives the pairs (the
        check's cost without its recall curve). Empty when every item is a
        candidate, or when no check runs and the metric's lower bound picks
        the radius candidates (short strings, ``exact=True``).
    n_features_in_ : int
        Number of features (numeric input only).

    See Also
    --------
    FilterRefineClassifier : Classification by filtered nearest neighbors.
    FilterRefineTransformer : Sparse neighbor graph for precomputed-metric estimators.

    Examples
    --------
    >>> from sklearn_ed import CGKEmbedder, FilterRefineNeighbors
    >>> words = ["kitten", "sitting", "mitten", "fitting", "smitten", "knitting"]
    >>> search = FilterRefineNeighbors(CGKEmbedder(max_length=10, random_state=0),
    ...                                n_neighbors=2, n_candidates=5).fit(words)
    >>> distances, indices = search.kneighbors(["kitchen"])
    >>> [words[i] for i in indices[0]], distances[0].tolist()
    (['kitten', 'mitten'], [2.0, 3.0])
    """

    __sklearn_ed_saved__ = FilterRefineBase.__sklearn_ed_saved__ + ("radius_calibration_",)

    _parameter_constraints: dict = {
        **FilterRefineBase._parameter_constraints,
        "radius": [Interval(Real, 0, None, closed="left")],
        "radius_blowup": [Interval(Real, 1, None, closed="both")],
    }

    def __init__(
        self,
        embedder="auto",
        *,
        metric="levenshtein",
        processor=None,
        n_neighbors=5,
        radius=1.0,
        n_candidates="auto",
        target_recall=0.95,
        check_recall=True,
        radius_blowup=1.0,
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
        self.radius = radius
        self.radius_blowup = radius_blowup

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Fit the embedder on X and index the embedded base set.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            Base items: strings for string metrics, rows for vector metrics.
        y : None
            Ignored.

        Returns
        -------
        self : FilterRefineNeighbors
            Fitted estimator.
        """
        self._resolve_metric()
        return self._fit(self._validate_X(X, reset=True))

    def _search_policy(self, X):
        return SearchPolicy.decide(self._metric_spec, X, exact=self.exact, radius=self.radius)

    def _fit_n_candidates(self):
        super()._fit_n_candidates()
        search = self.search_
        if search.radius_calibration is None:  # no recall check ran to calibrate it
            if self.n_candidates_ >= self.n_samples_fit_ - 1 or search.bound is not None:
                # Every item is verified, or the lossless bound picks the candidates.
                search.radius_calibration = np.zeros((0, 2))
            else:
                k = min(self.n_neighbors, self.n_samples_fit_ - 1)
                calibrate_radius(search, k, random_state=self._seed)
        self.radius_calibration_ = search.radius_calibration

    @writes_fitted_state
    def partial_fit(self, X, y=None):
        """Append items to the fitted base without refitting the embedder.

        The new items are embedded by the fitted ``embedder_`` and added to
        the index; they get the next indices. With ``filter_algorithm="brute"``
        ``fit(A).partial_fit(B)`` answers queries exactly as a fit on A + B
        with the same fitted embedder. Items with characters the fitted base
        lacked make a q-gram or CGK embedder refit on the whole base (with a
        warning); a base grown by half since the recall check runs the check
        again (see the user guide, "Adding items"), and a brute-force base
        grown by half is fitted again (brute force may no longer pay). Queries from other
        threads see the base before or after the addition, never during it.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            New base items, of the kind ``fit`` saw.
        y : None
            Ignored.

        Returns
        -------
        self : FilterRefineNeighbors
            The estimator, with ``n_samples_fit_`` increased.
        """
        return self._partial_fit(self._check_partial_fit(X))

    @reads_fitted_state
    def radius_neighbors(self, X=None, radius=None, return_distance=True, sort_results=False):
        """Items within ``radius`` of each query under the exact metric.

        Threshold search: candidates are the items whose embedding distance is
        at most ``radius_blowup * g(radius)`` (``g``: ``radius_calibration_``);
        each candidate is verified with the exact metric. With
        ``exact=True``, and for metrics with a lower bound on short strings,
        the candidates are instead every item whose lower bound of the metric
        is at most ``radius``: the result is exact.

        Parameters
        ----------
        X : array-like, default=None
            Queries; ``None`` uses the fitted samples, each excluding itself.
        radius : float, default=None
            Exact-distance radius; defaults to the constructor's value.
        return_distance : bool, default=True
            Whether to return the distances.
        sort_results : bool, default=False
            Sort each result by distance, ties by index.

        Returns
        -------
        neigh_dist : ndarray of object, shape (n_queries,)
            Arrays of exact distances. Only if ``return_distance=True``.
        neigh_ind : ndarray of object, shape (n_queries,)
            Arrays of indices into the fitted data.
        """
        check_is_fitted(self)
        radius = self.radius if radius is None else radius
        if not isinstance(radius, Real) or not 0 <= radius < np.inf:
            raise ValueError(f"radius must be a finite non-negative number, got {radius!r}.")
        if self._metric_spec.normalized and radius > 1:
            raise ValueError(
                f"metric={self.effective_metric_!r} is normalized: its distances lie in "
                f"[0, 1], so radius={radius!r} would return every item. A rapidfuzz "
                "score_cutoff of s (0-100) is the radius 1 - s / 100."
            )
        queries, exclude = self._queries(X)
        search = self.search_
        # Items the lower bound cannot rule out need no embedding threshold.
        threshold = None if search.bound is not None else self._embedding_threshold(radius)
        # Every item at exactly the radius is kept, through the scorer's rounding.
        limit = self._metric_spec.limit(radius)
        neigh_dist = np.empty(len(queries), dtype=object)
        neigh_ind = np.empty(len(queries), dtype=object)
        for rows in batches(len(queries), QUERY_BATCH_SIZE):
            batch = take_items(queries, np.arange(rows.start, rows.stop))
            batch_exclude = None if exclude is None else exclude[rows]
            # Every item the lower bound cannot rule out, or the range search's.
            found = None
            if search.bound is None and search.index is not None:
                found = search.index.range_search(search.embed(batch), threshold, batch_exclude)
            neigh_dist[rows], neigh_ind[rows] = _sorted_rows(
                search.verified_within(batch, np.full(len(batch), limit), found, batch_exclude),
                sort_results,
            )
        return (neigh_dist, neigh_ind) if return_distance else neigh_ind

    def _embedding_threshold(self, radius):
        """Embedding distance within which the radius candidates are taken.

        The largest embedding distance of a sampled pair (an item of the base
        as a query, and an item) within the smallest calibrated radius at
        least ``radius`` (times ``radius_blowup``); beyond the largest
        calibrated radius, scaled in proportion.
        """
        return self.search_.embedding_threshold(radius, self.radius_blowup)

    @reads_fitted_state
    def radius_neighbors_graph(self, X=None, radius=None, mode="connectivity", sort_results=False):
        """Sparse graph of the items within ``radius`` of each query.

        Parameters
        ----------
        X : array-like, default=None
            Queries; ``None`` uses the fitted samples (excluding self).
        radius : float, default=None
            Exact-distance radius; defaults to the constructor's value.
        mode : {"connectivity", "distance"}, default="connectivity"
            Ones, or the exact distances, as edge values.
        sort_results : bool, default=False
            Sort each row's entries by distance.

        Returns
        -------
        graph : sparse matrix in CSR format, shape (n_queries, n_samples_fit)
        """
        if mode not in ("connectivity", "distance"):
            raise ValueError(f'mode must be "connectivity" or "distance", got {mode!r}.')
        neigh_dist, neigh_ind = self.radius_neighbors(X, radius, sort_results=sort_results)
        counts = np.fromiter(map(len, neigh_ind), dtype=np.int64, count=len(neigh_ind))
        indptr = np.concatenate([[0], np.cumsum(counts)])
        indices = np.concatenate(list(neigh_ind)) if len(neigh_ind) else np.empty(0, np.int64)
        data = np.concatenate(list(neigh_dist)) if mode == "distance" else np.ones(indices.size)
        return sparse.csr_matrix(
            (data, indices, indptr), shape=(len(neigh_ind), self.n_samples_fit_)
        )


def _sorted_rows(found, sort_results):
    """Object arrays of each query's distances and indices, by distance then index."""
    neigh_dist = np.empty(len(found), dtype=object)
    neigh_ind = np.empty(len(found), dtype=object)
    for row, (indices, distances) in enumerate(found):
        if sort_results:
            order = np.lexsort((indices, distances))
            indices, distances = indices[order], distances[order]
        neigh_ind[row], neigh_dist[row] = indices, distances
    return neigh_dist, neigh_ind
