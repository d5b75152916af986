"""FilterRefineClassifier and FilterRefineRegressor: votes as scikit-learn counts them."""

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from sklearn_ed import (
    CGKEmbedder,
    FilterRefineClassifier,
    FilterRefineRegressor,
)
from sklearn_ed.distances import pairwise_distances


def brute_force(queries, base, k, exclude_self=False):
    """Exact top-k, ties broken by base index."""
    exact = pairwise_distances(queries, base).astype(np.float64)
    if exclude_self:
        np.fill_diagonal(exact, np.inf)
    order = np.lexsort((np.broadcast_to(np.arange(len(base)), exact.shape), exact), axis=1)
    order = order[:, :k]
    return np.take_along_axis(exact, order, axis=1), order


@pytest.fixture
def words():
    # Many ties: short words over a tiny alphabet.
    rng = np.random.default_rng(0)
    return ["".join(rng.choice(list("ab"), size=rng.integers(1, 6))) for _ in range(60)]


def test_classifier_and_regressor_vote_like_sklearn(families):
    """Same votes as KNeighbors* on the exact neighbors (ties broken by index)."""
    strings, labels = families
    train, test = np.arange(0, 120, 2), np.arange(1, 120, 2)
    train_strings, test_strings = [strings[i] for i in train], [strings[i] for i in test]
    distances, indices = brute_force(test_strings, train_strings, 5)
    target = np.array([len(s) for s in strings], dtype=float)[train]
    for weights in ("uniform", "distance"):
        with np.errstate(divide="ignore"):
            w = np.ones_like(distances) if weights == "uniform" else 1 / distances
        zero = np.isinf(w).any(axis=1)
        w[zero] = np.isinf(w[zero])
        expected_proba = np.zeros((len(test), len(np.unique(labels))))
        np.add.at(
            expected_proba,
            (np.repeat(np.arange(len(test)), 5), labels[train][indices].ravel()),
            w.ravel(),
        )
        expected_proba /= expected_proba.sum(axis=1, keepdims=True)
        clf = FilterRefineClassifier(
            n_neighbors=5, n_candidates=1.0, weights=weights, ties="index", random_state=0
        ).fit(train_strings, labels[train])
        np.testing.assert_allclose(clf.predict_proba(test_strings), expected_proba)
        reg = FilterRefineRegressor(
            n_neighbors=5, n_candidates=1.0, weights=weights, ties="index", random_state=0
        ).fit(train_strings, target)
        expected = (target[indices] * w).sum(axis=1) / w.sum(axis=1)
        np.testing.assert_allclose(reg.predict(test_strings), expected)


def test_distance_weights_follow_sklearn_on_tie_free_data():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 3)), rng.integers(0, 3, size=50)
    for weights in ("uniform", "distance"):
        ours = FilterRefineClassifier(
            metric="euclidean", n_neighbors=5, n_candidates=1.0, weights=weights
        ).fit(X, y)
        reference = KNeighborsClassifier(5, weights=weights).fit(X, y)
        np.testing.assert_allclose(
            ours.predict_proba(X[:20] + 0.01), reference.predict_proba(X[:20] + 0.01)
        )
        ours_reg = FilterRefineRegressor(
            metric="euclidean", n_neighbors=5, n_candidates=1.0, weights=weights
        ).fit(X, y.astype(float))
        reference_reg = KNeighborsRegressor(5, weights=weights).fit(X, y.astype(float))
        np.testing.assert_allclose(ours_reg.predict(X[:20]), reference_reg.predict(X[:20]))


def test_classifier_predicts_families(families):
    strings, labels = families
    clf = FilterRefineClassifier(CGKEmbedder(random_state=0), n_neighbors=3, n_candidates=20).fit(
        strings, labels
    )
    assert clf.score(strings, labels) > 0.95
    assert (clf.predict() == labels).mean() > 0.9  # leave-one-out with X=None
