"""FastMap (Faloutsos and Lin, 1995): a metric-agnostic vector embedding."""

from numbers import Integral

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from ..distances import Metric, declare_metric_input, get_metric, pairwise_distances
from ..utils import check_strings, saved_class


@saved_class(formerly=("sklearn_ed._fastmap.FastMapEmbedder",))
class FastMapEmbedder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Embed objects under any metric by projections onto pivot lines.

    For each output coordinate FastMap picks two far-apart pivot objects
    ``a`` and ``b`` (a random object, the farthest from it, the farthest from
    that) and projects every object onto the line through them with the
    cosine law, using the distance that remains after the previous
    coordinates: ``d_k(x, y)^2 = d(x, y)^2 - sum_{i<k} (x_i - y_i)^2``.
    Embedding a new object costs ``2 * n_components`` exact distances.

    Non-metric distances (DTW, chamfer) can make ``d_k^2`` negative; it is
    clipped at zero, the usual remedy.

    Parameters
    ----------
    metric : str, Metric or callable, default="levenshtein"
        Exact distance (see :func:`sklearn_ed.distances.available_metrics`).
    n_components : int, default=16
        Output dimension.
    n_pivot_iterations : int, default=5
        Rounds of the "farthest from the current pivot" heuristic.
    n_jobs : int, default=None
        Parallel jobs of the exact distances.
    random_state : int, RandomState instance or None, default=None
        Seeds the first object of every pivot search.

    Attributes
    ----------
    pivots_ : list of tuple
        The ``(a, b)`` pivot objects of each coordinate.
    pivot_coordinates_ : ndarray of shape (n_components, 2, n_components)
        Coordinates of the pivots (needed to embed new objects).
    pivot_distances_ : ndarray of shape (n_components,)
        Residual distance between the two pivots of each coordinate.
    n_features_out_ : int
        Output dimension (``n_components``).

    References
    ----------
    C. Faloutsos, K.-I. Lin. "FastMap: a fast algorithm for indexing,
    data-mining and visualization of traditional and multimedia datasets",
    SIGMOD 1995.

    Examples
    --------
    >>> from sklearn_ed import FastMapEmbedder
    >>> words = ["kitten", "sitting", "mitten", "fitting", "bitten", "knitting"]
    >>> FastMapEmbedder(n_components=2, random_state=0).fit_transform(words).shape
    (6, 2)
    """

    # What save() writes besides the parameters (sklearn_ed.load refuses others).
    __sklearn_ed_saved__ = (
        "_metric",
        "input_shape_",
        "n_features_in_",
        "feature_names_in_",
        "n_features_out_",
        "pivots_",
        "pivot_coordinates_",
        "pivot_distances_",
    )

    embedding_metric = "euclidean"

    _parameter_constraints: dict = {
        "metric": [str, callable, Metric],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_pivot_iterations": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        metric="levenshtein",
        n_components=16,
        n_pivot_iterations=5,
        n_jobs=None,
        random_state=None,
    ):
        self.metric = metric
        self.n_components = n_components
        self.n_pivot_iterations = n_pivot_iterations
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _validate_objects(self, X, reset):
        if self._metric.input_type == "strings":
            return check_strings(X)
        if self._metric.input_type == "vectors":
            return validate_data(self, X, reset=reset, dtype=np.float64)
        objects = list(X)
        if not objects:
            raise ValueError("X contains 0 samples; at least one sample is required.")
        return objects

    def _distances(self, X, Y):
        return pairwise_distances(X, Y, metric=self._metric, n_jobs=self.n_jobs).astype(np.float64)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Choose the pivots and the coordinates of the training objects.

        Parameters
        ----------
        X : collection of objects of the metric's kind
            Training objects.
        y : None
            Ignored.

        Returns
        -------
        self : FastMapEmbedder
            Fitted embedder.
        """
        self._metric = get_metric(self.metric)
        objects = self._validate_objects(X, reset=True)
        self._fit(objects)
        return self

    def _fit(self, objects):
        rng = check_random_state(self.random_state)
        n_samples, n_components = len(objects), self.n_components
        coordinates = np.zeros((n_samples, n_components))
        self.pivots_, self.pivot_coordinates_ = [], np.zeros((n_components, 2, n_components))
        self.pivot_distances_ = np.zeros(n_components)
        for k in range(n_components):
            a, b, to_a, to_b = self._choose_pivots(objects, coordinates, k, rng)
            self.pivots_.append((objects[a], objects[b]))
            self.pivot_coordinates_[k] = coordinates[[a, b]]
            pivot_distance = np.sqrt(
                _residual(to_a[[b]] ** 2, coordinates[[a]], coordinates[[b]], k)[0]
            )
            self.pivot_distances_[k] = pivot_distance
            coordinates[:, k] = _project(
                to_a, to_b, pivot_distance, coordinates, self.pivot_coordinates_[k], k
            )
        self.n_features_out_ = n_components

    def _choose_pivots(self, objects, coordinates, k, rng):
        a = rng.randint(len(objects))
        for _ in range(self.n_pivot_iterations):
            to_a = self._distances([objects[a]], objects)[0]
            b = int(np.argmax(_residual(to_a**2, coordinates[[a]], coordinates, k)))
            to_b = self._distances([objects[b]], objects)[0]
            next_a = int(np.argmax(_residual(to_b**2, coordinates[[b]], coordinates, k)))
            if next_a == a:
                break
            a = next_a
        to_a = self._distances([objects[a]], objects)[0]
        return a, b, to_a, to_b

    def transform(self, X):
        """Coordinates of new objects (2 exact distances per coordinate).

        Parameters
        ----------
        X : collection of objects of the metric's kind
            Objects to embed.

        Returns
        -------
        X_new : ndarray of float32, shape (n_samples, n_components)
        """
        check_is_fitted(self)
        objects = self._validate_objects(X, reset=False)
        coordinates = np.zeros((len(objects), self.n_components))
        pivots_a = [a for a, _ in self.pivots_]
        pivots_b = [b for _, b in self.pivots_]
        to_a = self._distances(objects, pivots_a)
        to_b = self._distances(objects, pivots_b)
        for k in range(self.n_components):
            coordinates[:, k] = _project(
                to_a[:, k],
                to_b[:, k],
                self.pivot_distances_[k],
                coordinates,
                self.pivot_coordinates_[k],
                k,
            )
        return coordinates.astype(np.float32)

    @property
    def _n_features_out(self):
        return self.n_features_out_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float32"]  # always float32 out
        return declare_metric_input(tags, self.metric)


def _residual(squared, pivot_coordinates, coordinates, k):
    """Squared distance left after the first k coordinates (clipped at zero)."""
    gap = coordinates[:, :k] - pivot_coordinates[:, :k]
    return np.maximum(squared - np.einsum("ij,ij->i", gap, gap), 0.0)


def _project(to_a, to_b, pivot_distance, coordinates, pivots, k):
    """Cosine-law projection onto the pivot line, on residual distances."""
    if pivot_distance == 0:
        return np.zeros(len(to_a))
    residual_a = _residual(to_a**2, pivots[[0]], coordinates, k)
    residual_b = _residual(to_b**2, pivots[[1]], coordinates, k)
    return (residual_a + pivot_distance**2 - residual_b) / (2 * pivot_distance)
