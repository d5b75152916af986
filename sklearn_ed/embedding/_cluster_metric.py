"""Minimum-cluster-distortion Mahalanobis metric (Mochihashi, Kikui and Kita 2004).

The metric matrix is the closed-form solution of

    min_M  sum_i xi*_i sum_{s in X_i} (s - c_i)^T M (s - c_i)   s.t.  |M| = 1,

namely ``M = |A|^(1/n) A^-1`` with ``A`` the (weighted) within-cluster
scatter matrix (eqs. 4-7 of the paper), or ``(sigma_1 ... sigma_R)^(1/R) A^+``
when ``A`` is singular (Appendix B).
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils import saved_class

__all__ = ["ClusterMetricLearner"]


@saved_class(formerly=("sklearn_ed._cluster_metric.ClusterMetricLearner",))
class ClusterMetricLearner(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Global Mahalanobis metric that minimises within-cluster distortion.

    Learns the metric matrix ``M`` of the distance
    ``d_M(u, v)^2 = (u - v)^T M (u - v)`` that minimises the summed squared
    distance of every training sample to the centroid of its cluster, under
    the scale constraint ``|M| = 1``. The solution is closed form,
    ``M = |A|^(1/n) A^-1``, where ``A`` is the within-cluster scatter matrix
    summed over clusters. When ``A`` is singular (the usual case for text
    features) the pseudo-inverse is used and the determinant is replaced by
    the product of the ``R = rank(A)`` non-zero eigenvalues:
    ``M = (sigma_1 ... sigma_R)^(1/R) A^+``.

    ``transform`` maps ``X`` to ``X @ components_.T`` with
    ``components_.T @ components_ = M``, so Euclidean distances after the
    transform are the learned Mahalanobis distances.

    Read more in the :ref:`User Guide <cluster_metric>`.

    Parameters
    ----------
    n_components : int, default=None
        Number of directions to keep. ``None`` keeps the full metric and
        ``components_`` is the symmetric square root ``M^(1/2)`` (as many
        outputs as input features). An integer ``k`` keeps the ``k``
        directions with the largest eigenvalues of ``M`` (the directions in
        which the clusters are tightest); ``components_`` then has ``k`` rows
        and ``components_.T @ components_`` is the rank-``k`` truncation of
        the full ``M`` (same scale, not renormalised).

    cluster_weights : {"size", "balanced"}, dict, array-like or None, default=None
        Confidences ``xi_i`` of the clusters (section 4.3 of the paper). Each
        ``xi_i`` multiplies the *summed* scatter of cluster ``i`` and the
        weights are normalised to ``xi_i / sum_j xi_j``.

        - ``None``: ``xi_i = 1`` (equation 7; every sample counts once, so a
          cluster's influence grows with its size);
        - ``"size"``: ``xi_i = |X_i|`` (small clusters are considered weak);
        - ``"balanced"``: ``xi_i = 1 / |X_i|`` (every cluster contributes its
          covariance equally, whatever its size);
        - dict ``{label: weight}`` covering every label of ``y``, or an
          array of shape ``(n_clusters,)`` aligned with ``classes_`` (the
          sorted unique labels). Weights must be non-negative and not all
          zero; a cluster of weight 0 is ignored.

    tol : float, default=None
        Relative threshold under which an eigenvalue of ``A`` counts as zero:
        eigenvalues ``<= tol * max_eigenvalue`` span the null space that the
        pseudo-inverse discards. ``None`` uses ``n_features * eps`` (as
        :func:`numpy.linalg.matrix_rank`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_out, n_features)
        Linear map ``L`` with ``L.T @ L = M``: the symmetric square root
        ``M^(1/2)`` when ``n_components`` is None, otherwise the leading
        eigen-directions of ``M`` scaled by the square roots of their
        eigenvalues. Its dtype follows the training data (float32 or float64).

    classes_ : ndarray of shape (n_clusters,)
        The cluster labels seen in ``fit`` (sorted).

    rank_ : int
        Rank ``R`` of the within-cluster scatter matrix ``A``. ``rank_ <
        n_features_in_`` means that ``A`` was singular and the pseudo-inverse
        was used.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (n_features,)
        Names of features seen during ``fit``. Defined only when ``X`` has
        feature names that are all strings.

    See Also
    --------
    sklearn.neighbors.NeighborhoodComponentsAnalysis : Iterative supervised
        metric learning for nearest-neighbor classification.
    sklearn.decomposition.TruncatedSVD : The dimensionality reduction the
        paper applies first to sparse text features.

    Notes
    -----
    The whole fit is one pass to build the scatter matrix (centred data for
    dense input; ``X^T W X - C^T W' C`` for sparse input, so the sparse
    ``n_samples x n_features`` matrix is never densified), one
    ``n_features x n_features`` symmetric eigendecomposition, and the
    determinant normalisation computed as the mean of the log-eigenvalues, so
    it neither overflows nor underflows. The cost is
    ``O(n_samples n_features^2 + n_features^3)``: reduce very wide (text)
    features with :class:`~sklearn.decomposition.TruncatedSVD` first, as the
    paper does.

    ``M`` does not change when the data are multiplied by a constant. With
    ``cluster_weights=None`` and a non-singular ``A`` it is proportional to
    the metric of Relevant Component Analysis (the inverse of the pooled
    within-cluster covariance), so both rank neighbors identically.

    References
    ----------
    .. [1] Mochihashi, Kikui and Kita, "Learning an optimal distance metric
       in a linguistic vector space", 2004 (EMNLP 2004).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed import ClusterMetricLearner
    >>> rng = np.random.RandomState(0)
    >>> y = np.repeat(np.arange(20), 5)
    >>> centers = rng.normal(size=(20, 3)) * [5.0, 5.0, 0.1]
    >>> X = centers[y] + rng.normal(size=(100, 3)) * [3.0, 0.1, 0.1]
    >>> cml = ClusterMetricLearner().fit(X, y)
    >>> M = cml.get_mahalanobis_matrix()
    >>> round(float(np.linalg.det(M)), 6)
    1.0
    >>> cml.transform(X).shape
    (100, 3)
    >>> cml.pair_distance(X[:2], X[1:3]).shape
    (2,)
    """

    # What save() writes besides the parameters (sklearn_ed.load refuses others).
    __sklearn_ed_saved__ = (
        "classes_",
        "components_",
        "rank_",
        "n_features_in_",
        "feature_names_in_",
    )

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "cluster_weights": [StrOptions({"size", "balanced"}), dict, "array-like", None],
        "tol": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(self, n_components=None, cluster_weights=None, tol=None):
        self.n_components = n_components
        self.cluster_weights = cluster_weights
        self.tol = tol

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the metric from clustered samples.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors. Sparse input is never densified row-wise.

        y : array-like of shape (n_samples,)
            Cluster label of every sample. Clusters may be many and small;
            at least two clusters and one cluster with two distinct samples
            are needed.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse=("csr", "csc"),
            dtype=[np.float64, np.float32],
            ensure_min_samples=2,
        )
        # Not check_classification_targets: many small clusters are normal here
        # and must not trigger its "more than 50% unique classes" warning.
        target_type = type_of_target(y, input_name="y")
        if target_type not in ("binary", "multiclass"):
            raise ValueError(
                f"Unknown label type: {target_type!r}. y must hold discrete cluster "
                "labels (ints or strings), one per sample."
            )
        if self.n_components is not None and self.n_components > X.shape[1]:
            raise ValueError(
                f"n_components={self.n_components} must be <= n_features={X.shape[1]}."
            )
        return self._fit(X, y)

    def _fit(self, X, y):
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        n_clusters = len(self.classes_)
        if n_clusters < 2:
            raise ValueError(
                "ClusterMetricLearner needs at least 2 clusters in y, got 1 "
                f"({self.classes_[0]!r}). With a single cluster the metric is the "
                "ordinary (inverse covariance) Mahalanobis distance, which is not "
                "learned from cluster structure."
            )
        counts = np.bincount(y_idx, minlength=n_clusters)
        xi = self._normalised_cluster_weights(counts)
        scatter = _within_cluster_scatter(X, y_idx, counts, xi)

        eigvals, eigvecs = np.linalg.eigh(scatter)  # ascending order
        tol = X.shape[1] * np.finfo(np.float64).eps if self.tol is None else self.tol
        positive = eigvals > tol * max(eigvals[-1], 0.0)
        self.rank_ = int(positive.sum())
        if self.rank_ == 0:
            raise ValueError(
                "The within-cluster scatter matrix is zero: no cluster has two "
                "distinct samples (with non-zero weight), so no metric can be learned."
            )
        # Largest eigenvalues of M = smallest positive eigenvalues of A first.
        sigma, U = eigvals[positive], eigvecs[:, positive]
        log_sigma = np.log(sigma)
        # M = exp(mean log sigma) * U diag(1/sigma) U^T, computed in log space.
        sqrt_m_eig = np.exp(0.5 * (log_sigma.mean() - log_sigma))
        if self.n_components is None:
            components = (U * sqrt_m_eig) @ U.T
        else:
            components = np.zeros((self.n_components, X.shape[1]))
            k = min(self.n_components, self.rank_)
            components[:k] = (U[:, :k] * sqrt_m_eig[:k]).T
        self.components_ = components.astype(X.dtype, copy=False)
        return self

    def _normalised_cluster_weights(self, counts):
        """Return xi*_i = xi_i / sum_j xi_j for the clusters in ``classes_``."""
        weights = self.cluster_weights
        if weights is None:
            xi = np.ones(len(counts))
        elif isinstance(weights, str):
            xi = counts.astype(np.float64)
            if weights == "balanced":
                xi = 1.0 / xi
        elif isinstance(weights, dict):
            missing = [c for c in self.classes_.tolist() if c not in weights]
            if missing:
                raise ValueError(
                    f"cluster_weights has no weight for cluster label(s) {missing[:5]}"
                    f"{' ...' if len(missing) > 5 else ''}."
                )
            xi = np.array([weights[c] for c in self.classes_.tolist()], dtype=np.float64)
        else:
            xi = np.asarray(weights, dtype=np.float64)
            if xi.shape != counts.shape:
                raise ValueError(
                    "cluster_weights as an array must have shape (n_clusters,) = "
                    f"{counts.shape} (one weight per label of classes_), got {xi.shape}."
                )
        if not np.all(np.isfinite(xi)) or np.any(xi < 0) or xi.sum() <= 0:
            raise ValueError("cluster_weights must be finite, non-negative and not all zero.")
        return xi / xi.sum()

    def transform(self, X):
        """Map ``X`` into the metric space: ``X @ components_.T``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Vectors to transform.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components_out)
            Transformed vectors; their Euclidean distances are the learned
            Mahalanobis distances.
        """
        check_is_fitted(self)
        X = validate_data(
            self, X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32], reset=False
        )
        return np.asarray(X @ self.components_.T)

    def get_mahalanobis_matrix(self):
        """Return the metric matrix ``M = components_.T @ components_``.

        Returns
        -------
        M : ndarray of shape (n_features, n_features)
            Symmetric positive semi-definite metric matrix.
        """
        check_is_fitted(self)
        return self.components_.T @ self.components_

    def pair_distance(self, X1, X2):
        """Row-wise learned distances ``d_M(X1[i], X2[i])``.

        Parameters
        ----------
        X1, X2 : {array-like, sparse matrix} of shape (n_pairs, n_features)
            The two members of each pair.

        Returns
        -------
        distances : ndarray of shape (n_pairs,)
            ``sqrt((X1[i] - X2[i])^T M (X1[i] - X2[i]))``.
        """
        check_is_fitted(self)
        kwargs = dict(accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32], reset=False)
        X1 = validate_data(self, X1, **kwargs)
        X2 = validate_data(self, X2, **kwargs)
        if X1.shape != X2.shape:
            raise ValueError(f"X1 and X2 must have the same shape, got {X1.shape} and {X2.shape}.")
        diff = np.asarray((X1 - X2) @ self.components_.T)
        return np.sqrt(np.einsum("ij,ij->i", diff, diff))

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


def _within_cluster_scatter(X, y_idx, counts, xi):
    """Weighted within-cluster scatter ``A = sum_i xi_i sum_{s in X_i} (s-c_i)(s-c_i)^T``.

    ``y_idx`` holds cluster indices in ``[0, n_clusters)``, ``counts`` the
    cluster sizes and ``xi`` the (normalised) cluster weights. Returns a dense
    float64 ``(n_features, n_features)`` matrix.
    """
    n_samples, n_clusters = len(y_idx), len(counts)
    indicator = sp.csr_matrix(
        (np.ones(n_samples), (np.arange(n_samples), y_idx)), shape=(n_samples, n_clusters)
    )
    sums = indicator.T @ X  # (n_clusters, n_features); sparse when X is sparse
    if sp.issparse(X):
        # sum_j w_j s_j s_j^T - sum_i (xi_i / |X_i|) S_i S_i^T, S_i = sum of cluster i.
        X = X.astype(np.float64, copy=False)
        weighted = sp.diags(xi[y_idx]) @ X
        first = (X.T @ weighted).toarray()
        sums = sp.csr_matrix(sums, dtype=np.float64)
        second = (sums.T @ (sp.diags(xi / counts) @ sums)).toarray()
        scatter = first - second
        return 0.5 * (scatter + scatter.T)
    means = np.asarray(sums, dtype=np.float64) / counts[:, None]
    centred = np.asarray(X, dtype=np.float64) - means[y_idx]
    centred *= np.sqrt(xi)[y_idx, None]
    return centred.T @ centred  # numpy dispatches a.T @ a to a symmetric rank-k update
