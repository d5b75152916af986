"""StringDeduplicator: groups checked against the exact distances of their members."""

import itertools
import sys

import numpy as np
import pandas as pd
import pytest
from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

import sklearn_ed.dedup._deduplicator as deduplicator_module
import sklearn_ed.join._api as join_api
from sklearn_ed import StringDeduplicator

THRESHOLD = 2


@pytest.fixture(scope="module")
def strings(families):
    names, _ = families
    return np.array(names, dtype=object)


def distances_of(strings):
    return process.cdist(strings, strings, scorer=Levenshtein.distance)


def test_every_member_is_within_the_threshold_of_its_representative(strings):
    dedup = StringDeduplicator(THRESHOLD).fit(strings)
    exact = distances_of(strings)
    representative_of = dedup.representatives_[dedup.labels_]
    assert (exact[np.arange(len(strings)), representative_of] <= THRESHOLD).all()
    assert (dedup.labels_[dedup.representatives_] == np.arange(dedup.n_groups_)).all()
    assert dedup.group_sizes_.sum() == len(strings)


def test_complete_linkage_keeps_every_pair_of_a_group_within(strings):
    labels = StringDeduplicator(THRESHOLD, linkage="complete").fit_predict(strings)
    exact = distances_of(strings)
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        assert exact[np.ix_(members, members)].max() <= THRESHOLD


def test_connected_linkage_is_the_components_of_the_near_pairs(strings):
    labels = StringDeduplicator(THRESHOLD, linkage="connected").fit_predict(strings)
    exact = distances_of(strings)
    _, expected = connected_components(csr_matrix(exact <= THRESHOLD), directed=False)
    # The same partition, whatever the numbering.
    assert len(set(zip(labels, expected))) == len(set(labels)) == len(set(expected))


def test_a_chain_is_not_one_group_unless_asked():
    chain = ["aaaa", "aaab", "aabb", "abbb", "bbbb"]
    assert len(set(StringDeduplicator(1, linkage="connected").fit_predict(chain))) == 1
    for linkage in ("representative", "complete"):
        labels = StringDeduplicator(1, linkage=linkage).fit_predict(chain)
        for a, b in itertools.combinations(range(5), 2):
            if labels[a] == labels[b]:
                assert Levenshtein.distance(chain[a], chain[b]) <= 2


def test_labels_number_groups_by_their_first_member():
    labels = StringDeduplicator(1).fit_predict(["zed", "apple", "zen", "appel", "q"])
    assert labels.tolist() == [0, 1, 0, 2, 3]


def test_predict_joins_groups_or_opens_new_ones(strings):
    dedup = StringDeduplicator(THRESHOLD).fit(strings)
    representatives = strings[dedup.representatives_]
    assert (dedup.predict(representatives) == np.arange(dedup.n_groups_)).all()
    far = ["zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzy"]
    new = dedup.predict(far + ["qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"])
    assert new.tolist() == [dedup.n_groups_, dedup.n_groups_, dedup.n_groups_ + 1]


def test_pandas_in_and_a_table_of_groups_out():
    names = pd.Series(["Jon Smith", "John Smith", "Smith John", "Ann Lee", "Anne Lee", "Bo"])
    dedup = StringDeduplicator(
        min_similarity=0.85, metric="normalized_indel", processor="default_sort_tokens"
    ).fit(names)
    table = dedup.groups_frame(names)
    assert table["size"].tolist() == [3, 2, 1]
    assert table["representative"].iloc[0] in {"Jon Smith", "John Smith", "Smith John"}


def test_threshold_kinds_are_checked():
    with pytest.raises(ValueError, match="needs a normalized metric"):
        StringDeduplicator(min_similarity=0.9).fit(["a", "b"])
    with pytest.raises(ValueError, match="X contains 0 strings"):
        StringDeduplicator(1).fit([])


def reference_groups(strings, metric, limit, linkage):
    """The groups the rows themselves give (every pair of rows held), as the
    deduplicator grouped before copies became one node."""
    exact = process.cdist(strings, strings, scorer=SCORERS[metric])
    near = (exact <= limit) & ~np.eye(len(strings), dtype=bool)
    degrees = near.sum(axis=1)
    order = np.lexsort((np.arange(len(strings)), -degrees))
    owner = np.full(len(strings), -1)
    if linkage == "connected":
        _, components = connected_components(csr_matrix(near), directed=False)
        first = {}
        for row in order:
            first.setdefault(components[row], row)
        owner = np.array([first[label] for label in components])
    for row in order if linkage != "connected" else ():
        if owner[row] >= 0:
            continue
        owner[row], members = row, [row]
        neighbors = np.flatnonzero(near[row])
        for neighbor in neighbors[np.lexsort((neighbors, exact[row, neighbors]))]:
            if owner[neighbor] < 0 and (linkage != "complete" or near[neighbor, members].all()):
                owner[neighbor] = row
                members.append(neighbor)
    _, first_rows = np.unique(owner, return_index=True)
    label_of = {owner[row]: label for label, row in enumerate(sorted(first_rows))}
    return np.array([label_of[o] for o in owner]), int(near.sum() // 2)


SCORERS = {
    "levenshtein": Levenshtein.distance,
    "token_set": lambda a, b, **_: (100 - fuzz.token_set_ratio(a, b)) / 100,
}


@pytest.mark.parametrize("linkage", ["representative", "complete", "connected"])
@pytest.mark.parametrize("metric, threshold", [("levenshtein", 1), ("token_set", 0.3)])
def test_copies_group_as_the_rows_themselves_would(linkage, metric, threshold):
    """Copies of a string are one node of the grouping: the labels, representatives
    and pair count are those of grouping every row (blank and wordless strings
    included, which token_set keeps apart from their own copies)."""
    rng = np.random.default_rng(7)
    pool = ["ann lee", "anne lee", "lee ann", "bob", "bobb", "", " ", "x y z", "x y"]
    strings = np.array(rng.choice(pool, 80).tolist(), dtype=object)
    dedup = StringDeduplicator(threshold, metric=metric, linkage=linkage).fit(strings)
    labels, n_pairs = reference_groups(strings, metric, threshold, linkage)
    np.testing.assert_array_equal(dedup.labels_, labels)
    assert dedup.n_pairs_ == n_pairs
    assert (dedup.labels_[dedup.representatives_] == np.arange(dedup.n_groups_)).all()


def test_identical_strings_group_within_a_small_memory(monkeypatch):
    """3,000 copies (a blank column) under 100 MiB of free memory: one group,
    built without holding the 4.5 million pairs."""
    import tracemalloc

    monkeypatch.setattr(join_api, "available_memory", lambda: 100 * 2**20)
    strings = ["same string here"] * 3_000 + ["same string hare"]
    for linkage in ("representative", "connected"):
        tracemalloc.start()
        dedup = StringDeduplicator(1, linkage=linkage).fit(strings)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert dedup.n_groups_ == 1 and dedup.n_pairs_ == 3_001 * 3_000 // 2
        assert peak < 20 * 2**20


def test_grouping_beyond_memory_is_refused_before_it_starts_unless_it_streams(monkeypatch):
    strings = [f"{a}{b}{c}" for a in "abcd" for b in "abcd" for c in "abcdefgh"]
    monkeypatch.setattr(join_api, "available_memory", lambda: 100_000)
    joined = []
    real = deduplicator_module.join_prepared
    monkeypatch.setattr(
        deduplicator_module, "join_prepared", lambda *a, **k: joined.append(1) or real(*a, **k)
    )
    with pytest.raises(MemoryError, match="linkage='connected' groups the pairs as they"):
        StringDeduplicator(2).fit(strings)
    assert joined == []
    connected = StringDeduplicator(2, linkage="connected")
    streamed = connected.fit_predict(strings)
    monkeypatch.setattr(join_api, "available_memory", lambda: None)
    assert streamed.tolist() == connected.fit_predict(strings).tolist()


def test_a_table_of_groups_shows_representatives_as_written():
    strings = ["ab\x00", "ab\x00", "cd"]
    frame = StringDeduplicator(0).fit(strings).groups_frame(strings)
    assert frame["representative"].tolist() == ["ab\x00", "cd"]
    with pytest.raises(ValueError, match="X holds 2 strings"):
        StringDeduplicator(0).fit(strings).groups_frame(strings[:2])


def test_a_table_of_groups_without_pandas_names_the_extra(monkeypatch):
    dedup = StringDeduplicator(0).fit(["a", "b"])
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"sklearn-ed\[pandas\]"):
        dedup.groups_frame()


@pytest.mark.parametrize("threshold", [float("inf"), 1e300, 2.0**62])
@pytest.mark.parametrize("method", ["auto", "partition", "brute"])
def test_a_threshold_beyond_every_distance_groups_everything(threshold, method):
    strings = ["ab", "abc", "xyz", ""]
    dedup = StringDeduplicator(threshold, method=method).fit(strings)
    assert dedup.n_pairs_ == 6 and dedup.n_groups_ == 1
