"""The pair filter of the characters shared: the pairs the dense bound keeps."""

import numpy as np
import pytest

from sklearn_ed.datasets import make_person_records
from sklearn_ed.distances import JaroBagBound, NormalizedBagBound

BOUNDS = {
    "normalized_levenshtein": lambda base: NormalizedBagBound(base, normalizer="longer"),
    "normalized_indel": lambda base: NormalizedBagBound(base, normalizer="sum"),
    "jaro": lambda base: JaroBagBound(base, scale=1 / 3),
    "jaro_winkler": lambda base: JaroBagBound(base, scale=0.2),
}


@pytest.fixture(scope="module")
def strings():
    """Person records with edited copies, short and empty strings, unicode."""
    rng = np.random.default_rng(0)
    records = list(make_person_records(150, random_state=0).data)
    edited = []
    for text in records[:60]:
        where = int(rng.integers(len(text)))
        edited.append(text[:where] + "é" + text[where + 1 :])
    return np.array(records + edited + ["", "", "a", "ab", "ba", "日本語"], dtype=object)


@pytest.mark.parametrize("name", sorted(BOUNDS))
@pytest.mark.parametrize("threshold", [0.0, 0.1, 0.25, 0.5, 1.0])
def test_the_pairs_are_those_the_dense_bound_keeps(strings, name, threshold):
    queries, base = strings[::2], strings
    bound = BOUNDS[name](base)
    expected = np.argwhere(bound.bounds(queries) <= threshold)
    pair_filter = bound.pair_filter(queries, threshold)
    rows, items = pair_filter.pairs(np.arange(len(queries)), 0, len(base))
    assert np.array_equal(np.stack([rows, items], axis=1).reshape(-1, 2), expected)


@pytest.mark.parametrize("name", ["normalized_indel", "jaro"])
def test_a_window_and_the_upper_triangle(strings, name):
    bound = BOUNDS[name](strings)
    dense = bound.bounds(strings) <= 0.3
    pair_filter = bound.pair_filter(strings, 0.3)
    rows = np.arange(40, 90)
    rows_found, items = pair_filter.pairs(rows, 60, 200, upper=True)
    expected = [(r, i) for r in rows for i in range(max(60, r + 1), 200) if dense[r, i]]
    assert list(zip(rows_found.tolist(), items.tolist())) == expected
    assert len(expected) > 50  # the records' edited copies, and more
    # Every pair (the output grows many times over its first allocation).
    n = len(strings)
    every_row, every_item = bound.pair_filter(strings, 1.0).pairs(np.arange(n), 0, n)
    assert every_row.tolist() == np.repeat(np.arange(n), n).tolist()
    assert every_item.tolist() == np.tile(np.arange(n), n).tolist()


def test_the_filter_keeps_few_random_records_and_declines_long_strings(strings):
    records = strings[:150]
    pair_filter = BOUNDS["normalized_indel"](records).pair_filter(records, 0.15)
    assert pair_filter.pass_rate() < 0.01
    assert BOUNDS["normalized_indel"](records).pair_filter(records, 1.0).pass_rate() == 1.0
    long = np.array(["a" * 256, "ab"], dtype=object)
    assert BOUNDS["jaro"](records).pair_filter(long, 0.1) is None
    assert BOUNDS["jaro"](long).pair_filter(records, 0.1) is None


@pytest.mark.parametrize("indel", [False, True], ids=["levenshtein", "indel"])
@pytest.mark.parametrize("threshold", [0, 1, 3, 8])
def test_the_radius_filter_keeps_every_pair_within_and_rules_out_by_the_count(
    strings, indel, threshold
):
    from rapidfuzz.distance import Indel, Levenshtein

    from sklearn_ed.distances import edit_radius, radius_pair_filter

    scorer = (Indel if indel else Levenshtein).distance
    queries, items = strings[::3], strings[1::2]
    pair_filter = radius_pair_filter(queries, items, edit_radius(threshold), indel=indel)
    rows, columns = pair_filter.pairs(np.arange(len(queries)), 0, len(items))
    kept = set(zip(rows.tolist(), columns.tolist()))
    for i, query in enumerate(queries):
        for j, item in enumerate(items):
            shared = sum(min(query.count(c), item.count(c)) for c in set(query))
            bag = (
                len(query) + len(item) - 2 * shared
                if indel
                else max(len(query), len(item)) - shared
            )
            if scorer(query, item) <= threshold:
                assert (i, j) in kept  # lossless
            # Few characters share a bucket here: what the exact count rules out is ruled out.
            if bag > threshold and all(ord(c) < 128 for c in query + item):
                assert (i, j) not in kept
    assert radius_pair_filter(np.array(["a" * 300], dtype=object), None, edit_radius(2)) is None
