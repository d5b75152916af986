"""Bad input, containers, threads, ties: every item of the reliability issue."""

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from _testing import needs_neural
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import FunctionTransformer, make_pipeline
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_ed import (
    CGKEmbedder,
    FilterRefineClassifier,
    FilterRefineNeighbors,
    FilterRefineRegressor,
    GRUEmbedder,
    QGramEmbedder,
)
from sklearn_ed.distances import (
    candidate_distances,
    pairwise_distances,
    ragged_candidate_distances,
    symmetric_pairwise_distances,
)
from sklearn_ed.metrics import make_top_k_recall_scorer

WORDS = [
    "kitten",
    "sitting",
    "mitten",
    "fitting",
    "smitten",
    "knitting",
    "bitten",
    "written",
    "kitchen",
    "sitter",
]


def _containers(strings):
    """The same strings as a list and as pandas containers with unusual indexes."""
    shuffled = pd.Series(strings, index=np.random.default_rng(0).permutation(len(strings)))
    labelled = pd.Series(strings, index=[f"id{i}" for i in range(len(strings))])
    return {
        "list": list(strings),
        "shuffled index": shuffled,
        "string index": labelled,
        "DataFrame": pd.DataFrame({"text": strings}, index=shuffled.index),
    }


@pytest.mark.parametrize("container", ["shuffled index", "string index", "DataFrame"])
def test_pandas_containers_are_read_by_position(container):
    expected = _containers(WORDS)["list"]
    given = _containers(WORDS)[container]
    np.testing.assert_array_equal(
        pairwise_distances(given, given), pairwise_distances(expected, expected)
    )
    np.testing.assert_array_equal(
        symmetric_pairwise_distances(given), symmetric_pairwise_distances(expected)
    )
    candidates = np.array([[1, 2], [0, 3]])
    np.testing.assert_array_equal(
        candidate_distances(given[:2], given, candidates),
        candidate_distances(expected[:2], expected, candidates),
    )
    found = ragged_candidate_distances(given[:2], given, [np.array([4]), np.array([])])
    assert (
        found[0].tolist()
        == ragged_candidate_distances(expected[:2], expected, [np.array([4]), np.array([])])[
            0
        ].tolist()
    )
    for embedder in (QGramEmbedder(), CGKEmbedder(random_state=0)):
        a = embedder.fit(given).transform(given)
        b = embedder.fit(expected).transform(expected)
        assert (abs(a - b)).max() == 0
    search = FilterRefineNeighbors(n_neighbors=2).fit(given)
    reference = FilterRefineNeighbors(n_neighbors=2).fit(expected)
    for got, want in zip(search.kneighbors(given), reference.kneighbors(expected)):
        np.testing.assert_array_equal(got, want)
    labels = np.arange(len(WORDS)) % 2
    assert (
        FilterRefineClassifier(n_neighbors=3).fit(given, labels).predict(given)
        == FilterRefineClassifier(n_neighbors=3).fit(expected, labels).predict(expected)
    ).all()
    scorer = make_top_k_recall_scorer(k=2, n_candidates=3)
    assert scorer(QGramEmbedder().fit(given), given) == scorer(
        QGramEmbedder().fit(expected), expected
    )


def test_grid_search_over_a_series_scores_every_fold():
    words = pd.Series(WORDS * 3, index=np.arange(30)[::-1] * 7)
    grid = GridSearchCV(
        FilterRefineNeighbors(n_neighbors=2),
        {"n_candidates": [3, 30]},
        cv=3,
        scoring=make_top_k_recall_scorer(k=2),
    ).fit(words)
    assert np.isfinite(grid.cv_results_["mean_test_score"]).all()
    assert grid.cv_results_["mean_test_score"][1] == 1.0  # all candidates: exact


@pytest.mark.parametrize(
    "container", [set(WORDS), frozenset(WORDS), dict.fromkeys(WORDS), dict.fromkeys(WORDS).keys()]
)
def test_unordered_containers_are_rejected(container):
    with pytest.raises(TypeError, match="has no order"):
        pairwise_distances(container)
    with pytest.raises(TypeError, match="has no order"):
        FilterRefineNeighbors().fit(container)
    with pytest.raises(TypeError, match="has no order"):
        QGramEmbedder().fit(container)


def test_single_strings_and_bad_candidates_are_clear_errors():
    with pytest.raises(ValueError, match="single string 'abc'"):
        symmetric_pairwise_distances("abc")
    with pytest.raises(ValueError, match="single string 'abc'"):
        candidate_distances("abc", WORDS, np.array([[0]]))
    with pytest.raises(ValueError, match="candidates holds 10, outside the 10 items"):
        candidate_distances(["a"], WORDS, np.array([[10]]))
    with pytest.raises(ValueError, match="candidates holds -2"):
        ragged_candidate_distances(["a"], WORDS, [np.array([-2])])
    with pytest.raises(TypeError, match="integer indices"):
        candidate_distances(["a"], WORDS, np.array([[0.5]]))


def test_lone_surrogates_and_combining_marks_are_strings_like_any_other():
    strings = ["\ud800", "a\ud800b", "e\u0301", "ab", ""]
    exact = pairwise_distances(strings, strings)
    assert exact[0, 1] == 2 and exact[2, 3] == 2
    for embedder in (QGramEmbedder(q=2), CGKEmbedder(random_state=0)):
        search = FilterRefineNeighbors(embedder, n_neighbors=2).fit(strings)
        distances, _ = search.kneighbors(["\udfff\ud800"])
        np.testing.assert_array_equal(
            distances[0], np.sort(pairwise_distances(["\udfff\ud800"], strings)[0])[:2]
        )


def test_one_huge_training_string_does_not_widen_every_code():
    words = [f"word{i:04d}" for i in range(300)] + ["x" * 100_000]
    with pytest.warns(UserWarning, match="^1 string\\(s\\) are longer than max_length=16"):
        embedder = CGKEmbedder(random_state=0).fit(words)
    assert embedder.max_length_ == 16  # twice the 99th percentile of lengths (8)
    assert embedder.transform(words[:2]).shape == (2, 48)
    with pytest.raises(ValueError, match="longer than max_length"):
        CGKEmbedder(on_long_string="error").fit(words)


@pytest.mark.parametrize("radius", [np.nan, np.inf, -1.0])
def test_bad_radius_is_rejected(radius):
    search = FilterRefineNeighbors().fit(WORDS)
    with pytest.raises(ValueError, match="radius must be a finite non-negative number"):
        search.radius_neighbors(WORDS[:1], radius=radius)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_regressor_rejects_missing_or_infinite_targets(value):
    y = np.arange(len(WORDS), dtype=float)
    y[3] = value
    with pytest.raises(ValueError, match="y contains 1 NaN or infinite value.*index 3"):
        FilterRefineRegressor().fit(WORDS, y)
    fitted = FilterRefineRegressor().fit(WORDS, np.arange(len(WORDS)))
    with pytest.raises(ValueError, match="NaN or infinite"):
        fitted.partial_fit(["spitting"], [value])


@pytest.mark.parametrize("n_candidates", [0.0, 1.5, 0, -3, "many"])
def test_bad_candidate_counts_are_rejected(n_candidates):
    with pytest.raises(InvalidParameterError, match="n_candidates"):
        FilterRefineNeighbors(n_candidates=n_candidates).fit(WORDS)


def test_scorers_score_pipelines_as_their_last_step():
    words = WORDS * 3
    scorer = make_top_k_recall_scorer(k=2, n_candidates=3)
    lower = FunctionTransformer(lambda X: [x.lower() for x in X])
    pipeline = make_pipeline(lower, FilterRefineNeighbors(n_neighbors=2, n_candidates=30))
    bare = FilterRefineNeighbors(n_neighbors=2, n_candidates=30)
    assert scorer(pipeline.fit(words), words) == scorer(bare.fit(words), words) == 1.0
    embedder_pipeline = make_pipeline(lower, QGramEmbedder(q=2))
    assert scorer(embedder_pipeline.fit(words), words) == scorer(
        QGramEmbedder(q=2).fit(words), words
    )
    rng = np.random.default_rng(0)
    # Long strings: no lookup answers them, the number of candidates decides.
    strings = ["".join(rng.choice(list("abcd"), 70)) for _ in range(90)]
    grid = GridSearchCV(
        make_pipeline(lower, FilterRefineNeighbors(CGKEmbedder(random_state=0), n_neighbors=3)),
        {"filterrefineneighbors__n_candidates": [3, 60]},
        cv=3,
        scoring=make_top_k_recall_scorer(k=3),
    ).fit(strings)
    bare_grid = GridSearchCV(
        FilterRefineNeighbors(CGKEmbedder(random_state=0), n_neighbors=3),
        {"n_candidates": [3, 60]},
        cv=3,
        scoring=make_top_k_recall_scorer(k=3),
    ).fit(strings)
    np.testing.assert_array_equal(
        grid.cv_results_["mean_test_score"], bare_grid.cv_results_["mean_test_score"]
    )
    scores = grid.cv_results_["mean_test_score"]
    assert scores[0] < scores[1] == 1.0  # 60 candidates: every fitted item


@pytest.fixture(scope="module")
def misspelt():
    from sklearn_ed.datasets import load_misspellings

    data = load_misspellings()
    rng = np.random.default_rng(0)
    rows = rng.choice(len(data.data), 800, replace=False)
    strings = np.asarray(data.data, dtype=object)[rows]
    targets = np.asarray(data.target, dtype=object)[rows]
    return strings, np.array([len(t) % 3 for t in targets]), rng.permutation(len(rows))


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("exact", [False, True])
def test_ties_include_makes_predictions_independent_of_training_order(misspelt, weights, exact):
    strings, labels, order = misspelt
    queries = strings[:100]
    params = dict(n_neighbors=5, weights=weights, exact=exact, random_state=0)
    if not exact:
        params["n_candidates"] = 1.0
    first = FilterRefineClassifier(**params).fit(strings, labels)
    shuffled = FilterRefineClassifier(**params).fit(strings[order], labels[order])
    np.testing.assert_allclose(first.predict_proba(queries), shuffled.predict_proba(queries))
    np.testing.assert_allclose(first.predict_proba(queries).sum(axis=1), 1.0)
    regressor = FilterRefineRegressor(**params).fit(strings, labels.astype(float))
    shuffled_regressor = FilterRefineRegressor(**params).fit(
        strings[order], labels[order].astype(float)
    )
    np.testing.assert_allclose(regressor.predict(queries), shuffled_regressor.predict(queries))
    if weights == "uniform":  # the order dependence "include" removes
        by_index = FilterRefineClassifier(ties="index", **params)
        changed = np.mean(
            by_index.fit(strings, labels).predict(queries)
            != by_index.fit(strings[order], labels[order]).predict(queries)
        )
        assert changed > 0.05


def test_ties_include_shares_the_remaining_votes():
    clf = FilterRefineClassifier(n_neighbors=2).fit(["ab", "ax", "ay", "zz"], [0, 1, 1, 2])
    # "aa": "ab", "ax" and "ay" all at distance 1: two votes shared by three items.
    np.testing.assert_allclose(clf.predict_proba(["aa"]), [[1 / 3, 2 / 3, 0.0]])
    by_index = FilterRefineClassifier(n_neighbors=2, ties="index").fit(
        ["ab", "ax", "ay", "zz"], [0, 1, 1, 2]
    )
    np.testing.assert_allclose(by_index.predict_proba(["aa"]), [[0.5, 0.5, 0.0]])


@needs_neural
def test_neural_transform_is_thread_safe_and_leaves_the_estimator_alone():
    rng = np.random.default_rng(0)
    strings = ["".join(rng.choice(list("ACGT"), 40)) for _ in range(300)]
    embedder = GRUEmbedder(
        n_step_components=3,
        hidden_size=8,
        epochs_per_phase=1,
        n_neighbors=10,
        n_train=60,
        random_state=0,
    ).fit(strings)
    expected = embedder.transform(strings)
    before = {name: value.clone() for name, value in embedder.module_.state_dict().items()}
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: embedder.transform(strings), range(32)))
    for result in results:
        np.testing.assert_array_equal(result, expected)
    for name, value in embedder.module_.state_dict().items():
        assert value.device.type == "cpu" and bool((value == before[name]).all())


def test_estimators_do_not_warn_on_clean_input():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FilterRefineNeighbors().fit(WORDS).kneighbors(WORDS)


def test_image_metrics_take_lists_and_validated_object_arrays():
    rng = np.random.default_rng(0)
    images = [rng.random((8, 8)) for _ in range(4)]
    as_list = pairwise_distances(images, metric="chamfer_image")
    objects = np.empty(4, dtype=object)
    objects[:] = images
    np.testing.assert_array_equal(pairwise_distances(objects, metric="chamfer_image"), as_list)


# ---------------------------------------------------------------- partial_fit
def _letters(alphabet, n, seed):
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(list(alphabet), size=rng.integers(5, 12))) for _ in range(n)]


def test_items_with_characters_unseen_at_fit_are_found_after_partial_fit():
    latin = _letters("abcdefghijklmnop", 2_000, seed=0)
    cyrillic = _letters("абвгдежзийклмноп", 2_000, seed=1)
    search = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=1, n_candidates=20, random_state=0)
    search.fit(latin)
    with pytest.warns(UserWarning, match="refitted on all 4000 items"):
        search.partial_fit(cyrillic)
    distances, indices = search.kneighbors(cyrillic[:200])
    np.testing.assert_array_equal(distances[:, 0], 0.0)
    assert (
        search.n_samples_fit_ == 4_000 and list(search.search_.items[2_000:2_005]) == cyrillic[:5]
    )


def test_partial_fit_rederives_the_candidate_count_and_the_estimate():
    from sklearn_ed.datasets import load_english_words

    words = list(load_english_words().data[:8_000])
    # The first 50 words hold every letter the rest use: no refit, only growth.
    first = words[:50] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    search = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=5, random_state=0).fit(first)
    assert search.estimated_recall_ == 1.0 and search.n_candidates_ == len(first)
    search.partial_fit(words[50:])
    queries = [word[:-1] for word in words[::40]]
    exact = FilterRefineNeighbors(n_neighbors=5, exact=True).fit(search.search_.items)
    truth = exact.kneighbors(queries)[0][:, -1]
    found = search.kneighbors(queries)[0][:, -1]
    measured = np.mean(found == truth)
    assert search.n_candidates_ < search.n_samples_fit_
    assert abs(search.estimated_recall_ - measured) < 3 * search.estimated_recall_se_ + 0.05


def test_the_classifier_estimate_counts_every_tied_voter():
    strings = _letters("abcdef", 2_000, seed=0)
    labels = [s[0] for s in strings]
    with pytest.warns(UserWarning, match="every item tied with the k-th counted"):
        classifier = FilterRefineClassifier(QGramEmbedder(), n_neighbors=3, random_state=0)
        classifier.fit(strings, labels)
    queries = _letters("abcdef", 200, seed=1)
    exact = FilterRefineClassifier(n_neighbors=3, exact=True).fit(strings, labels)
    agree = np.mean(classifier.predict(queries) == exact.predict(queries))
    # The estimate no longer claims more than the votes deliver.
    assert classifier.estimated_recall_ < classifier.target_recall
    assert classifier.estimated_recall_ <= agree + 3 * classifier.estimated_recall_se_


@pytest.mark.parametrize(
    "strings", [[""] * 17, ["0", "1", "01", "10"] * 250], ids=["empty", "two characters"]
)
def test_the_automatic_q_fits_the_strings(strings):
    search = FilterRefineNeighbors(n_neighbors=2, random_state=0).fit(strings)
    brute = FilterRefineNeighbors(n_neighbors=2, n_candidates=1.0).fit(strings)
    for got, expected in zip(search.kneighbors(["", "11"]), brute.kneighbors(["", "11"])):
        np.testing.assert_array_equal(got, expected)


def test_queries_never_see_a_half_added_base():
    """Queries for the items being added: the index knew them before the item
    list did, and a query in between failed on candidates outside the base."""
    base = _letters("abcdefgh", 40_000, seed=0)
    search = FilterRefineNeighbors(n_neighbors=1, n_candidates=5, random_state=0).fit(base[:20_000])
    done, errors = [], []

    def query():
        while not done:
            try:
                search.kneighbors(base[-5_000:][::50])
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)
                return

    with ThreadPoolExecutor(2) as pool:
        running = [pool.submit(query) for _ in range(2)]
        for start in range(20_000, 40_000, 500):
            search.partial_fit(base[start : start + 500])
        done.append(True)
        for future in running:
            future.result()
    assert not errors, errors[0]
    np.testing.assert_array_equal(search.kneighbors(base[-3:])[0], 0.0)


def test_messages_name_the_real_problem():
    with pytest.raises(ValueError, match="fitted on 1 item: no other item"):
        FilterRefineClassifier(n_neighbors=1).fit(["a"], [0]).predict()
    grid = GridSearchCV(FilterRefineClassifier(), {"embedder__q": [2, 3]}, cv=2)
    with pytest.raises(ValueError, match='embedder="auto" is chosen at fit'):
        grid.fit(WORDS * 2, [0, 1] * 10)
    with pytest.raises(ValueError, match=r"X\[1\] is missing"):
        FilterRefineNeighbors().fit(["a", pd.NA, "b"])


def test_radius_search_does_not_depend_on_the_recall_check():
    """The calibration is its own fit step: check_recall=False keeps radius queries."""
    from _testing import mutate, random_strings

    rng = np.random.default_rng(0)
    base = [mutate(s, int(rng.integers(0, 4)), rng) for s in random_strings(300, (80, 120))]
    base += [mutate(s, 2, rng) for s in base]
    search = FilterRefineNeighbors(
        QGramEmbedder(), n_candidates=50, check_recall=False, random_state=0
    ).fit(base)
    assert len(search.radius_calibration_) > 0
    brute = FilterRefineNeighbors(n_candidates=1.0, check_recall=False).fit(base)
    got = search.radius_neighbors(base[:50], radius=4, sort_results=True)[1]
    expected = brute.radius_neighbors(base[:50], radius=4, sort_results=True)[1]
    found = sum(len(set(g) & set(e)) for g, e in zip(got, expected))
    assert found >= 0.95 * sum(map(len, expected))
