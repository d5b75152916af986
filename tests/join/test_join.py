"""similarity_join and the estimators' join against rapidfuzz brute force."""

import itertools

import numpy as np
import pytest
from conftest import mutate
from rapidfuzz import fuzz, process
from rapidfuzz.distance import (
    OSA,
    DamerauLevenshtein,
    Indel,
    JaroWinkler,
    LCSseq,
    Levenshtein,
)

import sklearn_ed.join._api as public_join
import sklearn_ed.join._brute as join_module
import sklearn_ed.join._prefix_bound as prefix_module
from sklearn_ed import (
    FilterRefineNeighbors,
    StringDeduplicator,
    iter_similarity_join,
    similarity_join,
)
from sklearn_ed.distances import get_metric

SCORERS = {
    "levenshtein": Levenshtein.distance,
    "indel": Indel.distance,
    "osa": OSA.distance,
    "damerau_levenshtein": DamerauLevenshtein.distance,
    "lcsseq": LCSseq.distance,
    "normalized_levenshtein": Levenshtein.normalized_distance,
    "normalized_indel": Indel.normalized_distance,
    "jaro_winkler": JaroWinkler.normalized_distance,
    "token_set": lambda a, b, **_: 1.0 - fuzz.token_set_ratio(a, b) / 100.0,
}
THRESHOLDS = {
    "levenshtein": [0, 1, 3],
    "indel": [2, 4],
    "osa": [1, 2],
    "damerau_levenshtein": [2],
    "lcsseq": [2],
    "normalized_levenshtein": [0.1, 0.3],
    "normalized_indel": [0.15],
    "jaro_winkler": [0.1],
    "token_set": [0.15],
}
WITHOUT_BOUND = ("jaro_winkler", "token_set")
CASES = [(metric, t) for metric, ts in THRESHOLDS.items() for t in ts]


def brute_pairs(left, right, metric, threshold):
    matrix = process.cdist(left, left if right is None else right, scorer=SCORERS[metric])
    rows, columns = np.nonzero(matrix <= threshold + 1e-12)
    if right is None:
        keep = rows < columns
        rows, columns = rows[keep], columns[keep]
    return rows.tolist(), columns.tolist(), matrix[rows, columns]


@pytest.mark.parametrize("metric, threshold", CASES)
@pytest.mark.parametrize("self_join", [True, False], ids=["self", "two-lists"])
def test_join_equals_brute_force(sides, metric, threshold, self_join):
    left, right = sides
    right = None if self_join else right
    expected_rows, expected_columns, expected = brute_pairs(left, right, metric, threshold)
    methods = ["brute", "auto"] + (["partition"] if metric not in WITHOUT_BOUND else [])
    for method in methods:
        rows, columns, distances = similarity_join(
            left, right, threshold=threshold, metric=metric, method=method
        )
        assert rows.tolist() == expected_rows and columns.tolist() == expected_columns, method
        np.testing.assert_allclose(distances, expected)


@pytest.mark.parametrize("metric, threshold", [("levenshtein", 2), ("normalized_indel", 0.3)])
@pytest.mark.parametrize("self_join", [True, False], ids=["self", "two-lists"])
def test_brute_force_on_threads_finds_the_pairs_of_one_thread(
    sides, metric, threshold, self_join, monkeypatch
):
    """Each thread takes a block of rows (many blocks here): the pairs and
    their order are those of one thread."""
    left, right = sides
    right = None if self_join else right
    monkeypatch.setattr(join_module, "BRUTE_BLOCK_CELLS", 500)
    monkeypatch.setattr(join_module, "BRUTE_BLOCK_ROWS", 3)
    one, two = (
        similarity_join(left, right, threshold=threshold, metric=metric, method="brute", n_jobs=n)
        for n in (1, 2)
    )
    expected_rows, expected_columns, _ = brute_pairs(left, right, metric, threshold)
    assert two[0].tolist() == expected_rows and two[1].tolist() == expected_columns
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_token_set_join_matches_reordered_and_partial_names():
    rng = np.random.default_rng(1)
    first, last = ["anna", "john", "jon", "maria"], ["smith", "smyth", "jones", "de la cruz"]
    names = [f"{rng.choice(first)} {rng.choice(last)}" for _ in range(60)]
    names += ["smith john", "john", "", " ", "cruz maria"]
    expected = brute_pairs(np.array(names, dtype=object), None, "token_set", 0.15)
    rows, columns, distances = similarity_join(names, min_similarity=0.85, metric="token_set")
    assert (rows.tolist(), columns.tolist()) == expected[:2] and len(rows) > 60
    np.testing.assert_allclose(distances, expected[2])


def test_min_similarity_is_one_minus_the_normalized_threshold(sides):
    left, _ = sides
    by_similarity = similarity_join(left, min_similarity=0.8, metric="normalized_indel")
    by_distance = similarity_join(left, threshold=0.2, metric="normalized_indel")
    for a, b in zip(by_similarity, by_distance):
        np.testing.assert_array_equal(a, b)


def test_processor_applies_to_both_sides():
    rows, columns, distances = similarity_join(
        ["Smith, John"],
        ["john smith", "jane smith"],
        threshold=0,
        metric="normalized_indel",
        processor="default_sort_tokens",
    )
    assert (rows.tolist(), columns.tolist(), distances.tolist()) == ([0], [0], [0.0])


def test_frame_output_has_the_same_pairs(sides):
    left, right = sides
    frame = similarity_join(left, right, threshold=2, as_frame=True)
    rows, columns, distances = similarity_join(left, right, threshold=2)
    assert list(frame.columns) == ["left", "right", "distance"]
    assert frame["left"].tolist() == rows.tolist() and frame["right"].tolist() == columns.tolist()


def test_pairs_of_blocks_out_of_order_are_sorted_unless_the_caller_needs_no_order():
    blocks = [
        (np.array([3, 3]), np.array([5, 4]), np.array([1, 2])),
        (np.array([0]), np.array([9]), np.array([0])),
    ]
    rows, columns, distances = public_join.concatenated_pairs(blocks)
    assert (rows.tolist(), columns.tolist(), distances.tolist()) == (
        [0, 3, 3],
        [9, 4, 5],
        [0, 2, 1],
    )
    rows, columns, _ = public_join.concatenated_pairs(blocks, ordered=False)
    assert (rows.tolist(), columns.tolist()) == ([3, 3, 0], [5, 4, 9])
    in_order = public_join.concatenated_pairs(
        blocks[::-1][:1] + [(np.array([3]), np.array([4]), np.array([2]))]
    )
    assert in_order[0].tolist() == [0, 3] and in_order[0].dtype == np.int64


def test_blocks_bound_the_memory_of_a_call(sides, monkeypatch):
    # Longer than the 64 characters the prefix bound starts from: its path runs too.
    left = np.array(["-" * 60 + string for string in sides[0]], dtype=object)
    expected = similarity_join(left, threshold=2, method="brute")
    calls = []
    real = join_module.pairwise_distances_within

    def recording(X, Y, *args, **kwargs):
        calls.append(len(X) * len(Y))
        return real(X, Y, *args, **kwargs)

    def recording_bound(distance, prefixes, other, cutoffs):
        bound_calls.append(len(prefixes) * len(other))
        return real_bound(distance, prefixes, other, cutoffs)

    bound_calls, real_bound = [], prefix_module.pairwise_block
    monkeypatch.setattr(join_module, "pairwise_distances_within", recording)
    monkeypatch.setattr(prefix_module, "pairwise_block", recording_bound)
    monkeypatch.setattr(join_module, "BRUTE_BLOCK_CELLS", 400)
    monkeypatch.setattr(join_module, "BRUTE_BLOCK_ROWS", 1)
    # The bound stops at the first block that keeps a pair: both ways run.
    monkeypatch.setattr(prefix_module, "WORTH_KEEPING", 1e-9)
    blocks = list(iter_similarity_join(left, threshold=2, method="brute"))
    # Both ways of comparing a block (through the prefix bound, and directly
    # once it stopped pruning) hold at most a block of distances.
    assert len(blocks) > 10 and calls and bound_calls
    assert max(calls + bound_calls) <= 400 + len(left)
    monkeypatch.setattr("sklearn_ed.join._partition.PROBE_BLOCK", 50)
    monkeypatch.setattr("sklearn_ed.join._partition.STRING_BLOCK", 7)
    for method, found in (("brute", blocks), ("partition", None)):
        found = found or list(iter_similarity_join(left, threshold=2, method=method))
        joined = public_join.concatenated_pairs(found)
        for a, b in zip(joined, expected):
            np.testing.assert_array_equal(a, b)


def test_a_common_segment_is_expanded_in_bounded_groups(monkeypatch):
    """Every record shares "smith": its raw matches are expanded a group of
    probe rows at a time, and the pairs are those of brute force."""
    from sklearn_ed.join import _partition

    rng = np.random.default_rng(3)
    records = ["smith " + "".join(rng.choice(list("abcd"), 6)) for _ in range(150)]
    expected = brute_pairs(np.array(records, dtype=object), None, "levenshtein", 2)
    expanded = []
    pair_codes = _partition.SegmentIndex.pair_codes

    def recording(self, low, counts, key_rows, part, rows):
        expanded.append(int(counts[(key_rows >= rows.start) & (key_rows < rows.stop)].sum()))
        return pair_codes(self, low, counts, key_rows, part, rows)

    monkeypatch.setattr(_partition.SegmentIndex, "pair_codes", recording)
    monkeypatch.setattr(_partition, "MATCH_BLOCK", 400)
    rows, columns, _ = similarity_join(records, threshold=2, method="partition")
    assert (rows.tolist(), columns.tolist()) == expected[:2]
    largest_row = 150 * 5  # at most every indexed row, for each of a probe's windows
    assert len(expanded) > 10 and max(expanded) <= 400 + largest_row < sum(expanded) / 5


def test_estimator_join_matches_new_records_against_the_fitted_base(sides):
    left, right = sides
    register = FilterRefineNeighbors(processor="lower", random_state=0).fit(right)
    queries = np.array([s.upper() for s in left[:60]], dtype=object)
    rows, columns, distances = register.join(queries, threshold=2)
    expected = similarity_join(queries, right, threshold=2, processor="lower")
    for a, b in zip((rows, columns, distances), expected):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"threshold": -1}, "threshold must be a number in a distance >= 0"),
        ({"threshold": 1.5, "metric": "normalized_levenshtein"}, r"in \[0, 1\]"),
        ({"min_similarity": 0.9}, "min_similarity needs a normalized metric"),
        ({"threshold": 1, "min_similarity": 0.9}, "exactly one of"),
        ({}, "exactly one of"),
        ({"threshold": 0.1, "metric": "jaro_winkler", "method": "partition"}, "has none"),
        ({"threshold": 1, "method": "fast"}, "method must be one of"),
    ],
)
def test_bad_thresholds_and_methods_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        similarity_join(["kitten", "sitting"], **kwargs)


def test_empty_sides_are_refused():
    with pytest.raises(ValueError, match="left contains 0 strings"):
        similarity_join([], threshold=1)
    with pytest.raises(ValueError, match="right contains 0 strings"):
        similarity_join(["a"], [], threshold=1)


def test_join_of_an_estimator_on_vectors_is_refused():
    search = FilterRefineNeighbors(metric="euclidean", random_state=0).fit(np.eye(6))
    with pytest.raises(ValueError, match="join compares strings"):
        search.join(np.eye(2, 6), threshold=1)


def test_an_output_larger_than_memory_is_refused_before_it_starts(monkeypatch):
    monkeypatch.setattr(public_join, "available_memory", lambda: 10_000)
    with pytest.raises(MemoryError, match="iter_similarity_join"):
        similarity_join(["aaaa", "aaab", "aabb"] * 100, threshold=2)


@pytest.fixture(scope="module")
def words():
    from sklearn_ed.datasets import load_spell_benchmark

    return np.array(load_spell_benchmark(n_base=3_000, n_query=10, n_train=10).base, dtype=object)


@pytest.mark.parametrize(
    "metric, threshold",
    [("levenshtein", 1), ("jaro_winkler", 0.1), ("token_set", 0.2), ("normalized_indel", 0.2)],
)
def test_the_filter_join_returns_pairs_within_the_threshold_and_finds_them(
    words, metric, threshold
):
    """Approximate: every pair returned is within the threshold at its exact
    distance, each once; on words it finds at least 95 % of them (all of them
    for Levenshtein), as a self-join and between two lists."""
    for right in (None, words[::3]):
        left = words if right is None else words[1::3]
        rows, columns, distances = brute_pairs(left, right, metric, threshold)
        expected = dict(zip(zip(rows, columns), distances))
        found = similarity_join(left, right, threshold=threshold, metric=metric, method="filter")
        pairs = list(zip(found[0].tolist(), found[1].tolist()))
        assert len(set(pairs)) == len(pairs) and pairs == sorted(pairs)
        if right is None:
            assert all(a < b for a, b in pairs)
        assert set(pairs) <= set(expected)
        np.testing.assert_allclose(found[2], [expected[pair] for pair in pairs])
        share = len(pairs) / len(expected)
        assert share >= (1.0 if metric == "levenshtein" else 0.95), share


def test_the_pair_recall_estimate_measures_what_was_missed(words):
    """Drop every other true pair: the estimate says about half, and warns."""
    from sklearn_ed.distances import get_metric
    from sklearn_ed.join import check_pair_recall

    rows, columns, distances = similarity_join(words, threshold=2, method="brute")
    kept = np.arange(len(rows)) % 2 == 0
    with pytest.warns(UserWarning, match=r"estimated 0\.\d+ \(\+/- 0\.\d+\) .* below 0\.95"):
        recall, error = check_pair_recall(
            (rows[kept], columns[kept], distances[kept]),
            words, None, get_metric("levenshtein"), 2, None,
        )  # fmt: skip
    assert abs(recall - 0.5) <= 3 * error + 0.02 and 0 < error < 0.1


def _with_suffix(string):
    return string + "-s"


def test_the_estimator_joins_through_its_own_filter(words):
    register = FilterRefineNeighbors(random_state=0).fit(words[::2])
    queries = words[1::2]
    found = register.join(queries, threshold=1, method="filter")
    expected = similarity_join(queries, words[::2], threshold=1)
    for got, want in zip(found, expected):
        np.testing.assert_array_equal(got, want)
    from sklearn_ed import FilterRefineClassifier

    # A processor applied twice would change the strings: the filter join
    # applies it once, as the exact join does.
    register = FilterRefineNeighbors(processor=_with_suffix, random_state=0).fit(words[::2])
    for got, want in zip(
        register.join(queries, threshold=1, method="filter"), register.join(queries, threshold=1)
    ):
        np.testing.assert_array_equal(got, want)
    classifier = FilterRefineClassifier().fit(words[:50], np.arange(50) % 2)
    with pytest.raises(ValueError, match="method='filter' joins through radius_neighbors"):
        classifier.join(queries[:5], threshold=1, method="filter")


def pairs_at_their_own_distance(n_pairs):
    """Pairs of word strings, each with its own distance and similarity as
    rapidfuzz computes them: thresholds exactly at a pair."""
    rng = np.random.default_rng(11)
    words = ["ann", "anne", "lee", "smith", "smyth", "jon", "john", "x", "abcdefghijklmnopqrst"]
    pairs = []
    for _ in range(n_pairs):
        a = " ".join(rng.choice(words, rng.integers(1, 4)))
        b = mutate(" ".join(rng.choice(words, rng.integers(1, 4))), int(rng.integers(0, 3)), rng)
        pairs.append((a, b))
    return pairs


# The similarity rapidfuzz users give as score_cutoff / 100, per normalized metric.
SIMILARITIES = {
    "normalized_indel": lambda a, b: fuzz.ratio(a, b) / 100,
    "normalized_levenshtein": Levenshtein.normalized_similarity,
    "jaro_winkler": JaroWinkler.similarity,
    "token_set": lambda a, b: fuzz.token_set_ratio(a, b) / 100,
}


@pytest.mark.parametrize("metric", sorted(SIMILARITIES))
def test_a_pair_exactly_at_the_threshold_is_kept_in_every_path(metric):
    """As rapidfuzz's score_cutoff keeps a pair scoring exactly the cut-off, so
    do the join (each method), the deduplicator and radius_neighbors, given the
    pair's similarity, one minus it, or its distance as a decimal score."""
    methods = ["brute", "auto"] + ([] if metric in WITHOUT_BOUND else ["partition"])
    for a, b in pairs_at_their_own_distance(60):
        similarity = SIMILARITIES[metric](a, b)
        if similarity == 0:
            continue
        score = similarity * 100
        asked = [
            {"min_similarity": similarity},
            {"threshold": 1 - similarity},
            {"threshold": (100 - score) / 100},
        ]
        for kwargs, method in itertools.product(asked, methods):
            left, right, _ = similarity_join([a, b], metric=metric, method=method, **kwargs)
            assert (left.tolist(), right.tolist()) == ([0], [1]), (a, b, kwargs, method)
        labels = StringDeduplicator(min_similarity=similarity, metric=metric).fit_predict([a, b])
        assert labels.tolist() == [0, 0]
        search = FilterRefineNeighbors(metric=metric, n_candidates=1, random_state=0).fit([b])
        found = search.radius_neighbors([a], radius=1 - similarity, return_distance=False)
        assert found[0].tolist() == [0], (a, b)


def test_the_issue_s_pairs_at_the_cut_off():
    a, b = "abcdefghijklmnopqrst", "abcdefghijklmnopqxyz"
    assert fuzz.token_set_ratio(a, b) == 85
    for kwargs in ({"min_similarity": 0.85}, {"threshold": 0.15}):
        rows, _, distances = similarity_join([a, b], metric="token_set", **kwargs)
        assert rows.tolist() == [0] and distances.tolist() == [0.15]
    rows, _, _ = similarity_join(["anne", "ann"], min_similarity=6 / 7, metric="normalized_indel")
    assert rows.tolist() == [0]


@pytest.mark.parametrize("threshold", [float("inf"), 1e19, 1e300, 2.0**62])
@pytest.mark.parametrize("metric", ["levenshtein", "osa", "lcsseq", "damerau_levenshtein", "indel"])
@pytest.mark.parametrize("method", ["auto", "partition", "brute"])
def test_a_threshold_beyond_every_distance_keeps_every_pair(threshold, metric, method):
    strings = ["ab", "abc", "xyz", ""]
    rows, columns, _ = similarity_join(strings, threshold=threshold, metric=metric, method=method)
    assert list(zip(rows.tolist(), columns.tolist())) == list(itertools.combinations(range(4), 2))
    register = FilterRefineNeighbors(metric=metric, random_state=0).fit(strings)
    rows, _, _ = register.join(["q", "abcd"], threshold=threshold, method=method)
    assert len(rows) == 8


def test_a_share_with_an_integer_metric_is_refused():
    with pytest.raises(ValueError, match="whole edits, would keep only equal strings"):
        similarity_join(["Jon Smith", "John Smith"], threshold=0.15)


@pytest.mark.parametrize("method", ["brute", "partition", "auto", "filter"])
def test_copies_of_one_string_stream_in_bounded_blocks(method):
    """10,000 copies of a string make 50 million pairs: the first blocks come
    without the others being held, each of at most a block's pairs."""
    import tracemalloc

    from sklearn_ed.join._distinct import EXPANDED_BLOCK

    strings = ["same string here"] * 10_000
    tracemalloc.start()
    blocks = iter_similarity_join(strings, threshold=1, method=method)
    sizes = [len(next(blocks)[0]) for _ in range(3)]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert 0 < max(sizes) <= 2 * EXPANDED_BLOCK and peak < 300 * 2**20
    rows, columns, _ = similarity_join(
        strings[:300] + ["same string hare"], threshold=1, method=method
    )
    assert len(rows) == 301 * 300 // 2 and (rows < columns).all()


def test_copies_are_joined_as_the_strings_themselves(sides):
    """Lists with many copies (blank strings, repeated names) give the pairs of
    brute force over the rows, two lists and a self-join."""
    left, right = sides
    rng = np.random.default_rng(5)
    left = np.concatenate([left, rng.choice(left, 200)])
    right = np.concatenate([right, rng.choice(right, 100)])
    for other, method in itertools.product((None, right), ("brute", "partition")):
        rows, columns, distances = similarity_join(left, other, threshold=2, method=method)
        expected = brute_pairs(left, other, "levenshtein", 2)
        assert (rows.tolist(), columns.tolist()) == expected[:2]
        np.testing.assert_array_equal(distances, expected[2])


def test_a_task_of_many_groups_hands_over_one_at_a_time(monkeypatch):
    """A segment common to every row makes a task of many groups of candidates:
    the first block comes before the task's other groups are expanded."""
    from sklearn_ed.join import _partition

    records = ["smith " + "".join(c) for c in itertools.product("abcd", repeat=4)][:150]
    expanded = []
    pair_codes = _partition.SegmentIndex.pair_codes

    def recording(self, low, counts, key_rows, part, rows):
        expanded.append(int(counts[(key_rows >= rows.start) & (key_rows < rows.stop)].sum()))
        return pair_codes(self, low, counts, key_rows, part, rows)

    monkeypatch.setattr(_partition.SegmentIndex, "pair_codes", recording)
    monkeypatch.setattr(_partition, "MATCH_BLOCK", 400)
    _, blocks = _partition.partition_candidates(
        records, records, lambda a, b: np.full(len(a), 2), self_join=True
    )
    next(blocks)
    assert len(expanded) == 1
    assert len(list(blocks)) > 10 and len(expanded) > 10


@pytest.mark.parametrize("method", ["partition", "brute"])
def test_pairs_of_copies_keep_an_integer_metric_s_integers(method):
    """A self-join whose input repeats a string gives the copies' pairs the
    metric's own dtype: the whole answer stays integer for Levenshtein."""
    left, right, distance = similarity_join(
        ["kitten", "kitten", "sitten", "dog"], threshold=1, method=method
    )
    assert distance.dtype.kind == "i"
    assert (left.tolist(), right.tolist(), distance.tolist()) == ([0, 0, 1], [1, 2, 2], [0, 1, 1])


def test_a_threshold_beyond_the_lengths_keeps_every_pair_of_series():
    # No bound by the lengths holds for DTW (nor for records): a threshold is kept
    # as it is, where strings cap it at the sum of the two longest lengths.
    series = [np.array([0.0, 100.0]), np.array([50.0, 0.0]), np.array([300.0])]
    series.append(series[0].copy())  # a copy: the join compares distinct series once
    left, right, distances = similarity_join(series, threshold=1000.0, metric="dtw")
    pairs = list(zip(left.tolist(), right.tolist()))
    assert sorted(pairs) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert distances.max() > 4 and distances[pairs.index((0, 3))] == 0


@pytest.mark.parametrize(
    "metric, threshold",
    [
        ("normalized_indel", 0.15),
        ("normalized_levenshtein", 0.3),
        ("jaro_winkler", 0.1),
        ("levenshtein", 3),
        ("indel", 4),
        ("osa", 2),
    ],
)
@pytest.mark.parametrize("self_join", [True, False], ids=["self", "two-lists"])
@pytest.mark.parametrize("bag", [True, False], ids=["shared-characters", "every-pair"])
def test_brute_force_bounded_by_the_characters_shared_finds_every_pair(
    sides, metric, threshold, self_join, bag, monkeypatch
):
    """Whichever path the pass rate picks, in blocks (several per thread)."""
    left, right = sides
    right = None if self_join else right
    monkeypatch.setattr(join_module, "BAG_MAX_PASS_RATE", 1.0 if bag else -1.0)
    monkeypatch.setattr(join_module, "BRUTE_BLOCK_CELLS", 500)
    monkeypatch.setattr(join_module, "BRUTE_BLOCK_ROWS", 3)
    monkeypatch.setattr(join_module, "BAG_BLOCK_KEPT_PAIRS", 40)
    plan = join_module.BruteJoin(left, right, get_metric(metric), threshold, n_jobs=2)
    assert plan.bounded_by_characters == bag
    rows, columns, distances = similarity_join(
        left, right, threshold=threshold, metric=metric, method="brute", n_jobs=2
    )
    expected_rows, expected_columns, expected = brute_pairs(left, right, metric, threshold)
    assert rows.tolist() == expected_rows and columns.tolist() == expected_columns
    np.testing.assert_allclose(distances, expected)


def test_blocks_bounded_by_the_characters_shared_keep_bounded_pairs_on_every_thread():
    """As many rows as keep ``BAG_BLOCK_KEPT_PAIRS`` pairs, at least
    ``BAG_BLOCKS_PER_THREAD`` blocks a thread, never fewer rows than a block
    of every pair compared."""
    rows_of = join_module.bag_block_rows
    kept_pairs, per_thread = join_module.BAG_BLOCK_KEPT_PAIRS, join_module.BAG_BLOCKS_PER_THREAD
    # 100,000 rows, 1 % of 100,000 items kept: the memory decides.
    assert rows_of(100_000, 100_000, 0.01, 2) == kept_pairs // 1000
    # Few pairs kept: the threads' share of the rows decides.
    assert rows_of(100_000, 100_000, 1e-6, 2) == -(-100_000 // (2 * per_thread))
    assert rows_of(100_000, 100_000, 1e-6, 4) == -(-100_000 // (4 * per_thread))
    # Never under the rows of a block of every pair compared.
    assert rows_of(2_000, 2_000, 1e-6, 2) == join_module.block_rows(2_000)
    assert rows_of(100_000, 100_000, 0.9, 2) == join_module.block_rows(100_000)


def test_brute_force_builds_its_filter_of_the_characters_shared_only_when_it_runs(
    sides, monkeypatch
):
    """The plan "auto" samples filters the sample's strings alone, counts the
    full filter's build as time still to come, and builds it in ``blocks``."""
    left, _ = sides
    monkeypatch.setattr(join_module, "BAG_MAX_PASS_RATE", 1.0)
    plan = join_module.BruteJoin(left, None, get_metric("levenshtein"), 2, n_jobs=1)
    assert plan.bounded_by_characters and plan.bag is None and plan.deferred_seconds > 0
    assert plan.sample(np.arange(8)) > 0 and plan.settled and plan.bag is None
    blocks = list(plan.blocks())
    assert plan.bag is not None
    rows = np.concatenate([block[0] for block in blocks]).tolist()
    columns = np.concatenate([block[1] for block in blocks]).tolist()
    expected_rows, expected_columns, _ = brute_pairs(left, None, "levenshtein", 2)
    assert sorted(zip(rows, columns)) == sorted(zip(expected_rows, expected_columns))
