"""A fitted filter slower than brute force on pseudo-queries gives way to it."""

import numpy as np
import pytest

from sklearn_ed import FilterRefineNeighbors, QGramEmbedder
from sklearn_ed.datasets import make_person_records
from sklearn_ed.distances import pairwise_distances
from sklearn_ed.search import _speed_check as speed_check
from sklearn_ed.search import pseudo_queries, time_queries


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class FakeSearch:
    """Answers a query in ``seconds`` of the fake clock; counts its calls."""

    def __init__(self, clock, seconds):
        self.clock, self.seconds, self.calls = clock, seconds, 0
        self.items = np.array(["abcd", "abce", "xyz"] * 10, dtype=object)
        self.n_items, self.n_jobs = len(self.items), 1
        self.metric = type("Strings", (), {"input_type": "strings"})()

    def kneighbors(self, queries, n_neighbors, n_candidates=None, exclude=None):
        self.calls += 1
        self.clock.now += self.seconds * len(queries)

    def build(self, items):
        return self


@pytest.fixture
def clock(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(speed_check.time, "perf_counter", clock)
    return clock


def test_a_filter_far_below_the_estimate_is_kept_without_timing_brute_force(clock, monkeypatch):
    brute = FakeSearch(clock, 0.010)
    monkeypatch.setattr(speed_check, "BruteSearch", lambda *a, **k: brute)
    timing = time_queries(FakeSearch(clock, 0.002), 3, 10, brute_estimate=0.010)
    assert timing.filter_seconds == pytest.approx(0.002)
    assert not timing.brute_timed and brute.calls == 0 and not timing.brute_force_faster


@pytest.mark.parametrize("brute_seconds, faster", [(0.004, True), (0.009, False)])
def test_a_close_filter_is_timed_against_brute_force(clock, monkeypatch, brute_seconds, faster):
    brute = FakeSearch(clock, brute_seconds)
    monkeypatch.setattr(speed_check, "BruteSearch", lambda *a, **k: brute)
    timing = time_queries(FakeSearch(clock, 0.006), 3, 10, brute_estimate=0.005)
    # One untimed call first: it builds brute force's bound, a cost of the fit.
    assert timing.brute_timed and brute.calls == 2
    assert timing.brute_seconds == pytest.approx(brute_seconds)
    assert timing.brute_force_faster is faster


def test_pseudo_queries_are_base_strings_one_edit_away():
    items = make_person_records(300, random_state=0).data
    queries, exclude = pseudo_queries(items, 50, np.random.RandomState(0), strings=True)
    nearest = pairwise_distances(queries, items, "levenshtein").min(axis=1)
    assert (exclude == -1).all() and nearest.max() <= 1 and (nearest == 1).mean() > 0.8


def test_pseudo_queries_of_other_items_exclude_themselves():
    items = np.arange(40.0).reshape(20, 2)
    queries, exclude = pseudo_queries(items, 8, np.random.RandomState(0), strings=False)
    np.testing.assert_array_equal(queries, items[exclude])


def test_exact_search_slower_than_brute_force_gives_way_to_it(monkeypatch):
    """Under Jaro the length bound of person records rules out few items:
    the exact filter's query costs about 3 times brute force's (2,000
    records), so the fit answers by brute force, with brute force's answers."""
    monkeypatch.setattr("sklearn_ed.neighbors._brute_force.brute_force_limit", lambda _: 0.0)
    records = make_person_records(2_100, random_state=0).data
    base, queries = records[:2_000], records[2_000:]
    settings = dict(metric="jaro", n_neighbors=10, exact=True, random_state=0)
    search = FilterRefineNeighbors(**settings).fit(base)
    assert search.search_method_ == "brute_force" and search.embedder_ is None
    given = FilterRefineNeighbors(QGramEmbedder(), **settings).fit(base)
    assert given.search_method_ == "filter_refine"  # a given embedder is never timed
    exact = np.sort(pairwise_distances(queries, base, "jaro"), axis=1)[:, :10]
    np.testing.assert_allclose(search.kneighbors(queries)[0], exact)
    np.testing.assert_allclose(given.kneighbors(queries)[0], exact)


def test_a_filter_with_a_given_candidate_count_is_never_timed(monkeypatch):
    monkeypatch.setattr("sklearn_ed.neighbors._brute_force.brute_force_limit", lambda _: 0.0)
    base = make_person_records(2_000, random_state=0).data
    search = FilterRefineNeighbors(metric="jaro", n_neighbors=10, n_candidates=1000).fit(base)
    assert search.search_method_ == "filter_refine"
