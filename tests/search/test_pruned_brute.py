"""Brute force pruned by a metric's bound (Jaro, Jaro-Winkler, the normalized
distances): brute force's answers, ties and exclusions included, from a
fraction of the distances."""

import dataclasses
import pickle
from functools import partial

import numpy as np
import pytest
from rapidfuzz.distance import Indel, Jaro, JaroWinkler
from rapidfuzz.process import cdist

from sklearn_ed.datasets import make_person_records
from sklearn_ed.distances import (
    JaroBagBound,
    JaroWinklerBagBound,
    LengthRatioBound,
    get_metric,
)
from sklearn_ed.search import BruteSearch
from sklearn_ed.search._pruned_brute import (
    JUDGED_QUERIES,
    RETRY_AFTER,
    PruningBound,
    _list_distances,
)


def _edited(text, rng):
    where = rng.integers(len(text))
    return text[:where] + "xq"[rng.integers(2)] + text[where + 1 :]


@pytest.fixture(scope="module")
def records():
    """1,500 person records, and 60 queries: 40 of them edited records."""
    rng = np.random.default_rng(0)
    strings = list(make_person_records(1_560, random_state=0).data)
    queries = [_edited(text, rng) for text in strings[:40]] + strings[1_500:]
    return np.array(strings[:1_500], dtype=object), np.array(queries, dtype=object)


def _unpruned(name):
    return dataclasses.replace(get_metric(name), brute_force_bound=None)


@pytest.mark.parametrize(
    "name", ["jaro", "jaro_winkler", "normalized_levenshtein", "normalized_indel"]
)
@pytest.mark.parametrize("k", [1, 3])
def test_pruned_brute_force_answers_as_brute_force(records, name, k):
    base, queries = records
    pruned = BruteSearch(get_metric(name), n_jobs=2).build(base)
    plain = BruteSearch(_unpruned(name), n_jobs=2).build(base)
    exclude = np.where(np.arange(len(queries)) % 3 == 0, np.arange(len(queries)), -1)
    (distances, indices), verified = pruned.kneighbors(queries, k, exclude=exclude)
    (expected_distances, expected_indices), _ = plain.kneighbors(queries, k, exclude=exclude)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_array_equal(distances, expected_distances)
    tied = pruned.neighbors_and_ties(queries, k, exclude=exclude)[2]
    for found, expected in zip(tied, plain.neighbors_and_ties(queries, k, exclude=exclude)[2]):
        np.testing.assert_array_equal(found, expected)
    if k == 1:
        # An edited record's nearest neighbor, its own record, is near: most
        # items are ruled out (where that record is excluded, fewer).
        near = verified[:40][exclude[:40] < 0]
        assert near.mean() < 0.05 * len(base), near


def test_queries_the_bound_does_not_prune_are_compared_whole_and_then_skip_it(records):
    base, queries = records

    class CountedBound:
        def __init__(self):
            self.calls = 0

        def bounds(self, batch):
            self.calls += 1
            return np.zeros((len(batch), len(base)))  # rules out nothing

    counted = CountedBound()
    pruning = PruningBound(counted)
    metric = get_metric("jaro")
    block, exclude = queries[:JUDGED_QUERIES], np.full(JUDGED_QUERIES, -1)
    rows, _, whole = pruning.top_k(metric, 1, False, block, base, exclude)
    assert len(rows) == 0 and len(whole) == JUDGED_QUERIES
    for _ in range(RETRY_AFTER):
        assert pruning.top_k(metric, 1, False, block, base, exclude) is None
    pruning.top_k(metric, 1, False, block, base, exclude)
    # Tried at the first block, skipped for RETRY_AFTER, tried again.
    assert counted.calls == 2
    # A block of fewer queries does not judge the bound.
    small = PruningBound(CountedBound())
    small.top_k(metric, 1, False, block[:2], base, exclude[:2])
    assert small.top_k(metric, 1, False, block[:2], base, exclude[:2]) is not None


def test_a_bound_that_fails_on_a_blocks_first_queries_is_not_paid_for_the_rest(records):
    base, queries = records
    bounded = []

    class ZeroBound:
        def bounds(self, batch):
            bounded.append(len(batch))
            return np.zeros((len(batch), len(base)))  # rules out nothing

    metric = get_metric("jaro")
    block = queries[: 3 * JUDGED_QUERIES]
    exclude = np.full(len(block), -1)
    rows, _, whole = PruningBound(ZeroBound()).top_k(metric, 1, False, block, base, exclude)
    assert bounded == [JUDGED_QUERIES]
    np.testing.assert_array_equal(np.sort(np.concatenate([rows, whole])), np.arange(len(block)))
    assert len(whole) == len(block)


def test_a_bound_that_pays_on_a_blocks_first_queries_prunes_the_rest_exactly(records):
    base, queries = records
    metric = get_metric("jaro_winkler")
    block = queries[: 3 * JUDGED_QUERIES]
    exclude = np.full(len(block), -1)
    exclude[JUDGED_QUERIES + 1] = 5
    pruning = PruningBound(metric.brute_force_bound(base))
    rows, (distances, indices, tied, verified), whole = pruning.top_k(
        metric, 1, True, block, base, exclude
    )
    assert len(rows) > JUDGED_QUERIES  # the rest pruned too
    exact = cdist(block, base, scorer=JaroWinkler.normalized_distance, dtype=np.float64)
    exact[JUDGED_QUERIES + 1, 5] = np.inf
    for row, found_distances, found_indices, found_tied in zip(rows, distances, indices, tied):
        order = np.lexsort((np.arange(len(base)), exact[row]))[:1]
        np.testing.assert_array_equal(found_indices, order)
        np.testing.assert_array_equal(found_distances, exact[row, order])
        np.testing.assert_array_equal(
            found_tied, np.flatnonzero(exact[row] == exact[row, order[-1]])
        )
    assert (verified < len(base)).all()


def test_a_bound_sent_to_another_process_leaves_its_base_behind(records):
    base, queries = records
    pruning = PruningBound(get_metric("jaro").brute_force_bound(base))
    copied = pickle.loads(pickle.dumps(pruning))
    assert len(pickle.dumps(pruning)) < 1_000
    assert copied.top_k(get_metric("jaro"), 1, False, queries[:2], base, np.full(2, -1)) is None


@pytest.mark.parametrize(
    "scorer, bound, scale",
    [
        (Jaro, partial(JaroBagBound, scale=1 / 3), 1 / 3),
        (JaroWinkler, partial(JaroBagBound, scale=0.2), 0.2),
        (JaroWinkler, JaroWinklerBagBound, 0.2),
    ],
)
def test_the_character_bound_is_lossless_and_at_least_the_length_ratio(
    records, scorer, bound, scale
):
    base, queries = records
    # Long strings need counts wider than a byte; empty ones are at 0 or 1.
    extra = ["a" * 300, "a" * 299 + "b", "", "ab" * 200]
    base, queries = [*base[:300], *extra], [*queries, *extra]
    exact = cdist(queries, base, scorer=scorer.normalized_distance, dtype=np.float64)
    bounds = bound(base).bounds(queries)
    assert (bounds <= exact).all()
    assert (bounds >= LengthRatioBound(base, scale).bounds(queries) - 1e-9).all()
    assert bounds[-4, -4] == 0.0 and bounds[-2, -2] == 0.0
    # The bound rules out most random pairs of records at a near neighbor's distance.
    assert np.mean(bounds[:40, :300] > 0.05) > 0.9


def test_the_jaro_winkler_bound_counts_each_pairs_own_prefix(records):
    base, queries = records
    with_prefix = JaroWinklerBagBound(base).bounds(queries)
    longest_prefix = JaroBagBound(base, scale=0.2).bounds(queries)
    assert (with_prefix >= longest_prefix - 1e-12).all()  # equal at 4, but for rounding
    # Unrelated records share a prefix of 0 or 1 characters: 1.5 to 1.67 times the bound.
    assert np.median(with_prefix / np.maximum(longest_prefix, 1e-12)) > 1.45
    # Its prefixes are rebuilt from the strings of a copy.
    copied = pickle.loads(pickle.dumps(JaroWinklerBagBound(base)))
    np.testing.assert_array_equal(copied.bounds(queries), with_prefix)
    # A prefix ends with its string: "ab" and "abc" share 2 characters, not more.
    short = JaroWinklerBagBound(["abc", "ab"]).bounds(["ab"])
    exact = cdist(["ab"], ["abc", "ab"], scorer=JaroWinkler.normalized_distance)
    assert (short <= exact).all() and short[0, 1] == 0.0


@pytest.mark.parametrize("longest", [20, 600])
def test_short_and_long_lists_get_the_distances_of_every_pair(records, longest):
    # Lists up to PAIRED_LIST_LENGTH share one padded paired call; longer
    # ones are compared a query at a time: both give every pair's distance.
    base, queries = records
    metric = get_metric("normalized_indel")
    rng = np.random.default_rng(1)
    lengths = rng.integers(0, longest, size=6)
    lengths[2] = longest
    lists = [np.sort(rng.choice(len(base), size=n, replace=False)) for n in lengths]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    limits = np.full(6, 0.5)
    found = _list_distances(metric, queries[:6], base, np.concatenate(lists), offsets, limits)
    exact = cdist(queries[:6], base, scorer=Indel.normalized_distance, dtype=np.float64)
    expected = np.concatenate([exact[row, columns] for row, columns in enumerate(lists)])
    expected[expected > 0.5] = np.inf
    np.testing.assert_allclose(found, expected)
