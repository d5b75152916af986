"""FilterRefineNeighbors: exact answers, radius search, input validation."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from sklearn_ed import (
    CGKEmbedder,
    FilterRefineClassifier,
    FilterRefineNeighbors,
    FilterRefineRegressor,
    FilterRefineTransformer,
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


@pytest.mark.parametrize("variant", ["cgk", "cgk_prime"])
def test_all_candidates_equals_exact_brute_force(words, variant):
    search = FilterRefineNeighbors(
        CGKEmbedder(variant, random_state=0), n_neighbors=7, n_candidates=len(words)
    ).fit(words)
    queries = words[:20] + ["", "abba", "bbbbbbbb"]
    distances, indices = search.kneighbors(queries)
    expected_distances, expected_indices = brute_force(queries, words, 7)
    np.testing.assert_array_equal(distances, expected_distances)
    np.testing.assert_array_equal(indices, expected_indices)


def test_fraction_one_equals_brute_force_and_excludes_self(words):
    search = FilterRefineNeighbors(n_neighbors=4, n_candidates=1.0, random_state=0).fit(words)
    distances, indices = search.kneighbors()
    expected_distances, expected_indices = brute_force(words, words, 4, exclude_self=True)
    assert not (indices == np.arange(len(words))[:, None]).any()
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_array_equal(distances, expected_distances)


def test_returned_distances_are_exact_with_few_candidates(families):
    strings, _ = families
    search = FilterRefineNeighbors(CGKEmbedder(random_state=0), n_neighbors=3, n_candidates=10).fit(
        strings
    )
    distances, indices = search.kneighbors(strings[:15])
    exact = pairwise_distances(strings[:15], strings)
    np.testing.assert_array_equal(distances, np.take_along_axis(exact, indices, axis=1))
    assert (np.diff(distances, axis=1) >= 0).all()


def test_filter_finds_most_true_neighbors_with_few_candidates(families):
    """CGK candidates beat random candidates at the same budget."""
    strings, labels = families
    search = FilterRefineNeighbors(
        CGKEmbedder(n_repetitions=3, random_state=0), n_neighbors=5, n_candidates=12
    ).fit(strings)
    indices = search.kneighbors(return_distance=False)
    same_family = (labels[indices] == labels[:, None]).mean()
    assert same_family > 0.9  # random candidates would give about 12/120 * 5/5 = 0.1


def test_radius_with_infinite_blowup_is_exact(words):
    search = FilterRefineNeighbors(radius=2, radius_blowup=np.inf, random_state=0).fit(words)
    exact = pairwise_distances(words[:10], words)
    distances, indices = search.radius_neighbors(words[:10], sort_results=True)
    for row in range(10):
        expected = np.flatnonzero(exact[row] <= 2)
        expected = expected[np.lexsort((expected, exact[row, expected]))]
        np.testing.assert_array_equal(indices[row], expected)
        np.testing.assert_array_equal(distances[row], exact[row, expected])


def test_radius_results_are_verified_subset(families):
    strings, _ = families
    search = FilterRefineNeighbors(
        CGKEmbedder(random_state=0), radius=4, radius_blowup=2.0, random_state=0
    ).fit(strings)
    exact = pairwise_distances(strings, strings)
    distances, indices = search.radius_neighbors()
    found = total = 0
    for row in range(len(strings)):
        assert row not in indices[row]  # X=None excludes self
        assert (distances[row] <= 4).all()
        np.testing.assert_array_equal(distances[row], exact[row, indices[row]])
        truth = np.setdiff1d(np.flatnonzero(exact[row] <= 4), [row])
        found += np.isin(truth, indices[row]).sum()
        total += len(truth)
    assert found / total > 0.8
    radii, thresholds = search.radius_calibration_.T
    assert (np.diff(radii) > 0).all() and (np.diff(thresholds) >= 0).all()


def test_callable_metric_on_vectors_with_custom_embedder():
    from sklearn.decomposition import PCA

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    manhattan_calls = []

    def manhattan(x, y):
        manhattan_calls.append(1)
        return float(np.abs(x - y).sum())

    search = FilterRefineNeighbors(
        PCA(n_components=3), metric=manhattan, n_neighbors=2, n_candidates=5
    ).fit(X)
    manhattan_calls.clear()
    distances, indices = search.kneighbors(X[:4])
    assert len(manhattan_calls) == 4 * 5  # the callable only sees the candidates
    assert (indices[:, 0] == np.arange(4)).all() and (distances[:, 0] == 0).all()


@pytest.mark.parametrize(
    "estimator",
    [
        FilterRefineNeighbors(),
        FilterRefineTransformer(),
        FilterRefineClassifier(),
        FilterRefineRegressor(),
        CGKEmbedder(),
    ],
)
def test_single_string_is_rejected(estimator):
    with pytest.raises(ValueError, match=r"single string.*Wrap it in a list"):
        estimator.fit("ACGT") if not hasattr(estimator, "predict") else estimator.fit("ACGT", [0])


@pytest.mark.parametrize(
    "bad, error, index",
    [
        (None, ValueError, 1),
        (float("nan"), ValueError, 1),
        (3, TypeError, 1),
    ],
)
def test_non_string_items_name_their_index(bad, error, index):
    with pytest.raises(error, match=rf"X\[{index}\]"):
        FilterRefineNeighbors().fit(["ab", bad, "cd"])
    fitted = FilterRefineNeighbors(n_neighbors=1).fit(["ab", "cd"])
    with pytest.raises(error, match=rf"X\[{index}\]"):
        fitted.kneighbors(["ab", bad])


def test_empty_list_is_rejected():
    with pytest.raises(ValueError, match="0 strings"):
        FilterRefineNeighbors().fit([])
    with pytest.raises(ValueError, match="0 strings"):
        CGKEmbedder().fit([])


def test_empty_strings_are_valid():
    search = FilterRefineNeighbors(n_neighbors=1).fit(["", "a", "ab"])
    distances, indices = search.kneighbors([""])
    assert indices[0, 0] == 0 and distances[0, 0] == 0


def test_unseen_characters_and_long_queries_are_handled():
    # 4 edits from "abc": beyond the lookups, the query goes through the filter.
    query = "\u00e9\u00e9abc\U0001f600\U0001f600"
    search = FilterRefineNeighbors(CGKEmbedder(random_state=0), n_neighbors=1, random_state=0).fit(
        ["abc", "abd", "xyz"]
    )
    with pytest.warns(UserWarning, match="longer than max_length=3"):
        distances, indices = search.kneighbors([query])
    assert indices[0, 0] == 0 and distances[0, 0] == 4  # exact metric sees the whole query
    default = FilterRefineNeighbors(n_neighbors=1).fit(["abc", "abd", "xyz"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # q-gram profiles have no length limit
        distances, indices = default.kneighbors([query])
    assert indices[0, 0] == 0 and distances[0, 0] == 4


def test_too_many_neighbors_is_rejected():
    search = FilterRefineNeighbors(n_neighbors=2).fit(["a", "b", "c"])
    with pytest.raises(ValueError, match="n_neighbors <= n_samples_fit = 3, but n_neighbors = 4"):
        search.kneighbors(["a"], n_neighbors=4)
    with pytest.raises(ValueError, match="n_samples_fit = 2"):
        search.kneighbors(n_neighbors=3)


def test_fewer_candidates_than_neighbors_is_rejected():
    with pytest.raises(ValueError, match="fewer than n_neighbors=5.*Increase n_candidates"):
        FilterRefineNeighbors(n_neighbors=5, n_candidates=3).fit(list("abcdefgh"))
    search = FilterRefineNeighbors(n_neighbors=2, n_candidates=3).fit(list("abcdefgh"))
    with pytest.raises(ValueError, match="fewer than n_neighbors=4"):
        search.kneighbors(["a"], n_neighbors=4)


def test_unknown_metric_is_rejected():
    with pytest.raises(ValueError, match="Unknown metric 'edit'"):
        FilterRefineNeighbors(metric="edit").fit(["a", "b"])


def test_mismatched_y_length_is_rejected():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        FilterRefineClassifier().fit(["a", "b", "c"], [0, 1])
    with pytest.raises(ValueError, match="requires y"):
        FilterRefineRegressor().fit(["a", "b"], None)


def test_unfitted_use_raises_not_fitted():
    with pytest.raises(NotFittedError):
        FilterRefineNeighbors().kneighbors(["a"])
    with pytest.raises(NotFittedError):
        CGKEmbedder().transform(["a"])


def test_dataframe_columns_are_checked():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"word": ["ab", "cd", "ef"]})
    search = FilterRefineNeighbors(n_neighbors=1).fit(frame)
    assert search.kneighbors(pd.Series(["ab"]))[1][0, 0] == 0
    with pytest.raises(ValueError, match="2 columns"):
        FilterRefineNeighbors().fit(frame.assign(other=1))


@pytest.mark.slow
def test_nndescent_filter_agrees_with_brute_filter(families):
    """NNDescent compiles numba code for tens of seconds: slow, run with -m slow."""
    strings, _ = families
    results = {}
    for algorithm in ("brute", "nndescent"):
        search = FilterRefineNeighbors(
            CGKEmbedder(random_state=0),
            n_neighbors=3,
            n_candidates=30,
            filter_algorithm=algorithm,
            random_state=0,
        ).fit(strings)
        results[algorithm] = search.kneighbors(strings)
        excluded = search.kneighbors(return_distance=False)
        assert not (excluded == np.arange(len(strings))[:, None]).any()
    exact, _ = brute_force(strings, strings, 3)
    for distances, _ in results.values():
        assert (distances <= exact[:, -1:]).mean() > 0.95


def test_a_named_processor_is_applied_to_base_and_queries_and_saved(tmp_path):
    from sklearn_ed import load
    from sklearn_ed.metrics import pruned_fraction

    names = ["John Smith", "Mary Jones", "Smith, Anna", "anna  SMITH"]
    search = FilterRefineNeighbors(processor="default_sort_tokens", n_neighbors=1).fit(names)
    assert search.get_params()["processor"] == "default_sort_tokens"
    np.testing.assert_array_equal(search.kneighbors(["smith john", "JONES, mary"])[0], 0.0)
    restored = load(search.save(tmp_path / "names"))
    for got, expected in zip(
        restored.kneighbors(["smith anna"]), search.kneighbors(["smith anna"])
    ):
        np.testing.assert_array_equal(got, expected)
    assert 0 <= pruned_fraction(search, ["SMITH JOHN"]) < 1


def test_a_processor_returning_a_non_string_is_refused():
    with pytest.raises(TypeError, match=r"returned a int for X\[0\] \('ab'\); a processor must"):
        FilterRefineNeighbors(processor=len).fit(["ab", "cd"])
    with pytest.raises(ValueError, match="processor='lower' transforms strings"):
        FilterRefineNeighbors(metric="euclidean", processor="lower").fit(np.zeros((3, 2)))
