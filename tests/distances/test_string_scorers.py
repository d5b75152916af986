"""The string metrics through rapidfuzz's scorers: rapidfuzz's values bit for bit,
a plain dynamic-programming oracle, lower bounds never above the distance,
and brute-force answers from the estimators (ties included)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process
from rapidfuzz.distance import (
    OSA,
    DamerauLevenshtein,
    Indel,
    Jaro,
    JaroWinkler,
    LCSseq,
    Levenshtein,
)

from sklearn_ed import FilterRefineNeighbors, QGramEmbedder
from sklearn_ed.distances import get_metric, pairwise_distances

# name: (rapidfuzz scorer, dtype of its distances), as a user calls rapidfuzz.
SCORERS = {
    "indel": (Indel.distance, np.int32),
    "normalized_indel": (Indel.normalized_distance, np.float64),
    "normalized_levenshtein": (Levenshtein.normalized_distance, np.float64),
    "osa": (OSA.distance, np.int32),
    "damerau_levenshtein": (DamerauLevenshtein.distance, np.int32),
    "lcsseq": (LCSseq.distance, np.int32),
    "jaro": (Jaro.normalized_distance, np.float64),
    "jaro_winkler": (JaroWinkler.normalized_distance, np.float64),
}
# name: rapidfuzz similarity scorer in [0, 100]; the distance is 1 - score / 100.
PERCENT_SCORERS = {"token_set": fuzz.token_set_ratio}
NAMES = sorted([*SCORERS, *PERCENT_SCORERS])
BOUNDED = [name for name in NAMES if get_metric(name).lower_bound is not None]
BRUTE_BOUNDED = [name for name in NAMES if get_metric(name).brute_force_bound is not None]
# Unicode, empty strings, repeated characters, transpositions, swapped words.
STRINGS = [
    "",
    "a",
    "aaaa",
    "abab",
    "baba",
    "martha",
    "marhta",
    "dwayne",
    "duane",
    "ca",
    "ac",
    "abc",
    "naïve",
    "naive",
    "日本語",
    "日本",
    "e\u0301",
    "john smith",
    "smith john",
    "john",
    " ",
    "john  smith jr",
]
# Spaces make words for token_set (and are one more character for the others).
text = st.text(alphabet=st.sampled_from("abcé日 "), max_size=9)


def _rapidfuzz_cdist(name):
    if name in PERCENT_SCORERS:
        scores = process.cdist(STRINGS, STRINGS, scorer=PERCENT_SCORERS[name], dtype=np.float64)
        return (100.0 - scores) / 100.0
    scorer, dtype = SCORERS[name]
    return process.cdist(STRINGS, STRINGS, scorer=scorer, dtype=dtype)


@pytest.mark.parametrize("name", NAMES)
def test_pairwise_is_rapidfuzz_cdist_bit_for_bit(name):
    expected = _rapidfuzz_cdist(name)
    got = pairwise_distances(STRINGS, STRINGS, metric=name)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == expected.dtype


def _mixed_lengths(n, seed):
    """Strings of 3 to 90 characters: half of them beyond rapidfuzz's SIMD width."""
    rng = np.random.default_rng(seed)
    alphabet = list("abcdé ")
    return ["".join(rng.choice(alphabet, size=rng.integers(3, 91))) for _ in range(n)]


@pytest.mark.parametrize("name", ["levenshtein", *NAMES])
@pytest.mark.parametrize("cutoff", [None, 0.4])
def test_long_queries_turned_give_rapidfuzz_values_bit_for_bit(name, cutoff):
    # oriented_cdist computes queries over 64 characters as choices, from 1
    # or 4 of them: each block holds 6 or more, against mostly short items.
    queries = _mixed_lengths(12, seed=1)
    short = [text[:40] for text in _mixed_lengths(60, seed=2)]
    items = short + _mixed_lengths(8, seed=3)
    assert sum(len(q) > 64 for q in queries) >= 4
    metric = get_metric(name)
    if name == "levenshtein":
        scorer, dtype, percent = Levenshtein.distance, np.int32, False
    elif name in PERCENT_SCORERS:
        scorer, dtype, percent = PERCENT_SCORERS[name], np.float64, True
    else:
        (scorer, dtype), percent = SCORERS[name], False
    limit = None if cutoff is None else (int(30 * cutoff) if dtype is np.int32 else cutoff)
    expected = process.cdist(queries, items, scorer=scorer, dtype=dtype)
    if percent:
        expected = (100.0 - expected) / 100.0
    got = metric.pairwise(queries, items, score_cutoff=limit)
    if limit is None:
        np.testing.assert_array_equal(got, expected)
    else:
        # Beyond a cut-off any value beyond it may come back; within, the values.
        within = expected <= limit
        np.testing.assert_array_equal(got[within], expected[within])
        assert (got[~within] > limit).all()
    assert got.dtype == expected.dtype


def test_only_long_rows_against_mostly_short_items_are_turned(monkeypatch):
    from sklearn_ed.distances.metrics import _oriented_cdist

    calls, cdist = [], process.cdist

    def recorded(X, Y, **kwargs):
        calls.append((len(X), len(Y), sum(len(text) > 64 for text in X)))
        return cdist(X, Y, **kwargs)

    monkeypatch.setattr(_oriented_cdist.process, "cdist", recorded)
    queries = _mixed_lengths(12, seed=1)
    short = [text[:40] for text in _mixed_lengths(60, seed=2)]
    n_long = sum(len(q) > 64 for q in queries)
    turned = get_metric("normalized_levenshtein").pairwise
    turned(queries, short)
    # The long rows blanked in the first call, computed as columns in the second.
    assert calls == [(12, 60, 0), (60, n_long, 0)]
    calls.clear()
    turned(queries, [text + "x" * 64 for text in short])  # long items: kept as is
    get_metric("normalized_indel").pairwise(queries[:3], short)  # under 4 long rows
    get_metric("damerau_levenshtein").pairwise(queries, short)  # no SIMD: never
    first_three = sum(len(q) > 64 for q in queries[:3])
    assert calls == [(12, 60, n_long), (3, 60, first_three), (12, 60, n_long)]


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None)
@given(x=text, y=text)
def test_the_oracle_is_the_metric(name, x, y):
    metric = get_metric(name)
    assert metric.oracle(x, y) == pytest.approx(metric.pairwise([x], [y])[0, 0], abs=1e-12)


@pytest.mark.parametrize("name", BOUNDED)
@settings(max_examples=60, deadline=None)
@given(queries=st.lists(text, min_size=1, max_size=4), base=st.lists(text, min_size=1, max_size=6))
def test_lower_bounds_are_never_above_the_distance(name, queries, base):
    metric = get_metric(name)
    bound = metric.lower_bound(base)
    exact = metric.pairwise(queries, base)
    assert (bound.bounds(queries) <= exact).all()
    for row, (items, bounds) in enumerate(bound.within(queries, np.full(len(queries), 2.0))):
        # within() returns every item whose bound is at most the limit, with that bound.
        expected = np.flatnonzero(bound.bounds(queries)[row] <= 2.0)
        np.testing.assert_array_equal(np.sort(items), expected)
        assert (bounds <= exact[row, items]).all()


@pytest.mark.parametrize("name", BRUTE_BOUNDED)
@settings(max_examples=60, deadline=None)
@given(queries=st.lists(text, min_size=1, max_size=4), base=st.lists(text, min_size=1, max_size=6))
def test_brute_force_bounds_are_never_above_the_distance(name, queries, base):
    metric = get_metric(name)
    assert (metric.brute_force_bound(base).bounds(queries) <= metric.pairwise(queries, base)).all()


def test_the_metrics_brute_force_prunes_are_declared():
    assert BRUTE_BOUNDED == ["jaro", "jaro_winkler", "normalized_indel", "normalized_levenshtein"]


def _brute_force(queries, base, k, name):
    exact = pairwise_distances(queries, base, metric=name).astype(np.float64)
    order = np.lexsort((np.broadcast_to(np.arange(len(base)), exact.shape), exact), axis=1)[:, :k]
    return np.take_along_axis(exact, order, axis=1), order


@pytest.fixture(scope="module")
def names_base():
    rng = np.random.default_rng(0)
    first = ["anna", "john", "jon", "joan", "maria", "marie", "mario", "peter"]
    last = ["smith", "smyth", "schmidt", "jones", "johns", "miller", "muller"]
    return [f"{rng.choice(first)} {rng.choice(last)}" for _ in range(120)]


@pytest.mark.parametrize("name", NAMES)
def test_every_candidate_gives_brute_force_with_ties(name, names_base):
    queries = ["jon smith", "smith john", "mari miler", ""]
    search = FilterRefineNeighbors(metric=name, n_neighbors=4, n_candidates=1.0).fit(names_base)
    for got, expected in zip(
        search.kneighbors(queries), _brute_force(queries, names_base, 4, name)
    ):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", BOUNDED)
def test_exact_search_gives_brute_force_with_few_candidates(name, names_base):
    queries = ["jon smith", "smith john", "mari miler", "", "anna jones"]
    search = FilterRefineNeighbors(metric=name, n_neighbors=3, n_candidates=3, exact=True)
    search.fit(names_base)
    expected = _brute_force(queries, names_base, 3, name)
    for got, want in zip(search.kneighbors(queries), expected):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", NAMES)
def test_a_cutoff_keeps_every_distance_within_it(name):
    """Entries within the cut-off are exact; the others only beyond it."""
    exact = pairwise_distances(STRINGS, STRINGS, metric=name)
    for cutoff in np.unique(exact)[:: max(len(np.unique(exact)) // 6, 1)]:
        cut = get_metric(name).pairwise(STRINGS, STRINGS, score_cutoff=cutoff)
        within = exact <= cutoff
        np.testing.assert_array_equal(cut[within], exact[within])
        assert (cut[~within] > cutoff).all()


def test_pairs_exactly_at_the_radius_are_found():
    """rapidfuzz's normalized cut-off drops some pairs exactly at it
    (Jaro-Winkler of "john" and "john smith" is 0.12; at score_cutoff=0.12 it
    returns 1.0): the radius search and the join still find them."""
    from sklearn_ed import similarity_join

    base = ["john", "john smith", "abcde", "abcdf"]
    search = FilterRefineNeighbors(metric="jaro_winkler", n_candidates=1.0).fit(base)
    assert 0 in search.radius_neighbors(["john smith"], radius=0.12)[1][0]
    pairs = similarity_join(base, threshold=0.12, metric="jaro_winkler")
    assert (0, 1) in set(zip(pairs[0].tolist(), pairs[1].tolist()))


def test_token_set_keeps_rapidfuzz_semantics():
    """A subset of the other's words is at 0; a string without words at 1,
    even from itself (rapidfuzz scores it 0)."""
    distances = pairwise_distances(["john", "john smith", "", "smith jon"], metric="token_set")
    assert distances[0, 1] == 0.0 and distances[2, 2] == 1.0
    assert distances[1, 3] == (100 - fuzz.token_set_ratio("john smith", "smith jon")) / 100
    assert not get_metric("token_set").is_metric and get_metric("token_set").lower_bound is None


def test_capabilities_are_declared():
    assert get_metric("jaro_winkler").normalized and not get_metric("jaro_winkler").is_metric
    assert not get_metric("osa").is_metric and get_metric("damerau_levenshtein").is_metric
    assert get_metric("indel").integer_valued and not get_metric("normalized_indel").integer_valued


def test_bad_input_names_the_problem(names_base):
    with pytest.raises(ValueError, match=r"exact=True needs a metric .*'jaro_winkler'.*'osa'"):
        FilterRefineNeighbors(metric="hamming", exact=True).fit(names_base)
    with pytest.raises(ValueError, match=r"Unknown metric 'jaro_winkle'.*'jaro_winkler'"):
        FilterRefineNeighbors(metric="jaro_winkle").fit(names_base)
    search = FilterRefineNeighbors(metric="normalized_levenshtein", n_candidates=1.0)
    with pytest.raises(ValueError, match=r"normalized.*score_cutoff of s \(0-100\)"):
        search.fit(names_base).radius_neighbors(["john smith"], radius=15)
    within = search.radius_neighbors(["john smith"], radius=0.15, sort_results=True)[0][0]
    assert (within <= 0.15).all() and len(within) > 0


def test_radius_search_with_a_normalized_metric_finds_its_neighbors():
    """The calibration covers the pairs near each pseudo-query (the default
    radius=1.0 would be every pair of a normalized metric)."""
    from sklearn_ed.datasets import load_spell_benchmark

    bench = load_spell_benchmark(n_base=3_000, n_query=100, n_train=10)
    base, queries = list(bench.base), list(bench.query)
    search = FilterRefineNeighbors(metric="normalized_levenshtein", random_state=0).fit(base)
    assert len(search.radius_calibration_) <= 256
    brute = FilterRefineNeighbors(metric="normalized_levenshtein", n_candidates=1.0).fit(base)
    got = search.radius_neighbors(queries, radius=0.25, return_distance=False)
    expected = brute.radius_neighbors(queries, radius=0.25, return_distance=False)
    found = sum(len(set(g) & set(e)) for g, e in zip(got, expected))
    assert found >= 0.95 * sum(map(len, expected)) > 0


def test_indel_exact_search_answers_near_queries_from_the_deletion_index(names_base):
    from sklearn_ed.metrics import pruned_fraction

    queries = ["jon smith", "anna jones", "mario muler"]
    search = FilterRefineNeighbors(
        QGramEmbedder(), metric="indel", n_neighbors=1, n_candidates=1, exact=True
    )
    search.fit(names_base)
    assert search.search_.near is not None
    expected = _brute_force(queries, names_base, 1, "indel")
    for got, want in zip(search.kneighbors(queries), expected):
        np.testing.assert_array_equal(got, want)
    assert pruned_fraction(search, queries) > 0.5


@pytest.mark.parametrize("name", NAMES)
def test_every_metric_is_saved_and_loaded(name, names_base, tmp_path):
    from sklearn_ed import load, save

    search = FilterRefineNeighbors(metric=name, n_neighbors=3, n_candidates=1.0).fit(names_base)
    save(search, tmp_path / "search")
    queries = ["jon smith", "smith john"]
    for got, want in zip(load(tmp_path / "search").kneighbors(queries), search.kneighbors(queries)):
        np.testing.assert_array_equal(got, want)
