"""The recall self-check, n_candidates="auto", radius calibration and the defaults."""

import warnings

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_ed import CGKEmbedder, FilterRefineClassifier, FilterRefineNeighbors, QGramEmbedder
from sklearn_ed.datasets import make_genome_reads
from sklearn_ed.distances import get_metric, pairwise_distances
from sklearn_ed.search import choose_embedder


@pytest.fixture(scope="module")
def reads():
    """1,500 reads of 150-250 bp from 6 kbp of a real genome (coverage 50), queries last."""
    data = make_genome_reads(1700, read_length=(150, 250), genome_length=6_000, random_state=0)
    strings = np.array(data.data, dtype=object)
    base, queries = strings[:1500], strings[1500:]
    return base, queries, pairwise_distances(queries, base, n_jobs=2)


def _top_k_recall(distances, exact, k):
    kth = np.sort(exact, axis=1)[:, k - 1]
    return np.mean((distances <= kth[:, None]).sum(axis=1) / k)


def test_auto_embedder_is_chosen_from_the_data(reads):
    base, _, _ = reads
    levenshtein, euclidean = get_metric("levenshtein"), get_metric("euclidean")
    assert isinstance(choose_embedder(base, levenshtein, "auto", None, 0), QGramEmbedder)
    assert isinstance(choose_embedder(base, levenshtein, "hnsw", None, 0), CGKEmbedder)
    vectors = choose_embedder(np.eye(4), euclidean, "auto", None, 0)
    assert type(vectors).__name__ == "FunctionTransformer"
    # A query of 1,500 reads costs milliseconds: the estimator filters them.
    search = FilterRefineNeighbors(filter_algorithm="hnsw", check_recall=False, n_candidates=9)
    assert isinstance(search.fit(base).embedder_, CGKEmbedder)
    # Four vectors, or 50 reads, cost nothing to compare: it brute-forces them.
    assert FilterRefineNeighbors(metric="euclidean").fit(np.eye(4)).embedder_ is None
    assert FilterRefineNeighbors().fit(base[:50]).search_method_ == "brute_force"


def test_auto_n_candidates_meets_the_target_on_held_out_queries(reads):
    base, queries, exact = reads
    # The embedder named: this test measures the filter, whatever the timing at fit.
    search = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=10, random_state=0).fit(base)
    distances, _ = search.kneighbors(queries)
    measured = _top_k_recall(distances, exact, 10)
    assert search.n_candidates_ < len(base)  # a filter, not brute force
    assert search.estimated_recall_ - search.estimated_recall_se_ >= 0.95
    assert measured >= 0.95
    assert abs(measured - search.estimated_recall_) <= 3 * search.estimated_recall_se_ + 0.01
    curve_counts = search.recall_curve_[:, 0]
    assert search.n_candidates_ in curve_counts
    smaller = search.recall_curve_[curve_counts < search.n_candidates_]
    assert (smaller[:, 1] - smaller[:, 2] < 0.95).all()  # the smallest count that reaches it


def test_warning_fires_when_recall_is_below_target_only(reads):
    base, queries, exact = reads
    with pytest.warns(
        UserWarning,
        match=r"estimated top-10 recall 0\.\d+ .* below "
        r"target_recall=0.95; n_candidates=\d+ reaches it",
    ):
        low = FilterRefineNeighbors(n_neighbors=10, n_candidates=10, random_state=0).fit(base)
    distances, _ = low.kneighbors(queries)
    assert _top_k_recall(distances, exact, 10) < 0.95  # the warning was right
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FilterRefineNeighbors(n_neighbors=10, random_state=0).fit(base)
        FilterRefineNeighbors(n_neighbors=10, n_candidates=300, random_state=0).fit(base)


def test_unreachable_target_says_what_to_change(reads):
    base, _, _ = reads
    with pytest.warns(UserWarning, match="use exact=True"):
        FilterRefineNeighbors(
            CGKEmbedder(random_state=0), n_neighbors=10, target_recall=1.0, random_state=0
        ).fit(base)


def test_small_base_is_searched_exactly():
    words = ["kitten", "sitting", "mitten", "fitting", "knitting", "bitten"]
    search = FilterRefineNeighbors(n_neighbors=2).fit(words)
    assert search.n_candidates_ == len(words) and search.estimated_recall_ == 1.0
    exact = pairwise_distances(["kitchen"], words)[0]
    distances, _ = search.kneighbors(["kitchen"])
    np.testing.assert_array_equal(distances[0], np.sort(exact)[:2])


def test_check_can_be_turned_off(reads):
    base, _, _ = reads
    search = FilterRefineNeighbors(n_candidates=50, check_recall=False).fit(base)
    assert search.n_candidates_ == 50 and np.isnan(search.estimated_recall_)
    with pytest.raises(ValueError, match='n_candidates="auto" picks .* set check_recall=True'):
        FilterRefineNeighbors(check_recall=False).fit(base)
    # The radius calibration is a fit step of its own: radius queries still work.
    assert len(search.radius_calibration_) and len(search.radius_neighbors(base[:2], radius=10)[1])


@pytest.mark.parametrize("target", [0, -0.1, 1.5, np.nan])
def test_target_recall_outside_the_unit_interval_is_rejected(target):
    with pytest.raises(InvalidParameterError, match="target_recall"):
        FilterRefineNeighbors(target_recall=target).fit(["a", "b"])


@pytest.mark.parametrize("n_neighbors", [5, 10])
def test_radius_on_long_strings_finds_its_neighbors(reads, n_neighbors):
    # With 5 neighbors per pseudo-query, few of them know their pairs out to
    # the tenth-neighbor distance: the calibration must extrapolate safely.
    base, queries, exact = reads
    search = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=n_neighbors, random_state=0)
    search.fit(base)
    assert search.search_.bound is None  # the calibrated embedding threshold, not the bound
    for radius in np.percentile(np.sort(exact, axis=1)[:, [0, 4, 9, 19]], 50, axis=0):
        _, indices = search.radius_neighbors(queries, radius=radius)
        truth = [np.flatnonzero(row <= radius) for row in exact]
        found = sum(np.isin(t, i).sum() for t, i in zip(truth, indices))
        total = sum(map(len, truth))
        assert total > 0 and found / total >= 0.99, (radius, found, total)


def test_radius_on_short_strings_is_exact():
    rng = np.random.default_rng(0)
    words = ["".join(rng.choice(list("abcdef"), rng.integers(2, 9))) for _ in range(800)]
    queries = ["".join(rng.choice(list("abcdef"), rng.integers(2, 9))) for _ in range(40)]
    search = FilterRefineNeighbors(random_state=0).fit(words)
    exact = pairwise_distances(queries, words)
    for radius in (1, 2, 3):
        distances, indices = search.radius_neighbors(queries, radius=radius, sort_results=True)
        for row in range(len(queries)):
            expected = np.flatnonzero(exact[row] <= radius)
            np.testing.assert_array_equal(np.sort(indices[row]), expected)


@pytest.mark.parametrize("radius", [np.nan, np.inf, -1.0])
def test_bad_radius_is_a_clear_error(radius):
    search = FilterRefineNeighbors().fit(["abc", "abd", "xyz"])
    with pytest.raises(ValueError, match="radius must be a finite non-negative number"):
        search.radius_neighbors(["abc"], radius=radius)


def test_huge_finite_radius_returns_every_item(reads):
    base, queries, _ = reads
    search = FilterRefineNeighbors(random_state=0).fit(base)
    _, indices = search.radius_neighbors(queries[:2], radius=1e300)
    assert [len(row) for row in indices] == [len(base)] * 2


def test_long_strings_warn_once_per_call_with_the_count():
    search = FilterRefineNeighbors(
        CGKEmbedder(max_length=4, random_state=0), n_neighbors=1, n_candidates=2
    ).fit(["abcd", "abce", "wxyz"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.kneighbors(["abcdefgh"] * 30 + ["ab"] * 5, n_neighbors=1)
    messages = [str(w.message) for w in caught if "max_length" in str(w.message)]
    assert len(messages) == 1 and messages[0].startswith("30 string(s) are longer")


def test_classifier_defaults_match_exact_knn(reads):
    base, queries, _ = reads
    data = make_genome_reads(1700, read_length=(150, 250), genome_length=6_000, random_state=0)
    origin = data.start // 1_500  # which quarter of the genome a read comes from
    default = FilterRefineClassifier(random_state=0).fit(base, origin[:1500])
    brute = FilterRefineClassifier(n_candidates=1.0).fit(base, origin[:1500])
    assert abs(default.score(queries, origin[1500:]) - brute.score(queries, origin[1500:])) <= 0.01


def test_a_fixed_candidate_count_is_estimated_at_that_count(reads):
    base, _, _ = reads
    search = FilterRefineNeighbors(n_neighbors=10, n_candidates=60, random_state=0).fit(base)
    counts, estimates, errors = search.recall_curve_.T
    assert 60 in counts
    at_60 = np.flatnonzero(counts == 60)[0]
    assert (search.estimated_recall_, search.estimated_recall_se_) == (
        estimates[at_60],
        errors[at_60],
    )


def test_exact_search_does_not_warn_about_the_filter(reads, filter_kept):
    base, _, _ = reads
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fixed = FilterRefineNeighbors(
            n_neighbors=10, n_candidates=10, exact=True, random_state=0
        ).fit(base)
        auto = FilterRefineNeighbors(n_neighbors=10, exact=True, random_state=0).fit(base)
    # At a fixed C the answers are exact whatever the filter finds: no check runs.
    assert np.isnan(fixed.estimated_recall_)
    # "auto" still measures the filter to choose C.
    assert auto.recall_curve_.shape[0] > 0 and auto.estimated_recall_ >= 0.0


def test_fits_without_a_seed_choose_alike():
    """random_state=None is a fixed seed: the recall check samples the same
    pseudo-queries, so two fits choose the same count and answer alike."""
    from sklearn_ed.datasets import load_spell_benchmark

    words = load_spell_benchmark(n_base=2_000, n_query=50, n_train=10)
    fits = [FilterRefineNeighbors(n_neighbors=3).fit(words.base) for _ in range(2)]
    assert fits[0].n_candidates_ == fits[1].n_candidates_
    assert fits[0].estimated_recall_ == fits[1].estimated_recall_
    for a, b in zip(fits[0].kneighbors(words.query), fits[1].kneighbors(words.query)):
        np.testing.assert_array_equal(a, b)


def test_a_wider_check_reuses_the_exact_pairs_of_the_first(monkeypatch):
    """The wider check before a filter gives way to brute force searches more
    candidates of the same pseudo-queries: their exact pairs are not
    computed again, and its recall is a fresh check's."""
    from sklearn_ed.datasets import make_person_records
    from sklearn_ed.search import RecallSample, check_recall
    from sklearn_ed.search import _recall_check as recall_check

    records = make_person_records(3_000, random_state=0).data
    search = FilterRefineNeighbors(
        QGramEmbedder(), metric="jaro", n_candidates=50, check_recall=False
    ).fit(records)
    exact_passes = []
    computed = recall_check._pairs_within_limits
    monkeypatch.setattr(
        recall_check,
        "_pairs_within_limits",
        lambda *args: exact_passes.append(1) or computed(*args),
    )
    progress = type("Progress", (), {"update": lambda self, n: None})()
    sample = RecallSample()
    first = check_recall(search.search_, 1, 0, progress, random_state=0, sample=sample)
    wider = check_recall(search.search_, 1, 2_000, progress, random_state=0, sample=sample)
    assert len(exact_passes) == 1 and wider.grid[-1] == 2_000 > first.grid[-1]
    fresh = check_recall(search.search_, 1, 2_000, progress, random_state=0)
    assert len(exact_passes) == 2
    np.testing.assert_array_equal(wider.per_query, fresh.per_query)


def test_a_high_target_is_certified_by_a_larger_sample(reads):
    """At k = 10 a sample of 20 pseudo-queries (200 neighbors) certifies at
    most 0.993, so a target of 0.995 was never reached and the filter gave
    way to brute force; the sample now grows with the target."""
    from sklearn_ed.search import sample_size

    assert sample_size(10) == 20 and sample_size(1) == 200
    assert sample_size(10, 0.995) == 80 and sample_size(10, 0.998) == 200
    assert sample_size(10, 1.0) == 200
    base, queries, exact = reads
    search = FilterRefineNeighbors(n_neighbors=10, target_recall=0.995, random_state=0).fit(base)
    assert search.search_method_ != "brute_force" and search.n_candidates_ < len(base)
    assert search._recall_check.n_queries == 80
    assert search.estimated_recall_ - search.estimated_recall_se_ >= 0.995
    distances, _ = search.kneighbors(queries)
    assert _top_k_recall(distances, exact, 10) >= 0.99


def test_refine_of_long_strings_cut_off_block_by_block_keeps_the_answers(reads):
    """Long strings refine their candidates in growing blocks, each cut off
    at the k-th distance of those before: the top-k, ties at the k-th
    included, are those of the full distances."""
    base, queries, _ = reads
    search = FilterRefineNeighbors(
        QGramEmbedder(), n_neighbors=5, n_candidates=200, check_recall=False
    ).fit(base)
    fitted = search.search_
    assert fitted.policy.refine_cutoff
    candidates = fitted.candidates(queries, 200)
    full = fitted.distances(queries, candidates)
    distances, indices = fitted.refine(queries, candidates, 5)
    np.testing.assert_array_equal(distances, np.sort(full, axis=1)[:, :5])
    for row in range(len(queries)):
        kth = distances[row, -1]
        tied = np.sort(candidates[row][full[row] == kth])
        # Ties at the k-th distance go to the smaller index.
        strictly_nearer = np.sort(candidates[row][full[row] < kth])
        np.testing.assert_array_equal(
            np.sort(indices[row]),
            np.sort(np.concatenate([strictly_nearer, tied[: 5 - len(strictly_nearer)]])),
        )
