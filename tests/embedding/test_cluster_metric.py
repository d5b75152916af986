"""Tests of ClusterMetricLearner (Mochihashi, Kikui and Kita 2004)."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.decomposition import TruncatedSVD
from sklearn.metrics import pairwise_distances
from sklearn.pipeline import make_pipeline
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_ed import ClusterMetricLearner
from sklearn_ed.metrics import r_precision


def _clusters(n_clusters=6, size=5, n_features=3, seed=0, noise=(2.0, 0.5, 0.1)):
    """Clusters sharing an anisotropic, correlated within-cluster distortion."""
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(n_clusters), size)
    mixing = rng.normal(size=(n_features, n_features)) * np.resize(noise, n_features)
    X = (
        3 * rng.normal(size=(n_clusters, n_features))[y]
        + rng.normal(size=(len(y), n_features)) @ mixing
    )
    return X, y


def _scatter_by_loops(X, y, weights=None):
    """Equation (7) written literally, one cluster and one sample at a time."""
    labels = np.unique(y)
    weights = np.ones(len(labels)) if weights is None else np.asarray(weights, float)
    weights = weights / weights.sum()
    A = np.zeros((X.shape[1], X.shape[1]))
    for w, label in zip(weights, labels):
        members = X[y == label]
        c = members.mean(axis=0)
        for s in members:
            A += w * np.outer(s - c, s - c)
    return A


def _distortion(M, X, y):
    """Objective (4): sum over clusters of squared M-distances to the centroid."""
    total = 0.0
    for label in np.unique(y):
        d = X[y == label] - X[y == label].mean(axis=0)
        total += np.einsum("ij,jk,ik->", d, M, d)
    return total


# --------------------------------------------------------------------------
# sklearn compatibility


@parametrize_with_checks(
    [
        ClusterMetricLearner(),
        ClusterMetricLearner(n_components=1),
        ClusterMetricLearner(cluster_weights="balanced"),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------
# the closed form


def test_closed_form_minimises_cluster_distortion_under_unit_determinant():
    X, y = _clusters()
    M = ClusterMetricLearner().fit(X, y).get_mahalanobis_matrix()
    n = X.shape[1]

    def objective(b):
        B = b.reshape(n, n)
        P = B @ B.T
        return _distortion(P / np.linalg.det(P) ** (1 / n), X, y)

    result = minimize(objective, np.eye(n).ravel(), method="BFGS", options={"gtol": 1e-10})
    B = result.x.reshape(n, n)
    M_numeric = B @ B.T / np.linalg.det(B @ B.T) ** (1 / n)

    assert np.linalg.det(M) == pytest.approx(1.0)
    np.testing.assert_allclose(M, M_numeric, rtol=1e-4, atol=1e-5)
    assert _distortion(M, X, y) <= result.fun * (1 + 1e-10)
    # The minimum value is n |A|^(1/n) (trace of |A|^(1/n) A^-1 A).
    A = _scatter_by_loops(X, y) * len(np.unique(y))  # unweighted eq. (7)
    assert _distortion(M, X, y) == pytest.approx(n * np.linalg.det(A) ** (1 / n))


def test_matches_equation_6_and_components_are_the_square_root():
    X, y = _clusters(n_features=4, seed=1)
    cml = ClusterMetricLearner().fit(X, y)
    A = _scatter_by_loops(X, y)
    expected = np.linalg.det(A) ** (1 / 4) * np.linalg.inv(A)
    np.testing.assert_allclose(cml.get_mahalanobis_matrix(), expected, rtol=1e-10)
    L = cml.components_
    np.testing.assert_allclose(L, L.T, atol=1e-12)  # symmetric M^(1/2)
    np.testing.assert_allclose(cml.transform(X), X @ L.T)
    assert cml.rank_ == 4
    np.testing.assert_array_equal(cml.classes_, np.arange(6))


def test_singular_scatter_uses_pseudo_inverse_with_pseudo_determinant():
    X, y = _clusters(n_features=3, seed=2)
    # A fourth feature that is a combination of the others: A has rank 3.
    X = np.column_stack([X, X[:, 0] - 2 * X[:, 1]])
    cml = ClusterMetricLearner().fit(X, y)
    A = _scatter_by_loops(X, y)
    sigma = np.linalg.eigvalsh(A)[1:]
    expected = np.prod(sigma) ** (1 / 3) * np.linalg.pinv(A, rcond=1e-10)
    M = cml.get_mahalanobis_matrix()
    assert cml.rank_ == 3
    np.testing.assert_allclose(M, expected, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(M @ [1.0, -2.0, 0.0, -1.0], 0, atol=1e-10)
    nonzero = np.linalg.eigvalsh(M)[1:]
    assert np.prod(nonzero) == pytest.approx(1.0)


def test_more_features_than_samples_like_text():
    rng = np.random.RandomState(3)
    y = np.repeat(np.arange(4), 3)
    X = rng.normal(size=(12, 30))
    cml = ClusterMetricLearner().fit(X, y)
    assert cml.rank_ == 12 - 4  # one lost degree of freedom per centroid
    assert np.all(np.isfinite(cml.components_))


@pytest.mark.parametrize("scale", [1e-120, 1e120])
def test_log_space_normalisation_neither_overflows_nor_underflows(scale):
    X, y = _clusters(n_clusters=8, size=6, n_features=12, seed=4, noise=1.0)
    # |A| is about scale**24: it would overflow / underflow computed directly.
    M = ClusterMetricLearner().fit(X, y).get_mahalanobis_matrix()
    M_scaled = ClusterMetricLearner().fit(X * scale, y).get_mahalanobis_matrix()
    np.testing.assert_allclose(M_scaled, M, rtol=1e-8)


def test_float32_input_gives_float32_output_close_to_float64():
    X, y = _clusters(seed=5)
    cml64 = ClusterMetricLearner().fit(X, y)
    cml32 = ClusterMetricLearner().fit(X.astype(np.float32), y)
    assert cml32.components_.dtype == np.float32
    assert cml32.transform(X.astype(np.float32)).dtype == np.float32
    np.testing.assert_allclose(cml32.components_, cml64.components_, rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------
# sparse input, weights, n_components


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("cluster_weights", [None, "size"])
def test_sparse_input_equals_dense(fmt, cluster_weights):
    rng = np.random.RandomState(6)
    X = sp.random(200, 15, density=0.3, format=fmt, random_state=rng)
    y = rng.randint(0, 25, size=200)
    dense = ClusterMetricLearner(cluster_weights=cluster_weights).fit(X.toarray(), y)
    sparse = ClusterMetricLearner(cluster_weights=cluster_weights).fit(X, y)
    np.testing.assert_allclose(sparse.components_, dense.components_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(sparse.transform(X), dense.transform(X.toarray()), atol=1e-10)


def test_integer_cluster_weights_equal_duplicating_the_cluster():
    X, y = _clusters(n_clusters=3, seed=7)
    weighted = ClusterMetricLearner(cluster_weights=[1, 2, 3]).fit(X, y)
    repeat = np.repeat(np.arange(len(y)), y + 1)  # cluster k repeated k + 1 times
    duplicated = ClusterMetricLearner().fit(X[repeat], y[repeat])
    np.testing.assert_allclose(weighted.components_, duplicated.components_, rtol=1e-10)
    as_dict = ClusterMetricLearner(cluster_weights={0: 10, 1: 20, 2: 30}).fit(X, y)
    np.testing.assert_allclose(
        weighted.get_mahalanobis_matrix(), as_dict.get_mahalanobis_matrix(), rtol=1e-10
    )


def test_cluster_weight_options_match_the_weighted_scatter():
    X, y = _clusters(n_clusters=4, size=3, seed=8)
    X, y = np.vstack([X, X[:5] + 0.3]), np.concatenate([y, [0, 0, 0, 1, 1]])  # unequal sizes
    counts = np.bincount(y)
    for option, xi in [(None, None), ("size", counts), ("balanced", 1.0 / counts)]:
        A = _scatter_by_loops(X, y, xi)
        expected = np.linalg.det(A) ** (1 / 3) * np.linalg.inv(A)
        M = ClusterMetricLearner(cluster_weights=option).fit(X, y).get_mahalanobis_matrix()
        np.testing.assert_allclose(M, expected, rtol=1e-10, err_msg=str(option))


def test_zero_weight_cluster_is_ignored():
    X, y = _clusters(n_clusters=4, seed=9)
    weighted = ClusterMetricLearner(cluster_weights=[1, 1, 0, 1]).fit(X, y)
    dropped = ClusterMetricLearner().fit(X[y != 2], y[y != 2])
    np.testing.assert_allclose(weighted.components_, dropped.components_, rtol=1e-10)


def test_n_components_keeps_the_leading_directions_of_m():
    X, y = _clusters(n_features=5, seed=10, noise=(3.0, 1.0, 0.5, 0.2, 0.05))
    full = ClusterMetricLearner().fit(X, y)
    M = full.get_mahalanobis_matrix()
    eigvals, eigvecs = np.linalg.eigh(M)
    top2 = (eigvecs[:, -2:] * eigvals[-2:]) @ eigvecs[:, -2:].T

    cml = ClusterMetricLearner(n_components=2).fit(X, y)
    assert cml.components_.shape == (2, 5)
    assert cml.transform(X).shape == (30, 2)
    np.testing.assert_allclose(cml.get_mahalanobis_matrix(), top2, rtol=1e-8, atol=1e-10)
    assert cml.get_feature_names_out().tolist() == [
        "clustermetriclearner0",
        "clustermetriclearner1",
    ]
    all5 = ClusterMetricLearner(n_components=5).fit(X, y)
    np.testing.assert_allclose(all5.get_mahalanobis_matrix(), M, rtol=1e-8, atol=1e-10)


def test_n_components_above_rank_gives_zero_rows():
    rng = np.random.RandomState(11)
    X, y = rng.normal(size=(6, 8)), np.repeat([0, 1, 2], 2)  # rank 3
    cml = ClusterMetricLearner(n_components=5).fit(X, y)
    assert cml.rank_ == 3
    np.testing.assert_array_equal(cml.components_[3:], 0)


def test_pair_distance_is_the_mahalanobis_distance():
    X, y = _clusters(seed=12)
    cml = ClusterMetricLearner().fit(X, y)
    M = cml.get_mahalanobis_matrix()
    d = X[:10] - X[10:20]
    expected = np.sqrt(np.einsum("ij,jk,ik->i", d, M, d))
    np.testing.assert_allclose(cml.pair_distance(X[:10], X[10:20]), expected)
    Z = cml.transform(X)
    np.testing.assert_allclose(expected, np.linalg.norm(Z[:10] - Z[10:20], axis=1), rtol=1e-10)
    np.testing.assert_allclose(
        cml.pair_distance(sp.csr_matrix(X[:10]), sp.csr_matrix(X[10:20])), expected
    )


def test_metric_improves_retrieval_on_held_out_clusters_in_a_svd_pipeline():
    # Sparse "documents": each cluster uses 3 of 10 informative features;
    # every document also has 4 random "noise words" among 40 more features.
    rng = np.random.RandomState(13)
    y = np.repeat(np.arange(120), 5)
    centres = np.zeros((120, 50))
    for i in range(120):
        centres[i, rng.choice(10, 3, replace=False)] = rng.uniform(2, 4, 3)
    X = centres[y] + 0.1 * rng.normal(size=(600, 50)) * (centres[y] != 0)
    for row in X:
        row[10 + rng.choice(40, 4, replace=False)] = rng.uniform(1, 3, 4)
    X = sp.csr_matrix(X)
    train, test = y < 80, y >= 80  # disjoint clusters

    pipe = make_pipeline(TruncatedSVD(n_components=25, random_state=0), ClusterMetricLearner())
    pipe.fit(X[train], y[train])
    Z = pipe.transform(X[test])
    assert Z.shape == (200, 25)
    svd = pipe[0]
    manual = ClusterMetricLearner().fit(svd.transform(X[train]), y[train])
    np.testing.assert_allclose(Z, manual.transform(svd.transform(X[test])), rtol=1e-10)

    def score(V):
        return r_precision(pairwise_distances(V), y[test], exclude_self=True)

    assert score(Z) > 0.95
    assert score(Z) > score(svd.transform(X[test])) + 0.1
    assert score(Z) > score(X[test]) + 0.2


def test_pickle_and_clone_round_trip():
    X, y = _clusters(seed=14)
    cml = ClusterMetricLearner(n_components=2).fit(X, y)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(cml)).transform(X), cml.transform(X))
    np.testing.assert_array_equal(clone(cml).fit(X, y).transform(X), cml.transform(X))


def test_set_output_pandas():
    pd = pytest.importorskip("pandas")
    X, y = _clusters(seed=15)
    out = ClusterMetricLearner(n_components=2).set_output(transform="pandas").fit(X, y).transform(X)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["clustermetriclearner0", "clustermetriclearner1"]


# --------------------------------------------------------------------------
# bad input


def test_y_is_required():
    X, _ = _clusters()
    with pytest.raises(ValueError, match="requires y"):
        ClusterMetricLearner().fit(X, None)
    with pytest.raises(TypeError):
        ClusterMetricLearner().fit(X)


def test_single_cluster_is_rejected():
    X, _ = _clusters()
    with pytest.raises(ValueError, match="at least 2 clusters"):
        ClusterMetricLearner().fit(X, np.zeros(len(X)))


def test_all_singleton_clusters_are_rejected():
    X, _ = _clusters()
    with pytest.raises(ValueError, match="no cluster has two distinct samples"):
        ClusterMetricLearner().fit(X, np.arange(len(X)))


def test_continuous_y_is_rejected():
    X, _ = _clusters()
    with pytest.raises(ValueError, match="Unknown label type: 'continuous'"):
        ClusterMetricLearner().fit(X, np.linspace(0, 1, len(X)))


def test_many_small_clusters_and_string_labels_fit_without_warning():
    rng = np.random.RandomState(16)
    y = np.repeat([f"word{i}" for i in range(300)], 2)  # 300 pairs
    X = rng.normal(size=(300, 4))[np.repeat(np.arange(300), 2)] + rng.normal(size=(600, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cml = ClusterMetricLearner().fit(X, y)
    assert cml.classes_[0] == "word0" and len(cml.classes_) == 300


@pytest.mark.parametrize(
    "weights, message",
    [
        ([1.0, 2.0], r"shape \(n_clusters,\)"),
        ([1, 1, 1, 1, 1, -1], "non-negative"),
        ([0] * 6, "not all zero"),
        ([1, 1, 1, 1, 1, np.nan], "finite"),
        ({0: 1.0, 1: 2.0}, r"no weight for cluster label\(s\) \[2, 3, 4, 5\]"),
    ],
)
def test_bad_cluster_weights(weights, message):
    X, y = _clusters()
    with pytest.raises(ValueError, match=message):
        ClusterMetricLearner(cluster_weights=weights).fit(X, y)


def test_bad_parameters():
    X, y = _clusters()
    with pytest.raises(InvalidParameterError):
        ClusterMetricLearner(cluster_weights="uniform").fit(X, y)
    with pytest.raises(InvalidParameterError):
        ClusterMetricLearner(n_components=0).fit(X, y)
    with pytest.raises(ValueError, match="n_components=4 must be <= n_features=3"):
        ClusterMetricLearner(n_components=4).fit(X, y)


def test_bad_data():
    X, y = _clusters()
    with pytest.raises(ValueError, match="NaN"):
        ClusterMetricLearner().fit(np.where(X > 2, np.nan, X), y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        ClusterMetricLearner().fit(X, y[:-1])
    cml = ClusterMetricLearner().fit(X, y)
    with pytest.raises(ValueError, match="3 features"):
        cml.transform(X[:, :2])
    with pytest.raises(ValueError, match="same shape"):
        cml.pair_distance(X[:3], X[:4])
