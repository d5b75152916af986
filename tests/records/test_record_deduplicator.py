"""RecordDeduplicator on generated person records with planted duplicates."""

import pickle

import numpy as np
import pandas as pd
import pytest
from _person_records import PERSON_COLUMNS, pair_f1, same_entity_pairs
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from sklearn_ed import StringDeduplicator, load, save
from sklearn_ed.records import BlockingRule, Column, RecordDeduplicator


@pytest.fixture(scope="module")
def fitted(person_records):
    frame, _, _ = person_records
    return RecordDeduplicator(PERSON_COLUMNS).fit(frame)


def test_groups_find_the_planted_duplicates_better_than_one_string(person_records, fitted):
    """The column-wise model against the one-string setting the dedup page
    recommends: a dropped city or date costs the one string its length."""
    frame, entity, joined = person_records
    truth = same_entity_pairs(entity)
    ours = pair_f1(same_entity_pairs(fitted.labels_), truth)
    one_string = StringDeduplicator(
        min_similarity=0.85, metric="normalized_indel", processor="default_sort_tokens"
    ).fit_predict(joined)
    assert ours > 0.97
    assert ours > pair_f1(same_entity_pairs(one_string), truth) + 0.1


def test_default_blocking_keeps_the_selective_rules_and_every_true_pair(person_records, fitted):
    frame, entity, _ = person_records
    described = fitted.blocking_report_["rule"]
    assert "name equal" in described and "date_of_birth equal" in described
    # Two edits for long values (streets), one for short ones (names): the join's
    # segments stay long enough to prune.
    assert "street_address within 2 (levenshtein)" in described
    assert "name within 1 (levenshtein)" in described
    # A city makes more than 20 pairs per record at 3,000 records? Then it is left out.
    for rule, pairs in zip(described, fitted.blocking_report_["pairs"]):
        assert pairs <= 20 * len(frame), rule
    rows, columns = fitted.candidate_pairs_.T
    found = set(zip(rows.tolist(), columns.tolist()))
    truth = same_entity_pairs(entity)
    assert len(found & truth) / len(truth) > 0.99


def test_pairs_frame_explains_each_weight(fitted):
    pairs = fitted.pairs_frame()
    contributions = pairs[[column.name + "_weight" for column in PERSON_COLUMNS]].sum(axis=1)
    prior = np.log2(fitted.model_.prior_ / (1 - fitted.model_.prior_))
    assert np.allclose(pairs["match_weight"], prior + contributions)
    assert (pairs["match"] == (pairs["match_probability"] >= fitted.model_.threshold_)).all()
    matched = pairs[pairs["match"]]
    assert (fitted.labels_[matched["left"]] == fitted.labels_[matched["right"]]).mean() > 0.95


def test_predict_puts_held_out_duplicates_in_their_originals_group(person_records):
    frame, entity, _ = person_records
    dedup = RecordDeduplicator(PERSON_COLUMNS).fit(frame.iloc[:2500])
    labels = dedup.predict(frame.iloc[2500:])
    fitted_entities = entity[:2500]
    for position, label in enumerate(labels):
        held_out = entity[2500 + position]
        if label < dedup.n_groups_:
            assert held_out in fitted_entities[dedup.labels_ == label]
        else:
            assert label >= dedup.n_groups_
    has_original = np.isin(entity[2500:], fitted_entities)
    found = labels < dedup.n_groups_
    assert (found & has_original).sum() / has_original.sum() > 0.95
    assert len(set(labels[~found])) == (~found).sum()  # one new group each


def test_index_labels_name_the_pairs(person_records):
    frame, _, _ = person_records
    named = frame.iloc[:600].set_index(pd.Index([f"r{i}" for i in range(600)], name="id"))
    pairs = RecordDeduplicator(PERSON_COLUMNS).fit(named).pairs_frame()
    assert pairs["left"].str.startswith("r").all()


def test_save_load_pickle_and_clone_give_the_same_answers(tmp_path, person_records, fitted):
    frame, _, _ = person_records
    new = frame.iloc[:50]
    save(fitted, tmp_path / "dedup")
    for copy in (load(tmp_path / "dedup"), pickle.loads(pickle.dumps(fitted))):
        assert np.array_equal(copy.labels_, fitted.labels_)
        assert np.array_equal(copy.predict(new), fitted.predict(new))
    refit = clone(fitted).fit(frame)
    assert np.array_equal(refit.labels_, fitted.labels_)


def test_unfitted_and_bad_tables_name_the_problem(person_records):
    frame, _, _ = person_records
    dedup = RecordDeduplicator(PERSON_COLUMNS)
    with pytest.raises(NotFittedError):
        dedup.predict(frame)
    with pytest.raises(TypeError, match="DataFrame"):
        dedup.fit(frame["name"].tolist())
    with pytest.raises(KeyError, match="postcode"):
        RecordDeduplicator(["name", "postcode"]).fit(frame)
    with pytest.raises(ValueError, match="at least 2"):
        dedup.fit(frame.iloc[:1])
    with pytest.raises(ValueError, match="linkage"):
        RecordDeduplicator(PERSON_COLUMNS, linkage="single").fit(frame)
    with pytest.raises(TypeError, match="BlockingRule"):
        RecordDeduplicator(PERSON_COLUMNS, blocking=["name"]).fit(frame)


def test_rules_that_find_nothing_or_a_table_with_no_selective_column_are_refused():
    table = pd.DataFrame({"state": ["nsw", "vic"] * 50, "name": [f"n{i}" for i in range(100)]})
    with pytest.raises(ValueError, match="no candidate pairs"):
        RecordDeduplicator(["name"], blocking=[BlockingRule("name")]).fit(table)
    with pytest.raises(ValueError, match="selective"):
        RecordDeduplicator([Column("state", thresholds=())]).fit(table)


def test_link_names_both_sides_by_their_labels(person_records):
    frame, _, _ = person_records
    fitted = frame.iloc[:1000].set_index(pd.Index([f"old{i}" for i in range(1000)]))
    new = frame.iloc[1000:1200].set_index(pd.Index([f"new{i}" for i in range(200)]))
    dedup = RecordDeduplicator(PERSON_COLUMNS).fit(fitted)
    pairs = dedup.link(new)
    assert pairs["left"].str.startswith("new").all() and pairs["right"].str.startswith("old").all()
    assert (pairs["right"].to_numpy() == dedup.record_ids_[pairs["right_position"]]).all()
