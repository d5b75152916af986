"""The search policy: lookups decided from the metric and the base, and read
back from saves of every age."""

import pytest

from sklearn_ed.distances import get_metric
from sklearn_ed.search import SearchPolicy
from sklearn_ed.utils import SavedStateError


def test_words_get_both_lookups_and_long_strings_neither():
    levenshtein = get_metric("levenshtein")
    words = ["kitten", "sitting", "mitten"] * 10
    assert SearchPolicy.decide(levenshtein, words).near_depth == 2
    assert SearchPolicy.decide(levenshtein, words).far_depth == 1
    exact = SearchPolicy.decide(levenshtein, words, exact=True)
    assert (exact.near_depth, exact.far_depth) == (2, 2)
    reads = ["ACGT" * 30] * 10
    assert SearchPolicy.decide(levenshtein, reads).far_depth == 0
    assert SearchPolicy.decide(get_metric("jaro"), words).far_depth == 0


def test_older_saves_read_their_far_lookup_as_depth_two():
    assert SearchPolicy.from_state({"with_far": True}).far_depth == 2
    assert SearchPolicy.from_state({"with_far": True}).exact
    assert SearchPolicy.from_state({"with_far": False}).far_depth == 0
    assert SearchPolicy.from_state({}).far_depth == 0
    state = SearchPolicy(far_depth=1, near_depth=2).as_state()
    assert SearchPolicy.from_state(state) == SearchPolicy(far_depth=1, near_depth=2)


@pytest.mark.parametrize("depth", [3, -1, 1.5, True])
def test_a_saved_far_depth_out_of_range_is_refused(depth):
    with pytest.raises(SavedStateError, match="far_depth"):
        SearchPolicy.from_state({"far_depth": depth})
