import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

from sklearn_ed import CGKEmbedder, FilterRefineNeighbors
from sklearn_ed.metrics import (
    RecallCurveDisplay,
    approximation_error,
    exact_distance_speedup,
    exact_distances_needed,
    make_exact_distance_speedup_scorer,
    make_top_k_recall_scorer,
    recall_curve,
    top_k_recall,
)

EXACT = np.array([[1.0, 2.0, 3.0, 4.0, 5.0], [5.0, 4.0, 3.0, 2.0, 1.0]])
EMBEDDED = np.array(
    [
        [0.1, 0.3, 0.2, 0.5, 0.4],  # embedding order: 0, 2, 1, 4, 3
        [0.1, 0.2, 0.3, 0.4, 0.5],
    ]
)  # embedding order: 0, 1, 2, 3, 4


def test_top_k_recall_hand_computed():
    # Query 0: true top-2 = {0, 1} at embedding ranks 1, 3. Query 1: {4, 3} at ranks 5, 4.
    assert top_k_recall(EXACT, EMBEDDED, k=2, n_candidates=1) == pytest.approx(0.25)
    assert top_k_recall(EXACT, EMBEDDED, k=2, n_candidates=3) == pytest.approx(0.5)
    assert top_k_recall(EXACT, EMBEDDED, k=2, n_candidates=4) == pytest.approx(0.75)
    counts, recall = recall_curve(EXACT, EMBEDDED, k=2, n_candidates=[1, 2, 3, 4, 5])
    np.testing.assert_allclose(recall, [0.25, 0.25, 0.5, 0.75, 1.0])


def test_exact_distances_needed_and_speedup_hand_computed():
    np.testing.assert_array_equal(exact_distances_needed(EXACT, EMBEDDED, k=2), [3, 5])
    assert exact_distance_speedup(EXACT, EMBEDDED, k=2, p=0.5) == pytest.approx(5 / 3)
    assert exact_distance_speedup(EXACT, EMBEDDED, k=2, p=1.0) == pytest.approx(1.0)
    assert exact_distance_speedup(EXACT, EXACT, k=1, p=1.0) == pytest.approx(5.0)


def test_ties_in_exact_distance_count_for_any_tied_item():
    exact = np.array([[1.0, 1.0, 1.0, 9.0]])
    embedded = np.array([[0.3, 0.2, 0.1, 0.0]])
    # Any of the three items at distance 1 is a valid nearest neighbor.
    assert top_k_recall(exact, embedded, k=1, n_candidates=2) == 1.0
    np.testing.assert_array_equal(exact_distances_needed(exact, embedded, k=1), [2])


def test_approximation_error_fits_on_training_pairs():
    train_exact, train_embedded = [1.0, 2.0, 3.0], [2.0, 4.0, 6.0]  # g(d) = d / 2
    error = approximation_error(
        [2.0, 4.0], [4.0, 12.0], fit_exact=train_exact, fit_embedding=train_embedded
    )
    assert error == pytest.approx((0 / 2 + 2 / 4) / 2)
    quadratic = approximation_error([1.0, 2.0, 3.0], [1.0, 4.0, 9.0], degree=2)
    assert quadratic == pytest.approx(0.0, abs=1e-9)


def test_metric_input_errors():
    with pytest.raises(ValueError, match="same shape"):
        top_k_recall(EXACT, EMBEDDED[:1], k=1)
    with pytest.raises(ValueError, match="k must be an integer"):
        top_k_recall(EXACT, EMBEDDED, k=6)
    with pytest.raises(ValueError, match="p must be in"):
        exact_distance_speedup(EXACT, EMBEDDED, k=1, p=0)


def test_scorers_rank_a_real_embedding_above_a_scrambled_one(families):
    strings, _ = families
    good = CGKEmbedder(n_repetitions=3, random_state=0).fit(strings)
    scrambled = CGKEmbedder(n_repetitions=3, random_state=0).fit(strings)
    scrambled.walk_bits_ = np.zeros_like(scrambled.walk_bits_)  # the walk never advances
    recall = make_top_k_recall_scorer(k=3, n_candidates=10)
    speedup = make_exact_distance_speedup_scorer(k=3, p=0.9)
    assert recall(good, strings) > recall(scrambled, strings) + 0.3
    assert speedup(good, strings) > 2 * speedup(scrambled, strings)


def test_scorers_in_grid_search_for_embedder_and_search(families):
    strings, _ = families
    grid = GridSearchCV(
        CGKEmbedder(random_state=0),
        {"n_repetitions": [1, 3]},
        cv=3,
        scoring={
            "recall": make_top_k_recall_scorer(k=3, n_candidates=0.1),
            "speedup": make_exact_distance_speedup_scorer(k=3),
        },
        refit="recall",
        n_jobs=2,
    ).fit(strings)
    assert set(grid.cv_results_) >= {"mean_test_recall", "mean_test_speedup"}
    search_grid = GridSearchCV(
        FilterRefineNeighbors(CGKEmbedder(random_state=0), n_neighbors=3),
        {"n_candidates": [3, 1.0]},
        cv=3,
        scoring=make_top_k_recall_scorer(k=3),
    ).fit(strings)
    scores = search_grid.cv_results_["mean_test_score"]
    assert scores[1] == 1.0 and scores[0] < 1.0  # every candidate: exact search
    assert search_grid.best_params_ == {"n_candidates": 1.0}


def test_recall_curve_display_draws_one_line_per_embedder(families):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    strings, _ = families
    embedders = {
        name: CGKEmbedder(variant, random_state=0).fit(strings)
        for name, variant in (("CGK", "cgk"), ("CGK'", "cgk_prime"))
    }
    display = RecallCurveDisplay.from_estimator(embedders, strings[:10], strings[10:], k=5)
    assert set(display.lines_) == {"CGK", "CGK'"}
    assert display.ax_.get_ylabel() == "top-5 recall"
    assert display.recall["CGK"][-1] == 1.0
