"""The record metric: its kernels against the per-pair oracle, its bound below
them, and exact answers of the nearest records, joins and groups under it."""

import numpy as np
import pandas as pd
import pytest
from rapidfuzz.distance import JaroWinkler
from sklearn.base import clone

from sklearn_ed import FastMapEmbedder, FilterRefineNeighbors, StringDeduplicator, similarity_join
from sklearn_ed.distances import pairwise_distances
from sklearn_ed.records import (
    Column,
    RecordEmbedder,
    make_record_metric,
    nearest_records,
    record_join,
    to_records,
)

COLUMNS = [
    Column("first_name", metric="jaro_winkler"),
    Column("last_name", metric="normalized_indel"),
    Column("street_address", metric="normalized_levenshtein"),
    Column("city", metric="token_set"),
    Column("date_of_birth", metric="levenshtein", processor=None),
]
WEIGHTS = [1, 1, 2, 1, 0.5]

# Blanks, a swap of first and last name, unicode, a value the processor empties.
ODD_PEOPLE = pd.DataFrame(
    {
        "first_name": ["Zoë", "Lee", "Zoe", None, "José", "  ", "Łukasz", "李", "Ann"],
        "last_name": ["Lee", "Zoë", "Lee", "Núñez", "Núñez", "Smith", "Wójcik", "小龙", np.nan],
        "street_address": [
            "1 Rue d'Été",
            "1 rue d'ete",
            "",
            "7 Calle Mayor",
            "7 C. Mayor",
            "9 Elm St",
            "ul. Długa 3",
            "北京路 8",
            "--",
        ],
        "city": ["Paris", "Paris", "Paris", "Madrid", pd.NA, "Leeds", "Gdańsk", "北京", "York"],
        "date_of_birth": [
            "19800101",
            "19800101",
            None,
            "19751230",
            "19751203",
            "",
            "19900909",
            "20000101",
            "19800101",
        ],
    }
)


@pytest.fixture(scope="module")
def metric():
    return make_record_metric(COLUMNS, weights=WEIGHTS, missing_distance=[0.3, 0.3, 0.4, 0.2, 2])


@pytest.fixture(scope="module")
def people(person_records):
    frame = person_records[0].rename(columns={"name": "full_name"})
    return to_records(frame, COLUMNS)


def brute_neighbors(distances, k):
    order = np.lexsort(
        (np.broadcast_to(np.arange(distances.shape[1]), distances.shape), distances)
    )[:, :k]
    return np.take_along_axis(distances, order, axis=1), order


def test_to_records_processes_once_and_marks_missing_blank():
    records = to_records(ODD_PEOPLE, COLUMNS)
    assert records.shape == (9, 5)
    assert records[3, 0] == "" and records[8, 1] == "" and records[4, 3] == ""
    assert records[8, 2] == ""  # "--" is blank once processed
    assert records[0, 0] == "zoë" and records[5, 4] == ""


def test_pairwise_and_paired_equal_the_oracle(metric):
    records = to_records(ODD_PEOPLE, COLUMNS)
    distances = metric.pairwise(records, records)
    oracle = np.array([[metric.oracle(x, y) for y in records] for x in records])
    np.testing.assert_allclose(distances, oracle, atol=1e-12)
    rows = np.arange(len(records))
    np.testing.assert_allclose(
        metric.paired(records, records[rows[::-1]]), oracle[rows, rows[::-1]], atol=1e-12
    )
    # One letter of the first name, the street (0.4) and the date (2) missing.
    first_name = JaroWinkler.normalized_distance("zoë", "zoe")
    assert distances[0, 2] == pytest.approx((first_name + 2 * 0.4 + 0.5 * 2) / 5.5)


def test_weights_and_missing_distance_enter_the_distance():
    records = to_records(ODD_PEOPLE, COLUMNS)
    equal = make_record_metric(COLUMNS)
    # Zoë Lee and Zoe Lee differ by one letter of the first name (weight 1/5);
    # the street and the date are missing (0.5 each by default).
    jaro_winkler = JaroWinkler.normalized_distance("zoë", "zoe")
    assert equal.oracle(records[0], records[2]) == pytest.approx((jaro_winkler + 2 * 0.5) / 5)


def test_lower_bound_is_below_every_distance(metric, people):
    base, queries = people[:400], people[400:500]
    bounds = metric.lower_bound(base).bounds(queries)
    distances = metric.pairwise(queries, base)
    assert np.all(bounds <= distances + 1e-12)
    assert np.mean(bounds > 0) > 0.5  # it prunes: not a bound of zeros


@pytest.mark.parametrize("exact", [True, False])
def test_nearest_records_equal_brute_force(metric, people, exact):
    base, queries = people[:1500], people[1500:1700]
    distances = metric.pairwise(queries, base)
    expected_distances, expected = brute_neighbors(distances, 3)
    # The filter, not brute force: the embedder is given.
    search = FilterRefineNeighbors(
        n_neighbors=3,
        metric=metric,
        embedder=metric.embedder(),
        exact=exact,
        n_candidates=20 if exact else len(base),
    ).fit(base)
    found_distances, found = search.kneighbors(queries)
    np.testing.assert_allclose(found_distances, expected_distances, atol=1e-12)
    assert np.mean(found == expected) > 0.99  # ties may order apart


def test_nearest_records_of_odd_people_with_brute_force_auto(metric):
    records = to_records(ODD_PEOPLE, COLUMNS)
    search = FilterRefineNeighbors(n_neighbors=2, metric=metric, exact=True).fit(records)
    assert search.search_method_ == "brute_force"
    found_distances, _ = search.kneighbors()
    distances = metric.pairwise(records, records)
    np.fill_diagonal(distances, np.inf)
    np.testing.assert_allclose(found_distances, np.sort(distances, axis=1)[:, :2], atol=1e-12)


def test_record_embedder_finds_duplicates_fastmap_misses(metric, people, person_records):
    # Queries with a planted duplicate in the base: their nearest record is it.
    entity = person_records[1]
    base = np.arange(1500)
    in_base = np.isin(entity, entity[base])
    queries = np.flatnonzero(in_base)[np.flatnonzero(in_base) >= 1500][:150]
    nearest = metric.pairwise(people[queries], people[base]).argmin(axis=1)
    assert np.mean(entity[base][nearest] == entity[queries]) > 0.9

    def recall(embedder):
        embedder.fit(people[base])
        vectors_base = embedder.transform(people[base])
        vectors_queries = embedder.transform(people[queries])
        if hasattr(vectors_base, "toarray"):
            scores = -(vectors_queries @ vectors_base.T).toarray()
        else:
            scores = pairwise_distances(vectors_queries, vectors_base, metric="euclidean")
        top = np.argsort(scores, axis=1, kind="stable")[:, :10]
        return np.mean([nearest[i] in top[i] for i in range(len(queries))])

    ours = recall(RecordEmbedder(tuple(COLUMNS), weights=metric.pairwise.keywords["weights"]))
    fastmap = recall(FastMapEmbedder(metric=metric, random_state=0))
    assert ours >= 0.95
    assert ours > fastmap + 0.2


@pytest.mark.parametrize("threshold", [0.05, 0.15])
def test_joins_equal_brute_force(metric, people, threshold):
    records = people[:800]
    distances = metric.pairwise(records, records)
    rows, columns = np.triu_indices(len(records), 1)
    kept = distances[rows, columns] <= metric.limit(threshold)
    left, right, found = similarity_join(records, threshold=threshold, metric=metric)
    assert set(zip(left.tolist(), right.tolist())) == set(
        zip(rows[kept].tolist(), columns[kept].tolist())
    )
    np.testing.assert_allclose(found, distances[left, right], atol=1e-12)
    left, right, _ = similarity_join(
        records[:300], records[300:], threshold=threshold, metric=metric
    )
    expected = np.argwhere(distances[:300, 300:] <= metric.limit(threshold))
    assert set(zip(left.tolist(), right.tolist())) == set(map(tuple, expected.tolist()))


def test_joins_find_copies_of_complete_records_only(metric):
    # A missing value is never equal, not even to a copy of itself.
    records = to_records(pd.concat([ODD_PEOPLE] * 3, ignore_index=True), COLUMNS)
    left, right, _ = similarity_join(records, threshold=0.0, metric=metric)
    complete = [0, 1, 6, 7]
    expected = {(row + 9 * a, row + 9 * b) for row in complete for a, b in [(0, 1), (0, 2), (1, 2)]}
    assert set(zip(left.tolist(), right.tolist())) == expected


def test_deduplicator_groups_records_within_the_threshold(metric, people):
    records = people[:600]
    dedup = StringDeduplicator(threshold=0.1, metric=metric).fit(records)
    distances = metric.pairwise(records, records)
    representative = dedup.representatives_[dedup.labels_]
    members = np.flatnonzero(representative != np.arange(len(records)))
    assert np.all(distances[representative[members], members] <= metric.limit(0.1))
    assert dedup.n_groups_ < len(records)  # the planted duplicates are grouped


def test_bad_records_and_parameters_are_named():
    metric = make_record_metric(COLUMNS)
    records = to_records(ODD_PEOPLE, COLUMNS)
    with pytest.raises(ValueError, match=r"rows of 5 values"):
        metric.pairwise(records[:, :4], records)
    with pytest.raises(TypeError, match="to_records"):
        metric.pairwise(ODD_PEOPLE[[c.name for c in COLUMNS]].to_numpy(dtype=object), records)
    with pytest.raises(ValueError, match="no column"):
        to_records(ODD_PEOPLE.drop(columns="city"), COLUMNS)
    with pytest.raises(ValueError, match="weights must be 5 positive"):
        make_record_metric(COLUMNS, weights=[1, 2])
    with pytest.raises(ValueError, match="missing_distance"):
        make_record_metric(COLUMNS, missing_distance=-1)


def test_a_registered_record_metric_saves_and_loads_with_its_search(tmp_path, metric, people):
    from sklearn_ed import load, save
    from sklearn_ed.distances import register_metric

    register_metric(metric, overwrite=True)
    search = FilterRefineNeighbors(
        n_neighbors=2, metric=metric, embedder=metric.embedder(), exact=True, n_candidates=20
    ).fit(people[:1000])
    save(search, tmp_path / "search")
    loaded = load(tmp_path / "search")
    for first, second in zip(
        search.kneighbors(people[1000:1100]), loaded.kneighbors(people[1000:1100])
    ):
        np.testing.assert_array_equal(first, second)
    embedder = clone(search.embedder_).fit(people[:1000])
    np.testing.assert_array_equal(
        embedder.transform(people[:50]).toarray(), search.embedder_.transform(people[:50]).toarray()
    )
    assert embedder.get_feature_names_out()[0].startswith("first_name:")


def test_nearest_records_and_record_join_name_rows_by_their_labels(person_records):
    frame = person_records[0].rename(columns={"name": "full_name"}).iloc[:400]
    frame = frame.set_axis([f"p{i}" for i in range(len(frame))])
    base, queries = frame.iloc[:300], frame.iloc[300:]
    metric = make_record_metric(COLUMNS, weights=WEIGHTS)
    distances = metric.pairwise(to_records(queries, COLUMNS), to_records(base, COLUMNS))
    found = nearest_records(base, queries, columns=COLUMNS, weights=WEIGHTS, n_neighbors=2)
    assert found.columns.tolist() == ["right", "left", "rank", "distance"]
    assert found["right"].tolist() == np.repeat(queries.index, 2).tolist()
    np.testing.assert_allclose(
        found["distance"].to_numpy().reshape(-1, 2), np.sort(distances, axis=1)[:, :2], atol=1e-12
    )
    nearest = base.index[distances.argmin(axis=1)]
    assert np.mean(found.loc[found["rank"] == 0, "left"].to_numpy() == nearest) > 0.99
    pairs = record_join(base, queries, columns=COLUMNS, weights=WEIGHTS, threshold=0.3)
    expected = np.argwhere(distances.T <= metric.limit(0.3))
    assert set(zip(pairs["left"], pairs["right"])) == {
        (base.index[i], queries.index[j]) for i, j in expected
    }
