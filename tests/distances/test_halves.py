"""The halves' deletion index returns every string within up to 5 edits."""

from unittest import mock

import numpy as np
import pytest
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from sklearn_ed.distances.bounds._halves import HalvesIndex, halves_index


def _strings(rng, n, alphabet, longest):
    return ["".join(rng.choice(alphabet, rng.integers(0, longest + 1))) for _ in range(n)]


@pytest.mark.parametrize("depth", [1, 2])
def test_every_string_within_the_limit_is_found(depth):
    """A small alphabet puts thousands of pairs within each limit; unicode
    letters and empty strings included."""
    rng = np.random.default_rng(depth)
    alphabet = list("abcé\u4e00")
    base = _strings(rng, 1500, alphabet, 14) + ["", "a"]
    queries = _strings(rng, 150, alphabet, 14) + [""]
    index = HalvesIndex(base, depth=depth)
    distances = process.cdist(queries, base, scorer=Levenshtein.distance)
    lengths = np.array([len(s) for s in base])
    for limit in range(index.max_distance + 1):
        found = index.within(queries, np.full(len(queries), limit))
        n_within = 0
        for row, (items, bounds) in enumerate(found):
            within = np.flatnonzero(distances[row] <= limit)
            n_within += len(within)
            assert set(within) <= set(items.tolist()), (limit, queries[row])
            assert np.array_equal(items, np.unique(items))
            # The bag distance: at least the lengths' difference, at most the distance.
            assert (bounds >= np.abs(lengths[items] - len(queries[row]))).all()
            assert (bounds <= distances[row, items]).all() and (bounds <= limit).all()
        assert n_within > 500


def test_misspellings_three_to_five_edits_away_find_their_words():
    from sklearn_ed.datasets import load_misspellings

    pairs = load_misspellings()
    words = sorted(set(pairs.target))
    typos = np.asarray(pairs.data)
    distances = process.cdist(typos[:400], words, scorer=Levenshtein.distance)
    far = np.flatnonzero(distances.min(axis=1) >= 3)
    assert len(far) >= 5
    index = halves_index(words)
    for limit in (3, 5):
        found = index.within(typos[far], np.full(len(far), limit))
        for row, (items, _) in zip(far, found):
            assert set(np.flatnonzero(distances[row] <= limit)) <= set(items.tolist())
    # Within 3 edits each half is matched within one: a few hundred words to
    # verify, of the thousands of a close length.
    lengths = np.array([len(word) for word in words])
    close = [(np.abs(lengths - len(typo)) <= 3).sum() for typo in typos[far]]
    sizes = [len(items) for items, _ in index.within(typos[far], np.full(len(far), 3))]
    assert np.mean(sizes) < np.mean(close) / 10
    # Within 4, a string must match both halves within 2 edits or one within
    # 1: far fewer than either half within 2 (all that 5 edits can keep).
    size = {
        limit: np.mean([len(items) for items, _ in index.within(typos[far], [limit] * len(far))])
        for limit in (4, 5)
    }
    assert size[4] < size[5] / 3


def test_limits_beyond_the_index_are_refused():
    with pytest.raises(ValueError, match=r"limits must be in \[0, 3\]"):
        HalvesIndex(["kitten"], depth=1).within(["kitten"], [4])


def test_exact_search_verifies_the_halves_matches_and_equals_brute_force():
    from sklearn_ed import FilterRefineNeighbors, QGramEmbedder
    from sklearn_ed.datasets import load_misspellings

    pairs = load_misspellings()
    words = sorted(set(pairs.target))
    typos = np.asarray(pairs.data[:300])
    search = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=3, exact=True, random_state=0)
    search.fit(words)
    assert search.search_.far is not None and search.search_.bound_stages == (3, 4)
    filtered = []
    candidates = search.search_.candidates

    def counted(queries, *args, **kwargs):
        filtered.append(len(queries))
        return candidates(queries, *args, **kwargs)

    with mock.patch.object(search.search_, "candidates", counted):
        distances, indices = search.kneighbors(typos)
    exact = process.cdist(typos, words, scorer=Levenshtein.distance)
    order = np.lexsort((np.broadcast_to(np.arange(len(words)), exact.shape), exact), axis=1)
    np.testing.assert_array_equal(indices, order[:, :3])
    np.testing.assert_array_equal(distances, np.take_along_axis(exact, order[:, :3], axis=1))
    # The filter runs only for the queries the passes at 3 and 4 edits leave.
    assert sum(filtered) == (distances[:, -1] > 4).sum() > 0
    # Beyond the halves' reach the lower bound answers, as without them.
    beyond = search.search_.within_bound(typos[:5], np.full(5, 6.0))
    for (items, _), (expected, _) in zip(beyond, search.search_.bound.within(typos[:5], [6.0] * 5)):
        np.testing.assert_array_equal(items, expected)
