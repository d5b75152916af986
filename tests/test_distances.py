import numpy as np
import pytest

from sklearn_ed.distances import (
    Metric,
    available_metrics,
    candidate_distances,
    get_metric,
    pairwise_distances,
    register_metric,
)

UNICODE_STRINGS = [
    "", "a", "abc", "cafe\u0301", "caf\u00e9", "\U0001F600\U0001F601", "\u6f22\u5b57",
    "\u6f22\u5b57\u4eee\u540d", "na\u00efve", "a\U0001F600b",
]
VECTORS = np.random.default_rng(0).normal(size=(7, 3))


def sample_items(metric):
    return VECTORS if metric.input_type == "vectors" else UNICODE_STRINGS


@pytest.mark.parametrize("name", available_metrics())
def test_pairwise_matches_plain_oracle(name):
    metric = get_metric(name)
    items = sample_items(metric)
    expected = np.array([[metric.oracle(x, y) for y in items] for x in items])
    np.testing.assert_allclose(pairwise_distances(items, metric=name), expected)


@pytest.mark.parametrize("name", available_metrics())
def test_parallel_pairwise_equals_serial(name):
    items = sample_items(get_metric(name))
    np.testing.assert_array_equal(pairwise_distances(items, metric=name, n_jobs=2),
                                  pairwise_distances(items, metric=name))


@pytest.mark.parametrize("name", available_metrics())
def test_candidate_distances_match_full_matrix(name):
    items = sample_items(get_metric(name))
    full = pairwise_distances(items, metric=name)
    rng = np.random.default_rng(0)
    candidates = np.array([rng.permutation(len(items))[:4] for _ in range(len(items))])
    refined = candidate_distances(items, items, candidates, metric=name, n_jobs=2)
    np.testing.assert_allclose(refined, np.take_along_axis(full, candidates, axis=1))


def test_levenshtein_counts_code_points():
    # A combining accent is its own code point: "cafe" + U+0301 is 1 edit from "café".
    assert pairwise_distances(["cafe\u0301"], ["caf\u00e9"])[0, 0] == 2
    assert pairwise_distances([""], ["\U0001F600\U0001F601"])[0, 0] == 2


def test_score_cutoff_marks_far_candidates_infinite():
    base = ["aaaa", "aaab", "bbbb"]
    refined = candidate_distances(["aaaa"], base, np.array([[0, 1, 2]]), score_cutoff=[1])
    np.testing.assert_array_equal(refined, [[0.0, 1.0, np.inf]])


def test_empty_candidate_slots_are_infinite():
    refined = candidate_distances(["ab"], ["ab", "b"], np.array([[1, -1]]))
    np.testing.assert_array_equal(refined, [[1.0, np.inf]])


def test_hamming_counts_length_difference():
    assert pairwise_distances(["abc"], ["abxde"], metric="hamming")[0, 0] == 3


def test_unknown_metric_names_the_choices():
    with pytest.raises(ValueError, match="Unknown metric 'levenstein'.*levenshtein"):
        pairwise_distances(["a"], ["b"], metric="levenstein")


def test_callable_metric_is_wrapped():
    def length_gap(x, y):
        return abs(len(x) - len(y))

    distances = pairwise_distances(["a", "abc"], ["ab"], metric=length_gap)
    np.testing.assert_array_equal(distances, [[1.0], [1.0]])
    assert get_metric(length_gap).name == "length_gap"


def test_register_metric_refuses_silent_overwrite():
    metric = Metric(name="levenshtein", pairwise=lambda X, Y, score_cutoff=None: None,
                    input_type="strings")
    with pytest.raises(ValueError, match="already registered"):
        register_metric(metric)


def test_candidates_shape_is_checked():
    with pytest.raises(ValueError, match="one row per query"):
        candidate_distances(["a", "b"], ["a"], np.array([[0]]))
