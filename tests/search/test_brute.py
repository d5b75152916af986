"""Brute force as a search (``BruteSearch``) and the fit's choice of it."""

import dataclasses
import threading
import warnings

import numpy as np
import pytest
from rapidfuzz.utils import default_process

from sklearn_ed import FilterRefineClassifier, FilterRefineNeighbors, QGramEmbedder, load, save
from sklearn_ed.datasets import make_person_records
from sklearn_ed.distances import get_metric, pairwise_distances
from sklearn_ed.search import (
    BruteSearch,
    SearchPolicy,
    brute_force_limit,
    brute_force_seconds,
    pruned_brute_seconds,
)

METRICS = ("levenshtein", "normalized_indel", "jaro_winkler")


@pytest.fixture(scope="module")
def words():
    """300 short strings of a small alphabet: many ties at every distance."""
    rng = np.random.default_rng(0)
    strings = ["".join(rng.choice(list("abc"), size=rng.integers(2, 7))) for _ in range(340)]
    return np.array(strings[:300], dtype=object), np.array(strings[300:], dtype=object)


def _ranked(exact, k, exclude=None):
    """Each row's k nearest columns by (distance, index): brute force's answer."""
    exact = exact.astype(np.float64)
    if exclude is not None:
        exact[np.arange(len(exact)), exclude] = np.inf
    order = np.lexsort((np.broadcast_to(np.arange(exact.shape[1]), exact.shape), exact), axis=1)
    return np.take_along_axis(exact, order, axis=1)[:, :k], order[:, :k]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("k", [1, 7])
def test_kneighbors_and_ties_are_brute_forces_ties_by_index(words, metric, k):
    base, queries = words
    search = BruteSearch(get_metric(metric), n_jobs=2).build(base)
    exact = pairwise_distances(queries, base, metric)
    (distances, indices), counts = search.kneighbors(queries, k)
    expected_distances, expected_indices = _ranked(exact, k)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_array_equal(distances, expected_distances)
    if get_metric(metric).brute_force_bound is not None:
        assert (counts <= len(base)).all()
    else:
        assert (counts == len(base)).all()
    _, _, tied = search.neighbors_and_ties(queries, k)
    for row, items in enumerate(tied):
        np.testing.assert_array_equal(items, np.flatnonzero(exact[row] == distances[row, -1]))


def test_excluded_items_are_never_answers(words):
    base, _ = words
    search = BruteSearch(get_metric("levenshtein"), n_jobs=1).build(base)
    exclude = np.arange(len(base))
    exclude[::3] = -1
    (distances, indices), counts = search.kneighbors(base, 4, exclude=exclude)
    exact = pairwise_distances(base, metric="levenshtein")
    kept = exclude >= 0
    np.testing.assert_array_equal(indices[kept], _ranked(exact, 4, np.maximum(exclude, 0))[1][kept])
    np.testing.assert_array_equal(indices[~kept], _ranked(exact, 4)[1][~kept])
    assert (counts == len(base) - kept).all()


def test_chunks_bound_the_distances_held_and_keep_the_answers(words, monkeypatch):
    base, queries = words
    search = BruteSearch(get_metric("levenshtein"), n_jobs=2).build(base)
    whole = search.kneighbors(queries, 3)
    monkeypatch.setattr("sklearn_ed.search._brute._BLOCK_ENTRIES", len(base))
    assert max(len(rows) for rows in search._chunks(len(queries))) == 1
    np.testing.assert_array_equal(search.kneighbors(queries, 3)[0][1], whole[0][1])


def test_verified_within_returns_every_pair_within_each_limit(words):
    base, queries = words
    search = BruteSearch(get_metric("levenshtein"), n_jobs=2).build(base)
    exact = pairwise_distances(queries, base, metric="levenshtein")
    limits = np.arange(len(queries)) % 3
    for row, (items, distances) in enumerate(search.verified_within(queries, limits)):
        np.testing.assert_array_equal(items, np.flatnonzero(exact[row] <= limits[row]))
        np.testing.assert_array_equal(distances, exact[row, items])


def test_a_costly_metric_is_not_brute_forced(words):
    base, _ = words
    cheapest = SearchPolicy(near_depth=1)
    assert brute_force_seconds(get_metric("levenshtein"), base, 1, 0) < brute_force_limit(cheapest)

    def slow(left, right):
        total = 0
        for _ in range(20_000):  # about 1 ms a pair: 300 pairs make a query
            total += 1
        return float(len(left) != len(right))

    seconds = brute_force_seconds(get_metric(slow), base, 1, 0)
    dearest = SearchPolicy(exact=True)
    assert seconds > 10 * brute_force_limit(dearest) > brute_force_limit(cheapest)


def test_auto_fits_brute_force_on_a_cheap_base_and_answers_exactly(words):
    base, queries = words
    search = FilterRefineNeighbors(n_neighbors=5, radius=2).fit(base)
    assert search.search_method_ == "brute_force"
    assert search.embedder_ is None and search.index_ is None
    assert search.estimated_recall_ == 1.0 and search.n_candidates_ == len(base)
    exact = pairwise_distances(queries, base)
    np.testing.assert_array_equal(search.kneighbors(queries)[1], _ranked(exact, 5)[1])
    distances, indices = search.radius_neighbors(queries, sort_results=True)
    for row in range(len(queries)):
        within = np.flatnonzero(exact[row] <= 2)
        np.testing.assert_array_equal(np.sort(indices[row]), within)
    self_neighbors = search.kneighbors(n_neighbors=2)[1]
    assert not (self_neighbors == np.arange(len(base))[:, None]).any()


def test_a_given_embedder_keeps_the_filter(words):
    base, _ = words
    search = FilterRefineNeighbors(QGramEmbedder(q=2), n_neighbors=3).fit(base)
    assert search.search_method_ == "filter_refine"
    assert isinstance(search.embedder_, QGramEmbedder)


def test_brute_force_grows_saves_and_loads(words, tmp_path):
    base, queries = words
    search = FilterRefineNeighbors(n_neighbors=4).fit(base[:200])
    search.partial_fit(base[200:])
    assert search.n_samples_fit_ == len(base)
    expected = _ranked(pairwise_distances(queries, base), 4)[1]
    np.testing.assert_array_equal(search.kneighbors(queries)[1], expected)
    loaded = load(save(search, tmp_path / "brute"))
    assert loaded.search_method_ == "brute_force"
    np.testing.assert_array_equal(loaded.kneighbors(queries)[1], expected)


def test_classifier_on_brute_force_votes_as_a_filter_over_every_item(words):
    base, queries = words
    labels = np.array([len(word) % 3 for word in base])
    brute = FilterRefineClassifier(n_neighbors=3).fit(base, labels)
    assert brute.search_method_ == "brute_force"
    every_item = FilterRefineClassifier(QGramEmbedder(q=2), n_neighbors=3, n_candidates=1.0)
    every_item.fit(base, labels)
    np.testing.assert_array_equal(brute.predict_proba(queries), every_item.predict_proba(queries))


def test_a_brute_force_base_grown_by_half_is_fitted_again(words, monkeypatch, filter_kept):
    base, queries = words
    search = FilterRefineNeighbors(n_neighbors=3).fit(base[:100])
    search.partial_fit(base[100:140])  # grown by 40 %: still the same search
    assert search.search_method_ == "brute_force" and search.n_samples_fit_ == 140
    monkeypatch.setattr("sklearn_ed.neighbors._brute_force.brute_force_limit", lambda _: 0.0)
    search.partial_fit(base[140:])
    assert search.search_method_ == "filter_refine" and search.n_samples_fit_ == len(base)
    assert isinstance(search.embedder_, QGramEmbedder)
    fitted_whole = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=3).fit(base)
    np.testing.assert_array_equal(
        search.kneighbors(queries)[1], fitted_whole.kneighbors(queries)[1]
    )


def test_two_threads_query_one_brute_force_search(words):
    base, queries = words
    search = FilterRefineNeighbors(n_neighbors=3, n_jobs=2).fit(base)
    assert search.search_method_ == "brute_force"
    expected = search.kneighbors(queries)
    answers = []

    def query():
        answers.append(search.kneighbors(queries))

    threads = [threading.Thread(target=query) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for distances, indices in answers:
        np.testing.assert_array_equal(indices, expected[1])
        np.testing.assert_array_equal(distances, expected[0])


def test_bad_queries_of_a_brute_force_search_name_the_problem(words):
    base, _ = words
    search = FilterRefineNeighbors(n_neighbors=3).fit(base)
    assert search.search_method_ == "brute_force"
    with pytest.raises((TypeError, ValueError), match="str"):
        search.kneighbors([b"bytes", 3])


def test_a_filter_that_misses_the_target_gives_way_to_brute_force(monkeypatch):
    """Under Jaro, the q-gram filter "auto" chose misses the true top 10 of
    four-word records at every candidate count of the check: brute force
    answers instead, exactly, and warns what a query costs where that is
    many times what brute force may cost when chosen for its speed (here
    any: that limit is 0); a given embedder keeps its filter, and warns."""
    monkeypatch.setattr("sklearn_ed.neighbors._brute_force.brute_force_limit", lambda _: 0.0)
    rng = np.random.default_rng(0)
    syllables = np.array(["an", "ber", "ca", "do", "el", "fi", "gor", "ha", "is", "jo", "ka"])
    words = ["".join(rng.choice(syllables, size=3)) for _ in range(400)]
    records = np.array([" ".join(rng.choice(words, size=4)) for _ in range(3000)], dtype=object)
    base, queries = records[:2900], records[2900:]
    settings = dict(metric="jaro", n_neighbors=10, target_recall=0.99, random_state=0)
    with pytest.warns(UserWarning, match=r"brute force answers instead, exact.* ms a query"):
        search = FilterRefineNeighbors(**settings).fit(base)
    assert search.search_method_ == "brute_force" and search.estimated_recall_ == 1.0
    monkeypatch.setattr("sklearn_ed.neighbors._brute_force.COSTLY_BRUTE_FORCE", np.inf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cheap = FilterRefineNeighbors(**settings).fit(base)
    assert cheap.search_method_ == "brute_force"
    exact = pairwise_distances(queries, base, metric="jaro")
    np.testing.assert_allclose(search.kneighbors(queries)[0], _ranked(exact, 10)[0])
    with pytest.warns(UserWarning, match="below target_recall=0.99"):
        given = FilterRefineNeighbors(QGramEmbedder(), **settings).fit(base)
    assert given.search_method_ == "filter_refine"


def test_k_th_neighbors_in_the_crowd_are_answered_by_brute_force_up_to_exact_limit(monkeypatch):
    """The tenth neighbor of a misspelt person record is no nearer than much
    of the base: the bound rules out little at its distance, and the fit
    answers by brute force below exact search's limit, building no filter.
    The nearest neighbor is far nearer than the crowd."""
    limits = {(False, False): 0.0, (True, False): 0.0, (False, True): 1.0, (True, True): 0.0}
    monkeypatch.setattr("sklearn_ed.search._brute.BRUTE_QUERY_SECONDS", limits)
    records = make_person_records(2_050, random_state=0).data
    base, queries = records[:2_000], records[2_000:]
    processed = np.array([default_process(text) for text in base], dtype=object)
    metric = get_metric("jaro_winkler")
    assert pruned_brute_seconds(metric, processed, 10, 1, random_state=0).crowded
    assert not pruned_brute_seconds(metric, processed, 1, 1, random_state=0).crowded

    def no_filter(*args, **kwargs):
        raise AssertionError("a filter was built")

    monkeypatch.setattr("sklearn_ed.search.FittedSearch.build", no_filter)
    search = FilterRefineNeighbors(
        metric="jaro_winkler", processor="default", n_neighbors=10, random_state=0
    ).fit(base)
    assert search.search_method_ == "brute_force"
    exact = pairwise_distances([default_process(q) for q in queries], processed, "jaro_winkler")
    np.testing.assert_allclose(search.kneighbors(queries)[0], np.sort(exact, axis=1)[:, :10])


@pytest.mark.parametrize("pruned_seconds, method", [(1e-9, "brute_force"), (1.0, "filter_refine")])
def test_a_bounded_metric_is_timed_by_its_pruned_search_alone(monkeypatch, pruned_seconds, method):
    from sklearn_ed.search import PrunedBruteTiming

    def untimed(*args, **kwargs):
        raise AssertionError("every item was timed besides the pruned search")

    timing = PrunedBruteTiming(pruned_seconds, share_verified=0.01)
    monkeypatch.setattr(
        "sklearn_ed.neighbors._brute_force.pruned_brute_seconds", lambda *a, **k: timing
    )
    monkeypatch.setattr("sklearn_ed.neighbors._brute_force.brute_force_seconds", untimed)
    monkeypatch.setattr("sklearn_ed.neighbors._brute_force.brute_force_limit", lambda _: 1e-3)
    records = make_person_records(320, random_state=0).data
    base, queries = records[:300], records[300:]
    search = FilterRefineNeighbors(
        metric="jaro", n_neighbors=2, check_recall=False, n_candidates=50, random_state=0
    ).fit(base)
    assert search.search_method_ == method
    assert search._brute_query_estimate == pruned_seconds
    if method == "brute_force":
        assert search.search_._pruning_bound() is not None
        exact = np.sort(pairwise_distances(queries, base, "jaro"), axis=1)[:, :2]
        np.testing.assert_allclose(search.kneighbors(queries)[0], exact)


def test_pruned_brute_force_is_timed_on_more_queries_where_the_first_were_quick(monkeypatch):
    from sklearn_ed.search import _speed_check

    timed = []
    real = _speed_check._timed_kneighbors
    monkeypatch.setattr(
        _speed_check,
        "_timed_kneighbors",
        lambda search, queries, k: timed.append(len(queries)) or real(search, queries, k),
    )
    records = make_person_records(300, random_state=0).data
    both = [_speed_check.TIMED_QUERIES, _speed_check.MORE_TIMED_QUERIES]
    for quick_below, limit, expected in [
        (np.inf, None, both),
        (np.inf, 1e-9, both),  # quick, near a limit: timed on more
        (0.0, None, both[:1]),  # slow
        (np.inf, 10.0, both[:1]),  # far below the limit
    ]:
        timed.clear()
        monkeypatch.setattr(_speed_check, "_MORE_QUERIES_BELOW", quick_below)
        timing = _speed_check.pruned_brute_seconds(get_metric("jaro"), records, 1, 1, 0, limit)
        assert timed == expected
        assert 0 < timing.seconds < 1 and 0 < timing.share_verified < 0.5
    # A bound that prunes none of the 16: they each compared the whole base.
    timed.clear()
    monkeypatch.setattr(_speed_check, "_MORE_QUERIES_BELOW", np.inf)
    unpruned = dataclasses.replace(get_metric("jaro"), brute_force_bound=None)
    _speed_check.pruned_brute_seconds(unpruned, records, 1, 1, 0, 1e-9)
    assert timed == both[:1]


def test_pruned_brute_force_near_its_limit_is_timed_by_one_call_of_more_queries(monkeypatch):
    """16 queries in calls of 8 pay a call's fixed cost that a fit's 1,000
    share: above the limit by at most NEAR_LIMIT times, 48 more are timed in
    one call, and their mean is the estimate; in the crowd, against the
    crowded limit."""
    from sklearn_ed.search import _speed_check

    per_query = {_speed_check.TIMED_QUERIES: 1.2e-3, _speed_check.MORE_TIMED_QUERIES: 0.9e-3}
    real = _speed_check._timed_kneighbors

    def timed(search, queries, k):
        return len(queries) * per_query[len(queries)], real(search, queries, k)[1]

    monkeypatch.setattr(_speed_check, "_timed_kneighbors", timed)
    monkeypatch.setattr(_speed_check, "_MORE_QUERIES_BELOW", 0.0)  # slow: no more but near
    records = make_person_records(2_000, random_state=0).data
    processed = np.array([default_process(text) for text in records], dtype=object)
    metric = get_metric("jaro_winkler")
    for k, limit, crowded_limit, seconds in [
        (1, 1e-3, None, 0.9e-3),  # near
        (1, 0.5e-3, None, 1.2e-3),  # far above
        (1, 2e-3, None, 1.2e-3),  # below
        (10, 1e-6, 1e-3, 0.9e-3),  # in the crowd, near the crowded limit
        (10, 1e-6, None, 1.2e-3),  # in the crowd, held to the limit
    ]:
        timing = _speed_check.pruned_brute_seconds(
            metric, processed, k, 1, 0, limit, crowded_limit=crowded_limit
        )
        assert timing.seconds == pytest.approx(seconds)
        assert timing.crowded == (k == 10)


@pytest.mark.parametrize(
    "metric, builds_a_filter",
    [("jaro", False), ("jaro_winkler", False), ("normalized_levenshtein", True)],
)
def test_exact_search_by_the_bound_brute_force_prunes_by_is_brute_force(
    monkeypatch, metric, builds_a_filter
):
    """Exact search that would prune by the very bound pruned brute force
    uses rules out no more than it: the fit answers by brute force whatever
    a query costs, building no filter. Another bound (normalized
    Levenshtein's q-grams) keeps the limit: a filter is built first."""
    from sklearn_ed.search import FittedSearch

    monkeypatch.setattr("sklearn_ed.neighbors._brute_force.brute_force_limit", lambda _: 0.0)
    built = []
    real_build = FittedSearch.build
    monkeypatch.setattr(
        FittedSearch, "build", lambda self, *a, **k: built.append(1) or real_build(self, *a, **k)
    )
    records = make_person_records(1_020, random_state=0).data
    base, queries = records[:1_000], records[1_000:]
    search = FilterRefineNeighbors(metric=metric, exact=True, n_neighbors=3, random_state=0)
    search.fit(base)
    assert bool(built) is builds_a_filter
    if not builds_a_filter:
        assert search.search_method_ == "brute_force"
    exact = np.sort(pairwise_distances(queries, base, metric), axis=1)[:, :3]
    np.testing.assert_allclose(search.kneighbors(queries)[0], exact)
