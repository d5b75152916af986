"""Blocking rules: every pair a rule describes, checked against all pairs."""

import itertools

import numpy as np
import pandas as pd
import pytest
from rapidfuzz.distance import Levenshtein

from sklearn_ed.records import BlockingRule, candidate_pairs, iter_candidate_pairs

FIRST = ["ann", "anne", "bob", "ann", None, "bób", "zoë", "zoe", "", "Ann"]
LAST = ["lee", "li", "ray", "lee", "lee", "ray", "wu", "wu", "ng", "lee"]


@pytest.fixture
def people():
    return pd.DataFrame({"first": FIRST, "last": LAST})


def brute_pairs(keys, within, other=None):
    """Every pair whose keys (both present) satisfy ``within``, from all pairs."""
    if other is None:
        candidates = itertools.combinations(range(len(keys)), 2)
        other = keys
    else:
        candidates = itertools.product(range(len(keys)), range(len(other)))
    return sorted(
        (i, j) for i, j in candidates if keys[i] and other[j] and within(keys[i], other[j])
    )


def as_pairs(rows, columns):
    return sorted(zip(rows.tolist(), columns.tolist()))


def test_equal_rule_pairs_equal_processed_keys(people):
    rule = BlockingRule("first")
    keys = rule.keys(people)
    assert keys[9] == "ann" and keys[4] == "" and keys[8] == ""
    assert as_pairs(*rule.pairs(people)) == brute_pairs(keys, str.__eq__)
    assert rule.n_pairs(people) == len(brute_pairs(keys, str.__eq__))


@pytest.mark.parametrize("threshold", [1, 2])
def test_near_rule_finds_every_pair_within(people, threshold):
    rule = BlockingRule(("first", "last"), threshold=threshold)
    keys = rule.keys(people)
    assert keys[4] == "lee"  # a blank first name: the key is the part present

    def within(a, b):
        return Levenshtein.distance(a, b) <= threshold

    assert as_pairs(*rule.pairs(people)) == brute_pairs(keys, within)


def test_two_tables_pair_rows_of_each(people):
    other = pd.DataFrame({"first": ["ANN", "zoey", None], "last": ["x", "y", "z"]})
    equal, near = BlockingRule("first"), BlockingRule("first", threshold=1)
    left, right = equal.keys(people), equal.keys(other)
    assert as_pairs(*equal.pairs(people, other)) == brute_pairs(left, str.__eq__, right)
    expected = brute_pairs(left, lambda a, b: Levenshtein.distance(a, b) <= 1, right)
    assert as_pairs(*near.pairs(people, other)) == expected


def test_union_reports_what_each_rule_adds(people):
    rules = [BlockingRule("first"), BlockingRule("last"), BlockingRule("last", threshold=1)]
    each = [set(as_pairs(*rule.pairs(people))) for rule in rules]
    rows, columns, report, found_by = candidate_pairs(people, rules, return_rules=True)
    union = set().union(*each)
    assert as_pairs(rows, columns) == sorted(union) and (rows < columns).all()
    assert report["pairs"].tolist() == [len(pairs) for pairs in each]
    assert report["new_pairs"].tolist() == [
        len(each[0]),
        len(each[1] - each[0]),
        len(each[2] - each[0] - each[1]),
    ]
    assert report["total_pairs"].iloc[-1] == len(union)
    for position, pairs in enumerate(each):
        found = {pair for pair, hit in zip(as_pairs(rows, columns), found_by[:, position]) if hit}
        assert found == pairs


def test_recall_of_known_pairs_in_either_order(people):
    truth = (np.array([3, 2, 6]), np.array([0, 5, 7]))  # (3, 0) given high first
    _, _, report = candidate_pairs(people, [BlockingRule("first")], true_pairs=truth)
    assert report["recall"].tolist() == pytest.approx([1 / 3])


def test_sampled_pair_count_of_a_near_rule_is_close():
    rng = np.random.default_rng(0)
    words = ["".join(rng.choice(list("abc"), 4)) for _ in range(3000)]
    table = pd.DataFrame({"word": words})
    rule = BlockingRule("word", threshold=1)
    exact = len(rule.pairs(table)[0])
    assert rule.n_pairs(table, sample_size=600) == pytest.approx(exact, rel=0.15)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(columns=()), "column names"),
        (dict(columns="a", threshold=-1), "threshold"),
        (dict(columns="a", threshold=1, metric="dtw"), "string metric"),
        (dict(columns="a", processor="upper"), "processor"),
    ],
)
def test_bad_rules_name_the_problem(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        BlockingRule(**kwargs)


STREAM_RULES = [
    BlockingRule("first"),
    BlockingRule("last", threshold=1),
    BlockingRule(("first", "last"), threshold=0.2, metric="normalized_indel"),
]


@pytest.mark.parametrize("block_size", [1, 3, 2**20])
@pytest.mark.parametrize("two_tables", [False, True])
def test_streamed_pairs_are_the_union_each_pair_once_from_its_first_rule(
    person_records, block_size, two_tables
):
    frame = person_records[0].iloc[:600]
    records, other = (frame.iloc[:300], frame.iloc[300:]) if two_tables else (frame, None)
    rules = [
        BlockingRule("last_name"),
        BlockingRule("name", threshold=2, processor="default_sort_tokens"),
        BlockingRule(("city", "date_of_birth")),
        BlockingRule("street_address", threshold=0.2, metric="normalized_indel"),
    ]
    rows, columns, report = candidate_pairs(records, rules, other)
    streamed = list(iter_candidate_pairs(records, rules, other, block_size=block_size))
    pairs = [
        (i, j)
        for block_rows, block_columns, _ in streamed
        for i, j in zip(block_rows.tolist(), block_columns.tolist())
    ]
    assert len(pairs) == len(set(pairs))
    assert set(pairs) == set(zip(rows.tolist(), columns.tolist()))
    per_rule = np.zeros(len(rules), dtype=int)
    for block_rows, _, rule in streamed:
        per_rule[rule] += len(block_rows)
        # A key shared by many records may exceed the block by one record's partners.
        assert len(block_rows) <= max(block_size, len(records if other is None else other))
    assert per_rule.tolist() == report["new_pairs"].tolist()


def test_streamed_pairs_of_the_small_table_and_bad_block_size(people):
    rows, columns, _ = candidate_pairs(people, STREAM_RULES)
    streamed = [
        (i, j)
        for block_rows, block_columns, _ in iter_candidate_pairs(people, STREAM_RULES, block_size=2)
        for i, j in zip(block_rows.tolist(), block_columns.tolist())
    ]
    assert sorted(streamed) == sorted(zip(rows.tolist(), columns.tolist()))
    with pytest.raises(ValueError, match="block_size"):
        next(iter_candidate_pairs(people, STREAM_RULES, block_size=0))
