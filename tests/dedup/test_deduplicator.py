"""StringDeduplicator: groups checked against the exact distances of their members."""

import itertools

import numpy as np
import pandas as pd
import pytest
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

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
