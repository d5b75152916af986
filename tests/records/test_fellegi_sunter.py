"""Fellegi-Sunter: EM recovers the probabilities of pairs drawn from a known model."""

import numpy as np
import pytest

from sklearn_ed.records import FellegiSunter

M = np.array([[0.85, 0.10, 0.05], [0.70, 0.20, 0.10], [0.90, 0.05, 0.05]])
U = np.array([[0.01, 0.04, 0.95], [0.05, 0.10, 0.85], [0.002, 0.008, 0.99]])


def draw(probabilities, n, rng):
    return np.column_stack([rng.choice(len(row), size=n, p=row) for row in probabilities]).astype(
        np.int64
    )


@pytest.fixture(scope="module")
def pairs():
    rng = np.random.default_rng(0)
    matches, non_matches = draw(M, 2_000, rng), draw(U, 18_000, rng)
    levels = np.vstack([matches, non_matches])
    truth = np.r_[np.ones(len(matches), bool), np.zeros(len(non_matches), bool)]
    missing = rng.random(levels.shape) < 0.05
    levels[missing] = -1
    return levels, truth, draw(U, 50_000, rng)


def test_em_without_random_pairs_recovers_m_u_and_the_prior(pairs):
    levels, truth, _ = pairs
    model = FellegiSunter().fit(levels)
    assert model.prior_ == pytest.approx(0.1, abs=0.01)
    assert np.allclose(model.m_probabilities_, M, atol=0.03)
    assert np.allclose(model.u_probabilities_, U, atol=0.01)


def test_fixed_u_from_random_pairs_and_the_prior_among_record_pairs(pairs):
    levels, truth, random_levels = pairs
    n_record_pairs = 1_000_000  # the 20,000 candidates stand among a million pairs
    model = FellegiSunter().fit(levels, random_levels=random_levels, n_record_pairs=n_record_pairs)
    assert np.allclose(model.u_probabilities_, U, atol=0.005)
    assert np.allclose(model.m_probabilities_, M, atol=0.03)
    # 2,000 matches among a million pairs: the prior, found as a fixed point. It
    # runs low by the matches that look like non-matches (their probability < 1).
    assert model.prior_ * n_record_pairs == pytest.approx(
        model.predict_proba(levels)[:, 1].sum(), rel=1e-3
    )
    assert 0.8 < model.prior_ * n_record_pairs / 2_000 < 1.0


def test_predictions_beat_any_single_column(pairs):
    levels, truth, random_levels = pairs
    predicted = FellegiSunter().fit(levels, random_levels=random_levels).predict(levels) == 1
    f1 = 2 * (predicted & truth).sum() / (predicted.sum() + truth.sum())
    best_column = max(
        2 * ((levels[:, c] == 0) & truth).sum() / ((levels[:, c] == 0).sum() + truth.sum())
        for c in range(levels.shape[1])
    )
    assert f1 > best_column + 0.05 and f1 > 0.9


def test_a_session_leaves_its_blocked_column_out(pairs):
    """Pairs blocked on column 0 all have level 0 there: the session must not learn
    from it, so m of column 0 comes from the other session alone."""
    levels, truth, random_levels = pairs
    blocked = levels.copy()
    first = np.arange(0, len(levels), 2)
    blocked[first, 0] = 0  # as if the rule on column 0 had picked them
    sessions = [(first, (0,)), (np.arange(1, len(levels), 2), ())]
    model = FellegiSunter().fit(blocked, random_levels=random_levels, sessions=sessions)
    alone = FellegiSunter().fit(
        blocked[1::2], random_levels=random_levels, sessions=[(np.arange(len(first)), ())]
    )
    assert np.allclose(model.m_probabilities_[0], alone.m_probabilities_[0])


def test_weights_are_the_prior_odds_plus_the_contributions(pairs):
    levels, _, random_levels = pairs
    model = FellegiSunter().fit(levels, random_levels=random_levels)
    contributions = model.contributions(levels[:5])
    assert (contributions[levels[:5] == -1] == 0).all()
    prior_weight = np.log2(model.prior_ / (1 - model.prior_))
    assert np.allclose(model.decision_function(levels[:5]), prior_weight + contributions.sum(1))
    probability = model.predict_proba(levels[:5])[:, 1]
    assert np.allclose(probability, 1 / (1 + 2.0 ** -model.decision_function(levels[:5])))


def test_auto_threshold_reports_its_estimated_precision_and_recall(pairs):
    levels, truth, random_levels = pairs
    model = FellegiSunter().fit(levels, random_levels=random_levels)
    predicted = model.predict(levels) == 1
    precision = (predicted & truth).sum() / predicted.sum()
    recall = (predicted & truth).sum() / truth.sum()
    assert model.estimated_precision_ == pytest.approx(precision, abs=0.05)
    assert model.estimated_recall_ == pytest.approx(recall, abs=0.05)
    fixed = FellegiSunter(threshold=0.99).fit(levels, random_levels=random_levels)
    assert fixed.threshold_ == 0.99 and fixed.predict(levels).sum() <= predicted.sum()


@pytest.mark.parametrize(
    "X, fit_params, message",
    [
        (np.zeros((0, 2), int), {}, "at least one pair"),
        (np.zeros((3, 2)), {}, "integers"),
        (np.full((3, 2), -2), {}, "missing"),
        (np.zeros((3, 2), int), dict(random_levels=np.zeros((3, 3), int)), "columns"),
        (np.zeros((3, 2), int), dict(sessions=[]), "random_levels"),
        (
            np.zeros((3, 2), int),
            dict(random_levels=np.ones((3, 2), int), sessions=[([0, 1, 2], (0,))]),
            "blocked on in every session",
        ),
        (
            np.zeros((3, 2), int),
            dict(random_levels=np.ones((3, 2), int), n_record_pairs=2),
            "below",
        ),
    ],
)
def test_bad_levels_name_the_problem(X, fit_params, message):
    with pytest.raises(ValueError, match=message):
        FellegiSunter().fit(X, **fit_params)


def test_levels_beyond_the_fitted_ones_are_refused(pairs):
    levels, _, _ = pairs
    model = FellegiSunter().fit(levels)
    with pytest.raises(ValueError, match="fitted on 3"):
        model.predict(np.array([[0, 0, 3]]))


def test_save_load_and_clone_keep_the_weights(tmp_path, pairs):
    from sklearn.base import clone

    from sklearn_ed import load, save

    levels, _, random_levels = pairs
    model = FellegiSunter(threshold=0.9).fit(levels, random_levels=random_levels)
    save(model, tmp_path / "model")
    loaded = load(tmp_path / "model")
    assert np.array_equal(loaded.decision_function(levels), model.decision_function(levels))
    assert clone(model).get_params() == model.get_params()
