"""Column: levels against the metric's plain oracle, and missing values."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ed.distances import available_metrics, get_metric
from sklearn_ed.records import Column

STRING_METRICS = [name for name in available_metrics() if get_metric(name).input_type == "strings"]
WORDS = ["martha", "marhta", "dwayne", "duane", "dixon", "dicksonx", "", "straße", "strasse", "jon"]


def oracle_level(column, a, b):
    """The level by the definition: equal, the first threshold within, else."""
    if a == "" or b == "":
        return -1
    if a == b:
        return 0
    distance = get_metric(column.metric).oracle(a, b)
    for position, threshold in enumerate(column.thresholds):
        if distance <= threshold:
            return position + 1
    return len(column.thresholds) + 1


@pytest.mark.parametrize("metric", STRING_METRICS)
def test_levels_match_the_metric_oracle(metric):
    unit = 1.0 if get_metric(metric).normalized else 4.0
    column = Column("name", metric=metric, thresholds=(0.15 * unit, 0.4 * unit), processor=None)
    left, right = np.meshgrid(np.array(WORDS, dtype=object), np.array(WORDS, dtype=object))
    left, right = left.ravel(), right.ravel()
    expected = [oracle_level(column, a, b) for a, b in zip(left, right)]
    assert column.levels(left, right).tolist() == expected


@pytest.mark.parametrize("blank", [None, np.nan, pd.NA, "", "   "])
def test_any_blank_is_missing_never_equal(blank):
    column = Column("city", thresholds=())
    assert column.levels([blank, "oslo", blank], ["oslo", blank, blank]).tolist() == [-1, -1, -1]


def test_a_value_the_processor_empties_is_missing():
    column = Column("city", processor="default", thresholds=())
    assert column.levels(["--", "Oslo"], ["--", "oslo!"]).tolist() == [-1, 0]


def test_numbers_and_dates_compare_as_their_text():
    column = Column("postcode", metric="levenshtein", thresholds=(1,), processor=None)
    assert column.levels([2600, 2600, 2600], ["2600", 2601, 2711]).tolist() == [0, 1, 2]


def test_similarities_are_one_minus_the_distance_nan_where_missing():
    column = Column("name", metric="normalized_indel", processor=None)
    similarity = column.similarities(["abcd", "abcd", None], ["abcd", "abce", "x"])
    assert similarity[:2].tolist() == [1.0, 0.75]
    assert np.isnan(similarity[2])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(name=""), "non-empty str"),
        (dict(name="a", metric="dtw"), "not a string metric"),
        (dict(name="a", metric="no_such_metric"), "no_such_metric"),
        (dict(name="a", thresholds=(0.2, 0.1)), "increasing"),
        (dict(name="a", thresholds=(-1,)), "increasing"),
        (dict(name="a", processor="upper"), "processor"),
    ],
)
def test_bad_columns_name_the_problem(kwargs, message):
    with pytest.raises((ValueError, TypeError, KeyError), match=message):
        Column(**kwargs)


def test_level_names_follow_the_thresholds():
    column = Column("a", thresholds=(0.1, 0.2))
    assert column.level_names == ["equal", "within 0.1", "within 0.2", "else"]
    assert column.n_levels == 4
