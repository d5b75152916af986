"""The bag distance bound of the partition join's candidates."""

import numpy as np
from rapidfuzz.distance import Levenshtein

from sklearn_ed.join._bag import (
    bag_bound_within,
    character_counts,
    limit_table,
)


def _bag(a, b):
    """The bag distance from its definition: multiset differences of characters."""
    left, right = list(a), list(b)
    for character in a:
        if character in right:
            right.remove(character)
            left.remove(character)
    return max(len(left), len(right))


def _constant(threshold):
    """The bound of Levenshtein distance ``threshold``: the same for every length."""
    return lambda left_lengths, right_lengths: np.full(len(left_lengths), threshold)


def test_bag_distance_is_a_lower_bound_and_the_check_keeps_every_pair_within():
    rng = np.random.default_rng(0)
    # Letters whose code points fall in the same bucket (64 apart), and unicode.
    alphabet = list("ab\u00e9\u0101") + [chr(ord("a") + 64), chr(0x1F600)]
    strings = ["".join(rng.choice(alphabet, rng.integers(0, 9))) for _ in range(120)]
    counts = character_counts(strings)
    left_rows, right_rows = (array.ravel() for array in np.indices((120, 120)))
    levenshtein = np.array(
        [Levenshtein.distance(strings[i], strings[j]) for i, j in zip(left_rows, right_rows)]
    )
    bag = np.array([_bag(strings[i], strings[j]) for i, j in zip(left_rows, right_rows)])
    assert np.all(bag <= levenshtein)
    for threshold in range(5):
        limits = limit_table(_constant(threshold), counts.lengths, counts.lengths)
        within = bag_bound_within(counts, counts, left_rows, right_rows, limits, n_jobs=2)
        assert within[levenshtein <= threshold].all()  # lossless
        # Bucketed counts rule out only pairs the exact bag distance rules out,
        # and most of them (few code points share a bucket here).
        assert not (~within & (bag <= threshold)).any()
        assert (~within).sum() >= 0.8 * (bag > threshold).sum() > 0
