"""Comparison vectors: pairs as a DataFrame, features for any classifier."""

import numpy as np
import pandas as pd
import pytest
from _person_records import PERSON_COLUMNS
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from sklearn_ed.records import BlockingRule, Column, ComparisonLevels, candidate_pairs, pairs_frame


@pytest.fixture(scope="module")
def labelled_pairs(person_records):
    frame, entity, _ = person_records
    rules = [BlockingRule("name", threshold=2), BlockingRule("street_address", threshold=2)]
    rows, columns, _ = candidate_pairs(frame, rules)
    pairs = pairs_frame(frame, rows, columns)
    return pairs, entity[rows] == entity[columns]


def test_pairs_frame_holds_both_sides_indexed_by_ids(person_records):
    frame, _, _ = person_records
    pairs = pairs_frame(frame, [0, 5], [1, 7], columns=["name", "city"])
    assert list(pairs.columns) == ["name_l", "name_r", "city_l", "city_r"]
    assert pairs.index.tolist() == [(0, 1), (5, 7)]
    assert pairs["name_r"].tolist() == frame["name"].iloc[[1, 7]].tolist()
    with pytest.raises(KeyError, match="postcode"):
        pairs_frame(frame, [0], [1], columns=["postcode"])


def test_levels_are_each_columns_levels(labelled_pairs):
    pairs, _ = labelled_pairs
    levels = ComparisonLevels(PERSON_COLUMNS).fit_transform(pairs)
    assert levels.shape == (len(pairs), len(PERSON_COLUMNS)) and levels.dtype == np.int8
    city = PERSON_COLUMNS[2]
    assert np.array_equal(levels[:, 2], city.levels(pairs["city_l"], pairs["city_r"]))


def test_a_classifier_on_levels_separates_the_labelled_pairs(labelled_pairs):
    """Trained on labelled pairs in a Pipeline, cross-validated: far above the
    share of matches a constant guess would score."""
    pairs, is_match = labelled_pairs
    model = make_pipeline(
        ComparisonLevels(PERSON_COLUMNS),
        OneHotEncoder(handle_unknown="ignore"),
        LogisticRegression(max_iter=1000),
    )
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    f1 = cross_val_score(model, pairs, is_match, cv=folds, scoring="f1")
    assert f1.mean() > 0.95


def test_similarities_with_missing_values_feed_gradient_boosting(labelled_pairs):
    pairs, is_match = labelled_pairs
    similarity = ComparisonLevels(PERSON_COLUMNS, output="similarity").fit_transform(pairs)
    assert np.isnan(similarity).any() and np.nanmax(similarity) <= 1.0
    search = GridSearchCV(
        make_pipeline(ComparisonLevels(PERSON_COLUMNS), HistGradientBoostingClassifier()),
        {"comparisonlevels__output": ["levels", "similarity"]},
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
        scoring="f1",
    ).fit(pairs, is_match)
    assert search.best_score_ > 0.95


def test_feature_names_clone_and_errors(labelled_pairs):
    pairs, _ = labelled_pairs
    comparison = ComparisonLevels(["name", "city"])
    with pytest.raises(NotFittedError):
        comparison.transform(pairs)
    comparison.fit(pairs)
    assert comparison.get_feature_names_out().tolist() == ["name", "city"]
    assert clone(comparison).get_params() == comparison.get_params()
    with pytest.raises(KeyError, match="city_r"):
        comparison.transform(pairs.drop(columns="city_r"))
    with pytest.raises(TypeError, match="DataFrame"):
        comparison.transform(pairs.to_numpy())
    with pytest.raises(ValueError, match="output"):
        ComparisonLevels(["name"], output="weights").fit(pairs)
    frame = ComparisonLevels(["name"]).set_output(transform="pandas").fit_transform(pairs)
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == ["name"]


def test_term_frequency_columns_add_the_rarity_of_a_shared_value():
    people = pd.DataFrame(
        {
            "name": ["Ann Lee", "Anne Lee", "Bob Ray", "Al Smith", "Al Smith", "Al Smith"],
            "city": ["Oslo", "Oslo", None, "Rome", "Rome", "Rome"],
        }
    )
    pairs = pairs_frame(people, [0, 0, 3, 3], [1, 2, 4, 5])
    comparison = ComparisonLevels(["name", Column("city", thresholds=(), term_frequencies=True)])
    features = comparison.fit_transform(pairs)
    assert comparison.get_feature_names_out().tolist() == ["name", "city", "city_rarity"]
    # Oslo is 3 of the 7 present city values of the pairs, Rome 4 of them.
    np.testing.assert_allclose(features[:, 2], -np.log2([3 / 7, 1, 4 / 7, 4 / 7]) * [1, 0, 1, 1])
    unseen = pairs_frame(pd.DataFrame({"name": ["x", "y"], "city": ["Lima", "Lima"]}), [0], [1])
    assert comparison.transform(unseen)[0, 2] > features[:, 2].max()
