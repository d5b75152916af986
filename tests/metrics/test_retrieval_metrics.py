"""Tests of the cluster-recovery metrics (Mochihashi, Kikui and Kita 2004, section 5)."""

import itertools

import numpy as np
import pytest
from sklearn.metrics import rand_score

from sklearn_ed.metrics import (
    eleven_point_average_precision,
    pairwise_clustering_precision,
    r_precision,
)


def _ranked(relevance):
    """One query whose base items come out in the given relevance order."""
    relevance = np.asarray(relevance)
    distances = np.arange(1, len(relevance) + 1, dtype=float)[None, :]
    return distances, [1], np.where(relevance, 1, 0)


# --------------------------------------------------------------------------
# hand-computed cases


@pytest.mark.parametrize(
    "relevance, eleven_point, r_prec",
    [
        # perfect ranking
        ([1, 1, 0, 0], 1.0, 1.0),
        # precision 1, 1/2, 2/3 at the hits' ranks: 6 levels (recall <= 0.5) at 1,
        # 5 levels at 2/3
        ([1, 0, 1], 28 / 33, 1 / 2),
        # single relevant item last of four: precision 1/4 at every level
        ([0, 0, 0, 1], 1 / 4, 0.0),
        # hits at ranks 1, 3, 6 (recall 1/3, 2/3, 1): levels 0-0.3 -> 1,
        # 0.4-0.6 -> 2/3, 0.7-1 -> 1/2
        ([1, 0, 1, 0, 0, 1], (4 * 1 + 3 * 2 / 3 + 4 * 1 / 2) / 11, 2 / 3),
        # 10 relevant: 3 first, then 10 misses, then 7. Level 0.3 needs exactly 3
        # hits (a float 0.3 * 10 = 3.0000000000000004 would ask for 4), so 4
        # levels at 1 and 7 levels at the best later precision, 10/20.
        ([1] * 3 + [0] * 10 + [1] * 7, (4 * 1 + 7 * 0.5) / 11, 3 / 10),
    ],
)
def test_hand_computed_single_query(relevance, eleven_point, r_prec):
    D, q, b = _ranked(relevance)
    assert eleven_point_average_precision(D, q, b) == pytest.approx(eleven_point)
    assert r_precision(D, q, b) == pytest.approx(r_prec)


def test_average_over_queries_ignores_queries_without_relevant_items():
    D = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1], [0.1, 0.2, 0.3]])
    base = ["a", "b", "a"]
    queries = ["a", "a", "z"]  # query 2 has no relevant base item
    # query 0: ranks a, b, a -> 28/33 ; query 1: ranks a, b, a (reversed) -> 28/33
    assert eleven_point_average_precision(D, queries, base) == pytest.approx(28 / 33)
    assert r_precision(D, queries, base) == pytest.approx(0.5)
    assert eleven_point_average_precision(D[:1], ["a"], base) == pytest.approx(28 / 33)


def test_exclude_self_on_a_square_matrix():
    # Points on a line: 0, 1, 5, 6 with clusters A A B B, and 2.5 in A.
    x = np.array([0.0, 1.0, 5.0, 6.0, 2.5])
    labels = np.array(["A", "A", "B", "B", "A"])
    D = np.abs(x[:, None] - x[None, :])
    # Without exclusion every query retrieves itself first.
    with_self = r_precision(D, labels)
    # Excluding self:
    # q0 (0): ranks 1(A), 2.5(A) -> R=2, 2/2 hits; q1 (1): 0(A), 2.5(A) -> 1
    # q2 (5): 6(B) -> R=1, hit; q3 (6): 5(B) -> hit
    # q4 (2.5): 1(A) d=1.5, 0(A) d=2.5, 5(B) d=2.5 -> R=2, 2 hits (stable ties)
    assert r_precision(D, labels, exclude_self=True) == pytest.approx(1.0)
    assert with_self == pytest.approx(1.0)
    # Move point 4 to 4.0: q4 ranks 5(B) d=1, 6(B) d=2, 1(A) d=3 -> R=2, 0 hits;
    # q1 (1): 0(A) d=1, 4(A) d=3, 5(B) d=4 -> 2/2.
    x[4] = 4.0
    D = np.abs(x[:, None] - x[None, :])
    # q0 (0): 1(A), 4(A) -> 1 ; q2 (5): 4(A) d=1, 6(B) d=1 tie -> base order puts
    # 4 after 3, so 6(B) first -> 1 ; q3 (6): 5(B) -> 1
    assert r_precision(D, labels, exclude_self=True) == pytest.approx((1 + 1 + 1 + 1 + 0) / 5)
    # 11-point for q4: hits at ranks 3 and 4 -> precision 1/3 (recall 0.5) and 2/4
    # -> every level interpolates to 1/2.
    per_query_q4 = 0.5
    expected = (1 + 1 + 1 + 1 + per_query_q4) / 5
    assert eleven_point_average_precision(D, labels, exclude_self=True) == pytest.approx(expected)


def test_ties_are_broken_by_base_order():
    D = np.zeros((1, 4))
    assert r_precision(D, [1], [0, 1, 1, 0]) == pytest.approx(0.5)
    assert r_precision(D, [1], [1, 1, 0, 0]) == pytest.approx(1.0)


def test_infinite_distances_rank_last():
    D = np.array([[np.inf, 1.0, 2.0]])
    assert r_precision(D, [1], [1, 0, 0]) == 0.0
    assert eleven_point_average_precision(D, [1], [1, 0, 0]) == pytest.approx(1 / 3)


def test_precision_is_invariant_to_monotone_transforms():
    rng = np.random.RandomState(0)
    D = rng.uniform(size=(20, 30))
    q, b = rng.randint(0, 3, size=20), rng.randint(0, 3, size=30)
    for metric in (eleven_point_average_precision, r_precision):
        assert metric(D, q, b) == pytest.approx(metric(np.sqrt(D) * 7, q, b))


def test_bad_retrieval_input():
    D = np.ones((2, 3))
    with pytest.raises(ValueError, match="query_labels has 3 entries but distances has 2 rows"):
        r_precision(D, [0, 1, 2], [0, 1, 2])
    with pytest.raises(ValueError, match="base_labels has 2 entries but distances has 3 columns"):
        eleven_point_average_precision(D, [0, 1], [0, 1])
    with pytest.raises(ValueError, match="square distance matrix"):
        r_precision(D, [0, 1], [0, 1, 1], exclude_self=True)
    with pytest.raises(ValueError, match="No query has a relevant base item"):
        r_precision(D, [5, 6], [0, 1, 1])
    with pytest.raises(ValueError, match="NaN"):
        r_precision([[np.nan, 1.0]], [0], [0, 0])


# --------------------------------------------------------------------------
# pairwise clustering precision


def _pair_agreement_by_loops(labels_true, labels_pred):
    same, diff = [], []
    for i, j in itertools.combinations(range(len(labels_true)), 2):
        agree = (labels_true[i] == labels_true[j]) == (labels_pred[i] == labels_pred[j])
        (same if labels_true[i] == labels_true[j] else diff).append(agree)
    return np.mean(same + diff), 0.5 * (np.mean(same) + np.mean(diff))


def test_pairwise_clustering_precision_hand_computed():
    # 15 pairs: the 3 same-cluster pairs are split, the 12 others agree.
    assert pairwise_clustering_precision([0, 0, 1, 1, 2, 2], [0, 1, 2, 3, 4, 5]) == 0.8
    assert pairwise_clustering_precision(
        [0, 0, 1, 1, 2, 2], [0, 1, 2, 3, 4, 5], balanced=True
    ) == pytest.approx(0.5)
    # Identical up to relabelling.
    assert pairwise_clustering_precision(["a", "a", "b"], [7, 7, 3]) == 1.0
    assert pairwise_clustering_precision(["a", "a", "b"], [7, 7, 3], balanced=True) == 1.0
    # Everything merged: 1 same pair agrees, the 2 others disagree.
    assert pairwise_clustering_precision([0, 0, 1], [0, 0, 0]) == pytest.approx(1 / 3)
    assert pairwise_clustering_precision([0, 0, 1], [0, 0, 0], balanced=True) == 0.5


def test_pairwise_clustering_precision_matches_pair_loops_and_rand_score():
    rng = np.random.RandomState(1)
    for _ in range(5):
        t, p = rng.randint(0, 4, size=25), rng.randint(0, 3, size=25)
        plain, balanced = _pair_agreement_by_loops(t, p)
        assert pairwise_clustering_precision(t, p) == pytest.approx(plain)
        assert pairwise_clustering_precision(t, p) == pytest.approx(rand_score(t, p))
        assert pairwise_clustering_precision(t, p, balanced=True) == pytest.approx(balanced)


def test_balanced_precision_with_one_kind_of_pair():
    # No same-cluster pair in the truth: only different-cluster agreement counts.
    assert pairwise_clustering_precision([0, 1, 2], [0, 0, 1], balanced=True) == pytest.approx(
        2 / 3
    )
    # A single true cluster: only same-cluster agreement counts.
    assert pairwise_clustering_precision([0, 0, 0], [0, 0, 1], balanced=True) == pytest.approx(
        1 / 3
    )


def test_bad_clustering_input():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        pairwise_clustering_precision([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="at least 2 samples"):
        pairwise_clustering_precision([0], [0])
