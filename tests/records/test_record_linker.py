"""RecordLinker: two tables cut from generated person records, and term frequencies."""

import pickle

import numpy as np
import pandas as pd
import pytest
from _person_records import PERSON_COLUMNS
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from sklearn_ed import load, save, similarity_join
from sklearn_ed.records import Column, RecordDeduplicator, RecordLinker


@pytest.fixture(scope="module")
def tables(person_records):
    """Left: the first record of each entity; right: one duplicate of each
    entity that has one (no table holds two records of an entity), labelled."""
    frame, entity, joined = person_records
    first = ~pd.Series(entity).duplicated().to_numpy()
    second = pd.Series(np.where(first, -1, entity)).duplicated().to_numpy() | first
    left = frame[first].set_index(pd.Index([f"l{i}" for i in np.flatnonzero(first)]))
    right = frame[~second].set_index(pd.Index([f"r{i}" for i in np.flatnonzero(~second)]))
    truth = {
        (f"l{i}", f"r{j}")
        for j in np.flatnonzero(~second)
        for i in np.flatnonzero(first & (entity == entity[j]))
    }
    return left, right, truth, joined[first], joined[~second]


@pytest.fixture(scope="module")
def linker(tables):
    left, right, _, _, _ = tables
    return RecordLinker(PERSON_COLUMNS).fit(left, right)


def link_f1(found, truth):
    hits = len(found & truth)
    return 2 * hits / (len(found) + len(truth))


def test_links_beat_one_string_at_the_recommended_setting(tables, linker):
    left, right, truth, left_strings, right_strings = tables
    pairs = linker.pairs_frame()
    ours = set(zip(pairs["left"][pairs["match"]], pairs["right"][pairs["match"]]))
    rows, columns, _ = similarity_join(
        left_strings,
        right_strings,
        min_similarity=0.85,
        metric="normalized_indel",
        processor="default_sort_tokens",
    )
    one_string = set(zip(left.index[rows], right.index[columns]))
    assert link_f1(ours, truth) > 0.97
    assert link_f1(ours, truth) > link_f1(one_string, truth) + 0.1


def test_predict_names_each_right_records_match_and_fit_predict_agrees(tables, linker):
    left, right, truth, _, _ = tables
    found = linker.predict(right)
    assert found.shape == (len(right),) and found.dtype == object
    expected = {right_id: left_id for left_id, right_id in truth}
    correct = [label == expected.get(name) for name, label in zip(right.index, found)]
    assert np.mean(correct) > 0.97
    assert list(clone(linker).fit_predict(left, right)) == list(found)


def test_pairs_join_the_tables_never_a_table_with_itself(tables):
    left, right, _, _, _ = tables
    # A copy of a left record inside left: the linker must not pair the two.
    doubled = pd.concat([left.iloc[:300], left.iloc[:1].rename(index=lambda name: name + "b")])
    linker = RecordLinker(PERSON_COLUMNS).fit(doubled, right)
    pairs = linker.pairs_frame()
    assert pairs["left"].str.startswith("l").all() and pairs["right"].str.startswith("r").all()
    assert (linker.candidate_pairs_[:, 0] < len(doubled)).all()


def test_one_to_one_uses_each_record_once(tables, linker):
    left, right, truth, _, _ = tables
    once = RecordLinker(PERSON_COLUMNS, one_to_one=True).fit(left, right)
    pairs = once.pairs_frame()
    matched = pairs[pairs["match"]]
    assert not matched["left"].duplicated().any() and not matched["right"].duplicated().any()
    found = set(zip(matched["left"], matched["right"]))
    assert len(found & truth) >= 0.97 * len(truth)
    many = linker.pairs_frame()
    assert many["match"].sum() >= matched.shape[0]


def test_save_load_pickle_and_clone_give_the_same_answers(tmp_path, tables, linker):
    left, right, _, _, _ = tables
    new = right.iloc[:80]
    save(linker, tmp_path / "linker")
    for copy in (load(tmp_path / "linker"), pickle.loads(pickle.dumps(linker))):
        assert np.array_equal(copy.matches_, linker.matches_)
        assert list(copy.predict(new)) == list(linker.predict(new))
    pd.testing.assert_frame_equal(load(tmp_path / "linker").pairs_frame(), linker.pairs_frame())


def test_unfitted_and_bad_tables_name_the_problem(tables):
    left, right, _, _, _ = tables
    with pytest.raises(NotFittedError):
        RecordLinker(PERSON_COLUMNS).predict(right)
    with pytest.raises(TypeError, match="DataFrame as Y"):
        RecordLinker(PERSON_COLUMNS).fit(left, right["name"].tolist())
    with pytest.raises(KeyError, match="table Y has no columns.*city"):
        RecordLinker(PERSON_COLUMNS).fit(left, right.drop(columns="city"))
    with pytest.raises(TypeError, match="term_frequencies must be a bool"):
        Column("city", term_frequencies="yes")


def test_term_frequencies_weigh_a_rare_shared_value_above_a_common_one(person_records):
    frame, _, _ = person_records
    columns = [
        *PERSON_COLUMNS[:2],
        Column("city", metric="normalized_indel", thresholds=(0.1,), term_frequencies=True),
        PERSON_COLUMNS[3],
    ]
    dedup = RecordDeduplicator(columns).fit(frame)
    pairs = dedup.pairs_frame()
    equal_city = pairs[pairs["city"] == 0]
    counts = frame["city"].str.lower().value_counts()
    shared = frame.loc[equal_city["left"], "city"].str.lower().to_numpy()
    frequency = counts.loc[shared].to_numpy()
    weight = equal_city["city_weight"].to_numpy()
    assert weight[frequency == frequency.min()].min() > weight[frequency == frequency.max()].max()
    # The parts add up to the weight: the prior's log odds and each column's part.
    parts = pairs[[f"{column.name}_weight" for column in columns]].sum(axis=1)
    prior = np.log2(dedup.model_.prior_ / (1 - dedup.model_.prior_))
    np.testing.assert_allclose(parts + prior, pairs["match_weight"], atol=1e-9)
    # Without term frequencies an equal city weighs the same whatever the city.
    plain = RecordDeduplicator(PERSON_COLUMNS).fit(frame).pairs_frame()
    assert plain.loc[plain["city"] == 0, "city_weight"].nunique() == 1
