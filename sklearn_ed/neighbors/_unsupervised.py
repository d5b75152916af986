"""FilterRefineNeighbors: unsupervised filter-and-refine neighbour search."""

from numbers import Real

import numpy as np
from scipy import sparse
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ..distances import candidate_distances
from ..index import paired_embedding_distances
from ..utils import take_items
from ._base import QUERY_BATCH_SIZE, FilterRefineBase, _batches

# Radius calibration: anchors, and near and random partners per anchor.
_CALIBRATION_ANCHORS = 128
_CALIBRATION_PARTNERS = 4
from ._exact import bounded_items


class FilterRefineNeighbors(FilterRefineBase):
    """Nearest neighbours under an expensive metric, filtered by an embedding.

    The embedder maps every item to a vector; queries take the
    ``n_candidates`` nearest base items in that cheap vector space (filter),
    then the exact ``metric`` ranks the candidates (refine). Returned
    distances are exact. With ``n_candidates >= n_samples_fit_`` the result
    equals exact brute-force search, ties broken by base index.

    Parameters
    ----------
    embedder : transformer, default=None
        Fitted on the base set in ``fit`` (a clone is used). Its
        ``embedding_metric`` attribute ("euclidean" by default, "hamming" for
        :class:`~sklearn_ed.CGKEmbedder`) sets the filter distance. ``None``
        means ``CGKEmbedder(random_state=random_state)`` for string metrics
        and the identity for vector metrics.
    metric : str, Metric or callable, default="levenshtein"
        Exact distance: a name from :func:`sklearn_ed.distances.available_metrics`,
        a :class:`~sklearn_ed.distances.Metric`, or ``metric(x, y) -> float``.
    n_neighbors : int, default=5
        Default number of neighbours of :meth:`kneighbors`.
    radius : float, default=1.0
        Default radius of :meth:`radius_neighbors`.
    n_candidates : int or float, default=100
        Candidates refined per query: a count, or a fraction in (0, 1] of
        the fitted samples. Capped at the number of fitted samples.
    radius_blowup : float, default=1.5
        ``mu`` of threshold search (Algorithm 2 of the CNN-ED paper):
        candidates of a radius query are the items whose embedding distance
        is at most ``mu * g(radius)``, with ``g`` the linear calibration of
        embedding distance against exact distance learned at fit. ``inf``
        verifies every item (exact radius search).
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
        Seeds the default embedder, the calibration sample and NNDescent.

    Attributes
    ----------
    embedder_ : transformer
        The fitted clone of ``embedder``.
    embedding_metric_ : {"euclidean", "hamming"}
        Filter distance.
    effective_metric_ : str
        Name of the exact metric.
    n_samples_fit_ : int
        Number of fitted samples.
    index_ : BaseIndex
        The filter's vector index over the embedded base set.
    calibration_ : ndarray of shape (2,)
        Slope and intercept of embedding distance against exact distance,
        learned at fit from up to 128 random anchors, each paired with its 4
        nearest and 4 random items.
    n_features_in_ : int
        Number of features (numeric input only).

    See Also
    --------
    FilterRefineClassifier : Classification by filtered nearest neighbours.
    FilterRefineTransformer : Sparse neighbour graph for precomputed-metric estimators.

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

    _parameter_constraints: dict = {
        **FilterRefineBase._parameter_constraints,
        "radius": [Interval(Real, 0, None, closed="left")],
        "radius_blowup": [Interval(Real, 1, None, closed="both")],
    }

    def __init__(self, embedder=None, *, metric="levenshtein", n_neighbors=5, radius=1.0,
                 n_candidates=100, radius_blowup=1.5, filter_algorithm="auto",
                 index_params=None, exact=False, n_jobs=None, random_state=None):
        super().__init__(embedder, metric=metric, n_neighbors=n_neighbors,
                         n_candidates=n_candidates, filter_algorithm=filter_algorithm,
                         index_params=index_params, n_jobs=n_jobs,
                         exact=exact, random_state=random_state)
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
        self._fit(self._validate_X(X, reset=True))
        self.calibration_ = self._fit_radius_calibration()
        return self

    def partial_fit(self, X, y=None):
        """Append items to the fitted base without refitting the embedder.

        The new items are embedded by the fitted ``embedder_`` and added to
        the index; they get the next indices. With ``filter_algorithm="brute"``
        ``fit(A).partial_fit(B)`` answers queries exactly as a fit on A + B
        with the same fitted embedder.

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

    def radius_neighbors(self, X=None, radius=None, return_distance=True, sort_results=False):
        """Items within ``radius`` of each query under the exact metric.

        Threshold search: candidates are the items whose embedding distance is
        at most ``radius_blowup * g(radius)`` (``g``: fitted calibration);
        each candidate is verified with the exact metric. With
        ``exact=True`` the candidates are instead every item whose lower
        bound of the metric is at most ``radius``: the result is exact.

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
        queries, exclude = self._queries(X)
        threshold = self._embedding_threshold(radius)
        neigh_dist = np.empty(len(queries), dtype=object)
        neigh_ind = np.empty(len(queries), dtype=object)
        for rows in _batches(len(queries), QUERY_BATCH_SIZE):
            batch = take_items(queries, np.arange(rows.start, rows.stop))
            batch_exclude = None if exclude is None else exclude[rows]
            if self.exact:  # every item the metric's lower bound cannot rule out
                found = list(_within(self, batch, batch_exclude, radius))
            else:
                found = self.index_.range_search(self._embed(batch), threshold, batch_exclude)
            neigh_dist[rows], neigh_ind[rows] = self._verify_radius(batch, found, radius,
                                                                    sort_results)
        return (neigh_dist, neigh_ind) if return_distance else neigh_ind

    def _verify_radius(self, queries, found, radius, sort_results):
        """Exact distances to the radius candidates; keep those within ``radius``."""
        width = max((len(hits) for hits in found), default=0)
        candidates = np.full((len(found), width), -1, dtype=np.int64)
        for row, hits in enumerate(found):
            candidates[row, :len(hits)] = hits
        exact = candidate_distances(queries, self._fit_X, candidates, self._metric_spec,
                                    score_cutoff=np.full(len(found), float(radius)),
                                    n_jobs=self.n_jobs)
        neigh_dist = np.empty(len(found), dtype=object)
        neigh_ind = np.empty(len(found), dtype=object)
        for row in range(len(found)):
            keep = np.flatnonzero(exact[row] <= radius)
            indices, distances = candidates[row, keep], exact[row, keep]
            if sort_results:
                order = np.lexsort((indices, distances))
                indices, distances = indices[order], distances[order]
            neigh_ind[row], neigh_dist[row] = indices, distances
        return neigh_dist, neigh_ind

    def _fit_radius_calibration(self):
        """Linear fit of embedding distance against exact distance.

        Pairs: each of up to 128 random anchors with its 4 nearest items in
        the embedding and 4 random items, so both close and typical pairs
        count.
        """
        n_samples = self.n_samples_fit_
        if n_samples < 2:
            return np.array([1.0, 0.0])
        rng = check_random_state(self.random_state)
        anchors = rng.choice(n_samples, size=min(_CALIBRATION_ANCHORS, n_samples), replace=False)
        n_near = min(_CALIBRATION_PARTNERS, n_samples - 1)
        anchor_items = take_items(self._fit_X, anchors)
        anchor_embedding = self._embed(anchor_items)
        _, near = self.index_.search(anchor_embedding, n_near, exclude=anchors)
        far = rng.randint(0, n_samples, size=(len(anchors), _CALIBRATION_PARTNERS))
        partners = np.hstack([np.where(near < 0, far[:, :1], near), far])
        exact = candidate_distances(anchor_items, self._fit_X, partners,
                                    self._metric_spec, n_jobs=self.n_jobs).ravel()
        partner_embedding = self._embed(take_items(self._fit_X, partners.ravel()))
        anchor_rows = np.repeat(np.arange(len(anchors)), partners.shape[1])
        embedded = paired_embedding_distances(anchor_embedding[anchor_rows],
                                              partner_embedding, self.embedding_metric_)
        if np.ptp(exact) == 0:
            scale = embedded.mean() / max(exact.mean(), 1e-12)
            return np.array([scale, 0.0])
        return np.polyfit(exact, embedded, deg=1)

    def _embedding_threshold(self, radius):
        slope, intercept = self.calibration_
        return self.radius_blowup * max(slope * radius + intercept, 0.0)

    def radius_neighbors_graph(self, X=None, radius=None, mode="connectivity",
                               sort_results=False):
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
        data = (np.concatenate(list(neigh_dist)) if mode == "distance"
                else np.ones(indices.size))
        return sparse.csr_matrix((data, indices, indptr),
                                 shape=(len(neigh_ind), self.n_samples_fit_))


def _within(search, queries, exclude, radius):
    """Items whose lower bound is at most ``radius``, per query (exact radius search)."""
    limits = np.full(len(queries), float(radius))
    return [items for items, _ in bounded_items(search, queries, limits, exclude)]
