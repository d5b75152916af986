"""method="auto": the method of least time, timed on samples, and the same pairs."""

import logging

import numpy as np
import pytest
from test_join import CASES, brute_pairs

import sklearn_ed.join._auto as auto_module
import sklearn_ed.join._methods as methods_module
import sklearn_ed.join._partition_join as partition_join_module
from sklearn_ed import StringDeduplicator, similarity_join
from sklearn_ed.distances import get_metric
from sklearn_ed.join import JoinMethod, brute_join, register_join_method
from sklearn_ed.join._partition_join import PartitionJoin


@pytest.fixture
def timed_small_joins(monkeypatch):
    """ "auto" times even small joins, from 8 rows, for several rounds."""
    monkeypatch.setattr(auto_module, "SMALL_JOIN_PAIRS", 0)
    monkeypatch.setattr(auto_module, "FIRST_SAMPLE_ROWS", 8)
    monkeypatch.setattr(auto_module, "SAMPLING_SHARE", np.inf)
    monkeypatch.setattr(auto_module, "CLEAR_LEAD", np.inf)


@pytest.mark.parametrize("metric, threshold", CASES)
@pytest.mark.parametrize("self_join", [True, False], ids=["self", "two-lists"])
def test_a_timed_auto_join_equals_brute_force(
    sides, metric, threshold, self_join, timed_small_joins
):
    """Whichever method wins, the pairs its samples found are neither lost nor repeated."""
    left, right = sides
    right = None if self_join else right
    expected_rows, expected_columns, expected = brute_pairs(left, right, metric, threshold)
    rows, columns, distances = similarity_join(left, right, threshold=threshold, metric=metric)
    assert rows.tolist() == expected_rows and columns.tolist() == expected_columns
    np.testing.assert_allclose(distances, expected)


@pytest.mark.parametrize("self_join", [True, False], ids=["self", "two-lists"])
@pytest.mark.parametrize("metric, threshold", [("levenshtein", 1), ("normalized_levenshtein", 0.3)])
def test_a_partition_join_sampled_then_run_finds_every_pair_once(
    sides, metric, threshold, self_join
):
    left, right = sides
    right = None if self_join else right
    spec = get_metric(metric)
    join = PartitionJoin(left, right, spec, threshold, None)
    order = np.random.default_rng(1).permutation(len(left))
    shares = [join.sample(order[begin : begin + 16]) for begin in (0, 16, 32)]
    assert all(0 < share < 1 for share in shares)
    pairs = [np.concatenate(part) for part in zip(*join.blocks())]
    found = sorted(zip(pairs[0].tolist(), pairs[1].tolist()))
    expected_rows, expected_columns, _ = brute_pairs(left, right, metric, threshold)
    assert found == sorted(zip(expected_rows, expected_columns))


@pytest.mark.parametrize("self_join", [True, False], ids=["self", "two-lists"])
def test_short_rows_compared_in_blocks_find_every_pair_once(sides, self_join, monkeypatch):
    """Rows too short to cut (under 5 characters within 2 edits) are compared
    with the probes of the lengths their bound allows, 3 rows a block."""
    monkeypatch.setattr(partition_join_module, "block_rows", lambda n_items: 3)
    left, right = sides
    right = None if self_join else right
    join = PartitionJoin(left, right, get_metric("levenshtein"), 2, 2)
    assert len(np.unique(join.filter.index_lengths[join.filter.short])) >= 3
    assert len(join.filter.short) > 6
    pairs = [np.concatenate(part) for part in zip(*join.blocks())]
    found = list(zip(pairs[0].tolist(), pairs[1].tolist()))
    expected_rows, expected_columns, _ = brute_pairs(left, right, "levenshtein", 2)
    assert sorted(found) == sorted(zip(expected_rows, expected_columns))


class _Clock:
    """Time that passes only when a fake plan works."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(auto_module, "perf_counter", clock)
    monkeypatch.setattr(auto_module, "SMALL_JOIN_PAIRS", 0)
    return clock


class _Asked(dict):
    """The rows each method's samples were asked for, its plans' rows in
    ``built``, and the rows its pilots' samples were asked for in ``piloted``."""

    def __init__(self, *arguments):
        super().__init__(*arguments)
        self.built, self.piloted = {}, {}


def _registered_plans(
    monkeypatch,
    clock,
    seconds_per_join,
    declining=(),
    per_call=None,
    settling=(),
    fixed=(),
    preparing=None,
    keeping=(),
    n_rows=None,
    small=(),
    first_call=None,
):
    """Methods whose plans take ``seconds_per_join[name]`` for the whole join
    of ``n_rows`` rows (on the fake clock; a plan of fewer rows, a pilot, in
    proportion to the square of its rows), and ``per_call[name]`` more each
    call, and record the rows each sample was asked for; those ``settling``
    say they are settled after their first timed sample, those ``fixed``
    from the start (every sample the same work). A plan takes
    ``preparing[name]`` seconds to build for ``n_rows`` rows, in proportion
    to its rows (the rows of each plan built are in ``asked.built[name]``);
    those ``keeping`` say their samples' share of the join is kept; those
    ``small`` are the methods for small joins (prepared first, unpiloted);
    the first call of a plan of ``n_rows`` takes ``first_call[name]`` seconds more."""
    per_call, preparing, first_call = per_call or {}, preparing or {}, first_call or {}
    assert n_rows, "the rows of the join the fake plans time"
    monkeypatch.setattr(methods_module, "_METHODS", {})
    asked = _Asked({name: [] for name in seconds_per_join})

    def plan_of(name):
        class Plan:
            def __init__(self, left, right, spec, limit, n_jobs):
                self.arguments = (left, right, spec, limit, n_jobs)
                self.settled = name in fixed
                self.kept = 0.0
                clock.now += preparing.get(name, 0.0) * len(left) / n_rows
                asked.built.setdefault(name, []).append(len(left))

            def sample(self, rows):
                size = len(self.arguments[0]) / n_rows
                if size < 1:
                    asked.piloted.setdefault(name, []).append(len(rows))
                else:
                    asked[name].append(len(rows))
                self.settled = name in fixed or (name in settling and len(asked[name]) > 1)
                share = len(rows) / len(self.arguments[0])
                seconds = seconds_per_join[name] * min(size, 1.0) ** 2
                clock.now += seconds * share + per_call.get(name, 0.0)
                if size >= 1 and len(asked[name]) == 1:
                    clock.now += first_call.get(name, 0.0)
                self.kept += share if name in keeping else 0.0
                return share

            def blocks(self):
                return brute_join(*self.arguments)

        return (lambda *arguments: None) if name in declining else Plan

    for name in seconds_per_join:
        register_join_method(
            JoinMethod(name, brute_join, plan=plan_of(name), small_joins=name in small)
        )
    return asked


def _auto_self_join_of_words(n_rows):
    """ "auto"'s choice for the self-join of ``n_rows`` distinct words within 0 edits."""
    strings = np.array([f"w{i:05d}" for i in range(n_rows)], dtype=object)
    return auto_module.choose_join_method("auto", strings, None, get_metric("levenshtein"), 0, None)


def _logged_self_join_of_words(caplog, n_rows):
    """What ``similarity_join`` logs joining ``n_rows`` distinct words within 1 edit."""
    with caplog.at_level(logging.INFO, logger="sklearn_ed.join"):
        similarity_join([f"w{i:05d}" for i in range(n_rows)], threshold=1)
    return caplog.text


def test_auto_runs_the_method_of_least_measured_time(monkeypatch, clock, caplog):
    asked = _registered_plans(monkeypatch, clock, {"slow": 100.0, "fast": 10.0}, n_rows=5000)
    strings = [f"w{i:05d}" for i in range(5000)]
    with caplog.at_level(logging.INFO, logger="sklearn_ed.join"):
        found = similarity_join(strings, threshold=1)
    expected = similarity_join(strings, threshold=1, method="fast")
    assert all(np.array_equal(a, b) for a, b in zip(found, expected))
    [record] = caplog.records
    assert "method='auto' chose 'fast'" in record.getMessage()
    assert "fast 10 s, slow 100 s" in record.getMessage()  # in the order of their pilots
    # One untimed row, then 8 rows: a lead of 10x ends the sampling there.
    assert asked == {"slow": [1, 8], "fast": [1, 8]}


def test_close_methods_are_sampled_until_the_share_of_time_is_spent(monkeypatch, clock):
    asked = _registered_plans(monkeypatch, clock, {"a": 12.0, "b": 10.0}, n_rows=100_000)
    choice = _auto_self_join_of_words(100_000)
    assert choice.name == "b"  # its blocks are not run
    # 8 and 32 rows, then doubling from 128 rows while another round would keep
    # both methods' timed samples within 3 % of the least estimate (10 s): 936 rows.
    assert asked["a"] == asked["b"] == [1, 8, 32, 128, 256, 512]


def test_a_close_call_goes_to_the_method_that_needs_less_time_from_there(monkeypatch, clock):
    """The partition filter's index is built, and the pairs of its samples are
    kept, before "auto" chooses: a method estimated dearer with them (1 s of
    index, then 10.2 s) still runs where what it has left (10.2 s, less the
    share sampled) is less than the other's 10.5 s."""
    _registered_plans(
        monkeypatch,
        clock,
        {"indexed": 10.2, "plain": 10.5},
        preparing={"indexed": 1.0},
        keeping=("indexed",),
        n_rows=100_000,
    )
    choice = _auto_self_join_of_words(100_000)
    assert choice.estimates["indexed"] > choice.estimates["plain"]
    assert choice.name == "indexed"


def test_a_preparation_dearer_than_another_join_is_not_made(monkeypatch, clock, caplog):
    """Pilots on 64 rows (the fixed cost) and on every 16th row put the
    index at 19 s where the other method joins in 10 s: the index is never
    built for the whole join."""
    asked = _registered_plans(
        monkeypatch,
        clock,
        {"indexed": 1.0, "plain": 10.0},
        preparing={"indexed": 20.0},
        n_rows=20_000,
    )
    logged = _logged_self_join_of_words(caplog, 20_000)
    assert "chose 'plain'" in logged
    assert "indexed not prepared (its pilots: at least 19.1 s)" in logged
    assert asked.built["indexed"] == [64, 1_250] and asked["indexed"] == []
    # Prepared, plain was timed on its own: one untimed row, then 8 rows.
    assert asked.built["plain"] == [64, 1_250, 20_000] and asked["plain"] == [1, 8]


def test_a_fixed_cost_per_call_does_not_drop_the_faster_method(monkeypatch, clock, caplog):
    """20 ms a call makes the first 8 rows' mean rate 26 s for a join of 1 s;
    less the first call's time, the lower estimate keeps it in the running."""
    _registered_plans(
        monkeypatch, clock, {"lean": 1.0, "plain": 5.0}, per_call={"lean": 0.02}, n_rows=10_000
    )
    assert "chose 'lean'" in _logged_self_join_of_words(caplog, 10_000)


def test_a_likely_loser_is_not_sampled_at_a_cost_beyond_the_share(monkeypatch, clock):
    """After 32 rows of 10,000 the dear method's next sample (128 rows, 0.38 s)
    would cost more than 3 % of the cheap one's 10 s: it is dropped there,
    though its lead (3x) is under the 4x that drops any method."""
    asked = _registered_plans(monkeypatch, clock, {"dear": 30.0, "cheap": 10.0}, n_rows=10_000)
    strings = np.array([f"w{i:05d}" for i in range(10_000)], dtype=object)
    choice = auto_module.choose_join_method(
        "auto", strings, None, get_metric("levenshtein"), 0, None
    )
    assert choice.name == "cheap"
    assert asked == {"dear": [1, 8, 32], "cheap": [1, 8, 32]}


def test_a_settled_plan_is_not_sampled_again(monkeypatch, clock):
    asked = _registered_plans(
        monkeypatch, clock, {"a": 12.0, "b": 10.0}, settling=("a",), n_rows=100_000
    )
    choice = _auto_self_join_of_words(100_000)
    assert choice.name == "b"
    # b alone spends the sampling time: one round more than when both sample.
    assert asked["a"] == [1, 8] and asked["b"] == [1, 8, 32, 128, 256, 512, 1024]


def test_a_plan_settled_from_the_start_is_timed_on_its_first_call(monkeypatch, clock):
    asked = _registered_plans(
        monkeypatch, clock, {"a": 12.0, "b": 10.0}, fixed=("a",), n_rows=100_000
    )
    choice = _auto_self_join_of_words(100_000)
    assert choice.name == "b" and choice.estimates["a"] == pytest.approx(12.0)
    # Estimated above 0.2 s, its sample is timed three times (its least time kept).
    assert asked["a"] == [1, 1, 1]


def test_a_settled_plan_is_estimated_on_its_least_time(monkeypatch, clock):
    """A first call slower by 0.1 ms puts "a" at 12.4 s; timed again, at its 2.4 s."""
    _registered_plans(
        monkeypatch,
        clock,
        {"a": 2.4, "b": 10.0},
        fixed=("a",),
        first_call={"a": 1e-4},
        n_rows=100_000,
    )
    choice = _auto_self_join_of_words(100_000)
    assert choice.name == "a" and choice.estimates["a"] == pytest.approx(2.4)


def test_a_method_that_would_save_less_than_its_preparation_is_not_prepared(
    monkeypatch, clock, caplog
):
    """Its pilots put the index at 4.86 s and its join at 0.55 s at least: it
    could save at most 4.59 s of the other's 10 s, less than the 4.86 s it
    would lose if it lost."""
    asked = _registered_plans(
        monkeypatch,
        clock,
        {"indexed": 9.0, "plain": 10.0},
        preparing={"indexed": 5.1},
        n_rows=20_000,
    )
    logged = _logged_self_join_of_words(caplog, 20_000)
    assert "chose 'plain'" in logged
    assert "indexed not prepared (its pilots: at least 5.41 s)" in logged
    assert asked.built["indexed"] == [64, 1_250]


def test_a_partition_sample_spreads_over_the_lengths():
    """128 rows come from 8 lengths, one in each eighth of the rows sorted by
    length, whatever the rows' order."""
    rng = np.random.default_rng(0)
    lengths = rng.permutation(np.repeat(np.arange(5, 37), 50))
    strings = np.array(["".join(rng.choice(list("abcd"), n)) for n in lengths], dtype=object)
    join = PartitionJoin(strings, None, get_metric("levenshtein"), 1, None)
    sampled = np.unique(lengths[join._spread_rows(128)])
    assert len(sampled) == 8
    eighths = np.sort(lengths).reshape(8, -1)
    assert all(low <= n <= high for n, low, high in zip(sampled, eighths[:, 0], eighths[:, -1]))
    join.sample(np.arange(128))
    assert join.sampled.sum() == 128
    assert not np.isin(join._spread_rows(128), np.flatnonzero(join.sampled)).any()


def test_partition_samples_take_each_row_once_until_none_is_left():
    rng = np.random.default_rng(1)
    lengths = rng.permutation(np.repeat(np.arange(5, 13), [3, 40, 7, 1, 60, 2, 30, 9]))
    strings = np.array(["".join(rng.choice(list("abcd"), n)) for n in lengths], dtype=object)
    join = PartitionJoin(strings, None, get_metric("levenshtein"), 1, None)
    taken = []
    for _ in range(500):
        taken += join._spread_rows(128).tolist()
    assert sorted(taken) == list(range(len(strings)))


def test_a_method_that_declines_is_not_timed(monkeypatch, clock, caplog):
    _registered_plans(
        monkeypatch, clock, {"picky": 1.0, "steady": 10.0}, declining=("picky",), n_rows=3000
    )
    with caplog.at_level(logging.INFO, logger="sklearn_ed.join"):
        similarity_join([f"w{i:04d}" for i in range(3000)], threshold=1)
    assert "chose 'steady'" in caplog.text and "picky declined" in caplog.text


def test_the_deduplicator_says_which_method_found_its_pairs(timed_small_joins):
    words = [f"{a}{b}{c}" for a in "abcdefgh" for b in "abcdefgh" for c in "abcdefgh"]
    for method in ("brute", "partition", "auto"):
        dedup = StringDeduplicator(1, method=method).fit(words)
        assert dedup.method_ in ("brute", "partition")
        assert method == "auto" or dedup.method_ == method


def test_a_join_the_small_joins_method_ends_soon_is_left_to_it(monkeypatch, clock, caplog):
    """Brute force estimated at 30 ms: no other method is piloted, prepared or sampled."""
    asked = _registered_plans(
        monkeypatch, clock, {"indexed": 0.003, "plain": 0.03}, small=("plain",), n_rows=20_000
    )
    with caplog.at_level(logging.INFO, logger="sklearn_ed.join"):
        similarity_join([f"w{i:05d}" for i in range(20_000)], threshold=1)
    assert "chose 'plain'" in caplog.text and "indexed untimed" in caplog.text
    assert "indexed" not in asked.built and asked["plain"] == [1, 8]


def test_a_join_the_small_joins_method_takes_long_is_compared(monkeypatch, clock, caplog):
    """Brute force estimated at 10 s: the other method is piloted, then prepared and sampled."""
    asked = _registered_plans(
        monkeypatch, clock, {"indexed": 1.0, "plain": 10.0}, small=("plain",), n_rows=20_000
    )
    with caplog.at_level(logging.INFO, logger="sklearn_ed.join"):
        similarity_join([f"w{i:05d}" for i in range(20_000)], threshold=1)
    assert "chose 'indexed'" in caplog.text
    assert asked.built["plain"] == [20_000]  # first, unpiloted
    assert asked.built["indexed"] == [64, 1_250, 20_000]  # pilots, then the plan


def _cheap_index_join(monkeypatch, clock, caplog, indexed_seconds):
    """A 20,000-row join: "indexed" (0.5 s to prepare, ``indexed_seconds`` to
    join) against brute force's 10 s; what was asked of the plans."""
    asked = _registered_plans(
        monkeypatch,
        clock,
        {"indexed": indexed_seconds, "plain": 10.0},
        preparing={"indexed": 0.5},
        small=("plain",),
        n_rows=20_000,
    )
    with caplog.at_level(logging.INFO, logger="sklearn_ed.join"):
        similarity_join([f"w{i:05d}" for i in range(20_000)], threshold=1)
    return asked


def test_a_method_its_pilots_show_slower_is_not_prepared(monkeypatch, clock, caplog):
    """Its index is cheap (0.5 s), but the join of its pilots' 1,250 rows,
    times the 16 times as many rows the whole join has, is 12.4 s where
    brute force joins in 10 s: the index is built for the pilots only (the
    partition filter on person records within similarity 0.85 of normalized
    Indel, 56 s against brute force's 2.3 s at 100,000, spent 0.6 s there)."""
    asked = _cheap_index_join(monkeypatch, clock, caplog, 200.0)
    assert "chose 'plain'" in caplog.text
    assert "indexed not prepared (its pilots: at least 12.9 s)" in caplog.text
    assert asked.built["indexed"] == [64, 1_250] and asked["indexed"] == []
    assert asked.piloted["indexed"] == [1, 128]


def test_a_method_its_pilots_bound_below_another_is_prepared(monkeypatch, clock, caplog):
    """The same, the whole join 100 s: its pilots allow about 6.7 s, under brute
    force's 10 s, so it is prepared and sampled (and loses)."""
    asked = _cheap_index_join(monkeypatch, clock, caplog, 100.0)
    assert "chose 'plain'" in caplog.text
    assert asked.built["indexed"] == [64, 1_250, 20_000] and asked["indexed"]
