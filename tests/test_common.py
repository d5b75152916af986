"""Common checks: sklearn's for numeric configurations, ours for string estimators."""

import pickle

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_ed import (
    CGKEmbedder,
    CNNEDEmbedder,
    ClusterMetricLearner,
    FastMapEmbedder,
    FilterRefineClassifier,
    FilterRefineNeighbors,
    FilterRefineRegressor,
    FilterRefineTransformer,
    GRUEmbedder,
    QGramEmbedder,
    TripletMinedEmbedder,
)
from sklearn_ed.metrics import make_top_k_recall_scorer

# partial_fit appends to a fitted index and keeps the fitted embedder, so it
# needs a fit first (a clear NotFittedError); these sklearn checks call it on
# an unfitted estimator.
_PARTIAL_FIT_NEEDS_FIT = {
    check: "partial_fit appends to a fitted index; it needs fit first"
    for check in ("check_n_features_in_after_fitting",
                  "check_estimators_partial_fit_n_features")
}

# One table: numeric-input configurations and the sklearn checks they may fail.
NUMERIC_ESTIMATORS = {
    FilterRefineNeighbors(metric="euclidean"): _PARTIAL_FIT_NEEDS_FIT,
    FilterRefineClassifier(metric="euclidean"): _PARTIAL_FIT_NEEDS_FIT,
    FilterRefineRegressor(metric="euclidean"): _PARTIAL_FIT_NEEDS_FIT,
    FilterRefineTransformer(metric="euclidean"): _PARTIAL_FIT_NEEDS_FIT,
    ClusterMetricLearner(): {},
    FastMapEmbedder(metric="euclidean", n_components=2): {},
    TripletMinedEmbedder(metric="euclidean", n_components=2, n_neighbors=3, max_epochs=2,
                         random_state=0): {},
}

STRING_ESTIMATORS = [
    CGKEmbedder(random_state=0),
    CGKEmbedder("cgk_prime", n_repetitions=2, random_state=0),
    CNNEDEmbedder(n_components=16, n_layers=3, max_epochs=2, n_neighbors=10, random_state=0),
    FastMapEmbedder(n_components=4, random_state=0),
    QGramEmbedder(),
    QGramEmbedder(q=3, weighting="binary", padding=False),
    GRUEmbedder(n_step_components=2, hidden_size=4, epochs_per_phase=1, n_neighbors=10,
                random_state=0),
    FilterRefineNeighbors(n_neighbors=3, n_candidates=10, random_state=0),
    FilterRefineClassifier(n_neighbors=3, n_candidates=10, random_state=0),
    FilterRefineRegressor(n_neighbors=3, n_candidates=10, random_state=0),
    FilterRefineTransformer(n_neighbors=3, n_candidates=10, random_state=0),
]


def _expected_failures(estimator):
    return NUMERIC_ESTIMATORS.get(estimator, {})


@parametrize_with_checks(list(NUMERIC_ESTIMATORS), expected_failed_checks=_expected_failures)
def test_sklearn_compatible_numeric(estimator, check):
    check(estimator)


def _fit(estimator, strings, labels):
    if hasattr(estimator, "predict"):
        target = labels if hasattr(estimator, "predict_proba") else labels.astype(float)
        return estimator.fit(strings, target)
    return estimator.fit(strings)


def _outputs(estimator, strings):
    """Everything observable after fit, as arrays."""
    if hasattr(estimator, "predict_proba"):
        return [estimator.predict_proba(strings), estimator.predict(strings)]
    if hasattr(estimator, "predict"):
        return [estimator.predict(strings)]
    if hasattr(estimator, "kneighbors") and not hasattr(estimator, "transform"):
        return list(estimator.kneighbors(strings))
    out = estimator.transform(strings)
    return [out.toarray() if hasattr(out, "toarray") else out]


def _assert_same(first, second):
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


def _name(estimator):
    return repr(estimator)


@pytest.mark.parametrize("estimator", STRING_ESTIMATORS, ids=_name)
def test_clone_and_params_round_trip(estimator):
    cloned = clone(estimator)
    assert cloned.get_params() == estimator.get_params()
    cloned.set_params(**estimator.get_params())
    assert cloned.get_params() == estimator.get_params()


@pytest.mark.parametrize("estimator", STRING_ESTIMATORS, ids=_name)
def test_unfitted_raises_not_fitted(estimator, families):
    strings, _ = families
    method = next(getattr(estimator, name) for name in ("predict", "transform", "kneighbors")
                  if hasattr(estimator, name))
    with pytest.raises(NotFittedError):
        method(strings)


@pytest.mark.parametrize("estimator", STRING_ESTIMATORS, ids=_name)
def test_pickle_joblib_and_refit_give_identical_outputs(estimator, families, tmp_path):
    strings, labels = families
    fitted = _fit(clone(estimator), strings, labels)
    expected = _outputs(fitted, strings)
    _assert_same(_outputs(pickle.loads(pickle.dumps(fitted)), strings), expected)
    joblib.dump(fitted, tmp_path / "model.joblib")
    _assert_same(_outputs(joblib.load(tmp_path / "model.joblib"), strings), expected)
    _assert_same(_outputs(_fit(clone(estimator), strings, labels), strings), expected)
    _assert_same(_outputs(_fit(fitted, strings, labels), strings), expected)


@pytest.mark.parametrize("estimator", STRING_ESTIMATORS, ids=_name)
def test_declares_string_input(estimator):
    tags = estimator.__sklearn_tags__()
    assert tags.input_tags.string and not tags.input_tags.two_d_array


def test_string_estimators_in_pipeline_and_grid_search(families):
    strings, labels = families
    classifier = make_pipeline(FilterRefineClassifier(CGKEmbedder(random_state=0),
                                                      n_neighbors=3, n_candidates=10))
    grid = GridSearchCV(classifier,
                        {"filterrefineclassifier__embedder__n_repetitions": [1, 2],
                         "filterrefineclassifier__n_candidates": [5, 20]},
                        cv=3, n_jobs=2).fit(strings, labels)
    assert grid.best_score_ > 0.9
    neighbours = GridSearchCV(FilterRefineNeighbors(CGKEmbedder(random_state=0), n_neighbors=3),
                              {"embedder__variant": ["cgk", "cgk_prime"]}, cv=3, n_jobs=2,
                              scoring=make_top_k_recall_scorer(k=3)).fit(strings)
    assert set(neighbours.best_params_) == {"embedder__variant"}


def test_grid_search_over_gru_phases(families):
    strings, _ = families
    embedder = GRUEmbedder(n_step_components=2, hidden_size=4, epochs_per_phase=1,
                           n_neighbors=10, random_state=0)
    search = GridSearchCV(FilterRefineNeighbors(embedder, n_neighbors=3, n_candidates=10),
                          {"embedder__phases": [(1,), (1, 2, 3)]}, cv=2, n_jobs=2,
                          scoring=make_top_k_recall_scorer(k=3)).fit(strings)
    assert search.best_params_["embedder__phases"] in [(1,), (1, 2, 3)]
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_refine_and_grid_search_on_dask_cluster(families):
    distributed = pytest.importorskip("distributed")
    strings, labels = families
    search = FilterRefineNeighbors(CGKEmbedder(random_state=0), n_neighbors=3,
                                   n_candidates=10, n_jobs=2).fit(strings)
    grid = GridSearchCV(FilterRefineClassifier(CGKEmbedder(random_state=0), n_neighbors=3),
                        {"n_candidates": [5, 20]}, cv=3, n_jobs=2)
    local_neighbours = search.kneighbors(strings)
    local_scores = clone(grid).fit(strings, labels).cv_results_["mean_test_score"]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with joblib.parallel_config(backend="dask"):
            dask_neighbours = search.kneighbors(strings)
            dask_scores = clone(grid).fit(strings, labels).cv_results_["mean_test_score"]
        assert len(client.scheduler_info()["workers"]) == 2
    _assert_same(dask_neighbours, local_neighbours)
    np.testing.assert_array_equal(dask_scores, local_scores)
