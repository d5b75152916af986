"""save/load: plain files, identical answers, and refusal of damaged or foreign files."""

import json
import os
import pickle

import numpy as np
import pytest
from _testing import needs_neural, random_strings
from sklearn.preprocessing import FunctionTransformer

from sklearn_ed import (
    CGKEmbedder,
    ClusterMetricLearner,
    CNNEDEmbedder,
    FastMapEmbedder,
    FilterRefineClassifier,
    FilterRefineNeighbors,
    FilterRefineRegressor,
    GRUEmbedder,
    QGramEmbedder,
    TripletMinedEmbedder,
    load,
    save,
)
from sklearn_ed.utils._persistence import _tree_sha256

EMBEDDERS = [
    None,
    CGKEmbedder("cgk_prime", n_repetitions=2, random_state=0),
    pytest.param(
        CNNEDEmbedder(n_components=8, n_layers=3, max_epochs=1, n_neighbors=5, random_state=0),
        marks=needs_neural,
    ),
    pytest.param(
        GRUEmbedder(
            n_step_components=2, hidden_size=4, epochs_per_phase=1, n_neighbors=5, random_state=0
        ),
        marks=needs_neural,
    ),
    FastMapEmbedder(n_components=3, random_state=0),
]


def _answers(estimator, queries):
    if hasattr(estimator, "predict_proba"):
        return [estimator.predict_proba(queries), *estimator.kneighbors(queries)]
    if hasattr(estimator, "predict"):
        return [estimator.predict(queries)]
    return [*estimator.kneighbors(queries), *estimator.radius_neighbors(queries, radius=5)]


def _assert_same(got, expected):
    for a, b in zip(got, expected):
        if a.dtype == object:
            a, b = np.concatenate(list(a)), np.concatenate(list(b))
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("embedder", EMBEDDERS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("algorithm", ["brute", "hnsw", "ivf"])
def test_save_load_answers_like_the_original(families, tmp_path, embedder, algorithm):
    strings, labels = families
    search = FilterRefineNeighbors(
        embedder, n_neighbors=3, n_candidates=12, filter_algorithm=algorithm, random_state=0
    ).fit(strings)
    restored = load(search.save(tmp_path / "search"))
    queries = [s[2:] for s in strings]
    _assert_same(_answers(restored, queries), _answers(search, queries))
    _assert_same(_answers(pickle.loads(pickle.dumps(restored)), queries), _answers(search, queries))


def test_supervised_and_numeric_estimators_round_trip(families, tmp_path):
    strings, labels = families
    classifier = FilterRefineClassifier(n_neighbors=3, random_state=0).fit(strings, labels)
    regressor = FilterRefineRegressor(n_neighbors=3, random_state=0).fit(strings, labels * 1.5)
    for estimator, name in [(classifier, "clf"), (regressor, "reg")]:
        restored = load(save(estimator, tmp_path / name))
        _assert_same(_answers(restored, strings), _answers(estimator, strings))
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 4)), np.repeat([0, 1, 2], 20)
    learner = ClusterMetricLearner().fit(X, y)
    np.testing.assert_array_equal(
        load(save(learner, tmp_path / "cml")).transform(X), learner.transform(X)
    )


@needs_neural
def test_a_numeric_network_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    triplet = TripletMinedEmbedder(
        metric="euclidean", n_components=2, n_neighbors=3, max_epochs=2, random_state=0
    ).fit(X)
    np.testing.assert_array_equal(
        load(save(triplet, tmp_path / "tri")).transform(X), triplet.transform(X)
    )


@pytest.mark.parametrize(
    "embedder", [QGramEmbedder(), CGKEmbedder(random_state=0)], ids=["qgram", "cgk"]
)
def test_exact_search_round_trips(families, tmp_path, embedder):
    strings, _ = families
    search = FilterRefineNeighbors(embedder, n_neighbors=3, n_candidates=3, exact=True).fit(strings)
    queries = [s[::2] for s in strings]
    _assert_same(
        _answers(load(search.save(tmp_path / "exact")), queries), _answers(search, queries)
    )
    _assert_same(_answers(pickle.loads(pickle.dumps(search)), queries), _answers(search, queries))


def test_exact_dtw_round_trips(tmp_path):
    from sklearn_ed.distances import make_dtw_metric

    metric = make_dtw_metric(window=0.2)
    series = list(np.random.default_rng(0).normal(size=(30, 12)).cumsum(axis=1))
    search = FilterRefineNeighbors(
        FastMapEmbedder(metric=metric, n_components=2, random_state=0),
        metric=metric,
        n_neighbors=2,
        n_candidates=2,
        exact=True,
    ).fit(series)
    for restored in (pickle.loads(pickle.dumps(search)), load(save(search, tmp_path / "d"))):
        for got, expected in zip(restored.kneighbors(series[:5]), search.kneighbors(series[:5])):
            np.testing.assert_array_equal(got, expected)


def test_unicode_and_surrogate_free_strings_survive(tmp_path):
    words = ["", "naïve", "日本語", "e\u0301", "plain"]
    search = FilterRefineNeighbors(n_neighbors=2, random_state=0).fit(words)
    restored = load(search.save(tmp_path / "u"))
    assert list(restored.search_.items) == words


@pytest.fixture
def saved(families, tmp_path):
    strings, _ = families
    return FilterRefineNeighbors(random_state=0).fit(strings).save(tmp_path / "saved")


def test_missing_truncated_or_tampered_files_are_refused(saved):
    arrays = os.path.join(saved, "arrays.npz")
    with open(arrays, "rb") as file:
        content = file.read()
    with open(arrays, "wb") as file:
        file.write(content[:-100])
    with pytest.raises(ValueError, match="truncated or changed"):
        load(saved)
    os.remove(arrays)
    with pytest.raises(ValueError, match="missing"):
        load(saved)
    with pytest.raises(ValueError, match="no manifest.json"):
        load(os.path.dirname(saved) + "/nowhere")


def _rewrite_tree(directory, tree):
    """Replace the manifest's tree and its hash, as a deliberate tamperer would."""
    manifest_path = os.path.join(directory, "manifest.json")
    with open(manifest_path) as file:
        manifest = json.load(file)
    manifest["tree"] = tree
    manifest["sha256"]["tree"] = _tree_sha256(tree)
    with open(manifest_path, "w") as file:
        json.dump(manifest, file)


def test_manifest_naming_foreign_code_is_refused(saved):
    tree = {"kind": "object", "class": "os.system", "state": {"kind": "value", "value": None}}
    _rewrite_tree(saved, tree)
    with pytest.raises(ValueError, match="node tree: class 'os.system' is not one"):
        load(saved)
    with open(os.path.join(saved, "manifest.json"), "w") as file:
        file.write("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        load(saved)


def test_objects_outside_the_libraries_cannot_be_saved(families, tmp_path):
    strings, _ = families
    search = FilterRefineNeighbors(
        FunctionTransformer(lambda X: np.zeros((len(X), 2))), n_candidates=5
    ).fit(strings)
    with pytest.raises(TypeError, match="Use pickle"):
        save(search, tmp_path / "lambda")


DATA = os.path.join(os.path.dirname(__file__), "data")


@pytest.mark.parametrize("name", ["qgram_exact", "cgk_hnsw", "classifier"])
def test_directories_saved_by_format_1_load_and_answer_as_they_did(name):
    """Saved by the code of commit 648fc0c (format 1, before the fitted
    search object), with that code's answers."""
    with open(os.path.join(DATA, "format1_answers.json")) as file:
        answers = json.load(file)
    restored = load(os.path.join(DATA, f"format1_{name}"))
    assert restored.search_.n_items == restored.n_samples_fit_ == 120
    if name == "classifier":
        np.testing.assert_array_equal(restored.predict_proba(answers["queries"]), answers[name])
    else:
        for got, expected in zip(restored.kneighbors(answers["queries"]), answers[name]):
            np.testing.assert_array_equal(got, expected)


def _grown():
    """A search over short words (many ties) grown by several partial_fit calls."""
    words = random_strings(400, (3, 5), seed=3)
    search = FilterRefineNeighbors(
        QGramEmbedder(), n_neighbors=3, n_candidates=4, check_recall=False, random_state=0
    ).fit(words[:100])
    for start in range(100, 400, 60):
        search.partial_fit(words[start : start + 60])
    return search


def test_a_search_grown_by_partial_fit_answers_as_saved(tmp_path):
    """Ties at the candidate cut-off were broken by position across the sparse
    index's segments, but by the sparse product's order in the one segment a
    save merged them into (16 of 200 queries changed)."""
    search = _grown()
    assert len(search.search_.index._index) > 1
    queries = random_strings(200, (3, 5), seed=4)
    restored = [load(search.save(tmp_path / "grown")), pickle.loads(pickle.dumps(search))]
    for copy in restored:
        _assert_same(_answers(copy, queries), _answers(search, queries))
    # They go on growing as the saved one does.
    for grown in [search, *restored]:
        grown.partial_fit(random_strings(30, (3, 5), seed=6))
    for copy in restored:
        _assert_same(_answers(copy, queries), _answers(search, queries))


def test_a_lookup_given_up_as_the_base_grew_stays_given_up(tmp_path):
    """Rebuilt whole on load, the near lookup lost to a batch of long strings
    fitted again, and answered queries the saved search sent to the filter."""
    search = _grown()
    with pytest.warns(UserWarning, match="near lookup"):
        search.partial_fit(random_strings(10, (300, 300), seed=5))
    assert search.search_.near is None
    queries = random_strings(200, (3, 5), seed=4)
    expected = _answers(search, queries)
    for restored in (load(search.save(tmp_path / "lost")), pickle.loads(pickle.dumps(search))):
        assert restored.search_.near is None
        _assert_same(_answers(restored, queries), expected)
