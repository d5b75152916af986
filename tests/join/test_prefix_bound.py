"""The brute-force join through the 64-character prefix bound finds every pair."""

import numpy as np
import pytest
from rapidfuzz import process
from rapidfuzz.distance import Indel, Levenshtein

import sklearn_ed.join._brute as join_module
from sklearn_ed.distances import get_metric
from sklearn_ed.join._prefix_bound import LONGEST, SIMD_WIDTH, PrefixBound

SCORERS = {
    "levenshtein": Levenshtein.distance,
    "indel": Indel.distance,
    "normalized_levenshtein": Levenshtein.normalized_distance,
    "normalized_indel": Indel.normalized_distance,
}
THRESHOLDS = {
    "levenshtein": [4, 12],
    "indel": [6, 20],
    "normalized_levenshtein": [0.1, 0.3],
    "normalized_indel": [0.15, 0.34],
}


def _edited(string, n_edits, rng, tail_only):
    """``string`` with ``n_edits`` edits, anywhere or all past the 64th
    character: there the prefix sees none of them and its bound is tightest."""
    letters = list(string)
    for _ in range(n_edits):
        low = min(SIMD_WIDTH, len(letters)) if tail_only else 0
        where = int(rng.integers(low, len(letters) + 1))
        kind = rng.integers(3)
        if kind == 0 and where < len(letters):
            letters[where] = str(rng.choice(list("xyzé")))
        elif kind == 1 and where < len(letters):
            del letters[where]
        else:
            letters.insert(where, str(rng.choice(list("xyzé"))))
    return "".join(letters)


@pytest.fixture(scope="module")
def records():
    """Families of near duplicates of 40 to 110 characters (across 64 and
    ``LONGEST``), edited anywhere or only in their tails."""
    rng = np.random.default_rng(0)
    letters = list("abcdefgh ")
    seeds = ["".join(rng.choice(letters, rng.integers(40, 110))) for _ in range(30)]
    left = [
        _edited(seed, int(rng.integers(0, 8)), rng, tail_only=bool(copy % 2))
        for seed in seeds
        for copy in range(4)
    ]
    right = [_edited(seed, int(rng.integers(0, 6)), rng, False) for seed in seeds[::2]]
    return np.array(left, dtype=object), np.array(right, dtype=object)


def _expected(left, right, metric, threshold):
    matrix = process.cdist(left, left if right is None else right, scorer=SCORERS[metric])
    rows, columns = np.nonzero(matrix <= threshold + 1e-12)
    if right is None:
        rows, columns = rows[rows < columns], columns[rows < columns]
    return sorted(zip(rows.tolist(), columns.tolist()))


def _joined(left, right, metric, threshold):
    blocks = join_module.brute_join(left, right, get_metric(metric), threshold, None)
    return sorted(pair for rows, columns, _ in blocks for pair in zip(rows, columns))


@pytest.mark.parametrize("metric", sorted(THRESHOLDS))
@pytest.mark.parametrize("self_join", [True, False], ids=["self", "two-lists"])
def test_brute_join_through_the_prefix_bound_equals_brute_force(
    records, metric, self_join, monkeypatch
):
    left, right = records
    right = None if self_join else right
    monkeypatch.setattr(join_module, "BRUTE_BLOCK_CELLS", 2_000)
    monkeypatch.setattr(join_module, "BRUTE_BLOCK_ROWS", 1)
    # The prefix bound serves where the characters shared keep too many pairs.
    monkeypatch.setattr(join_module, "BAG_MAX_PASS_RATE", -1.0)
    bounded = []
    candidates = PrefixBound.candidates

    def recorded(self, left, rows, first, last=None, n_jobs=None):
        found = candidates(self, left, rows, first, last, n_jobs)
        bounded.append((len(rows), len(found[0])))
        return found

    monkeypatch.setattr(PrefixBound, "candidates", recorded)
    for threshold in THRESHOLDS[metric]:
        bounded.clear()
        expected = _expected(left, right, metric, threshold)
        assert len(expected) >= 15
        assert _joined(left, right, metric, threshold) == expected
        # The bound ran, and at the tighter threshold ruled out most pairs.
        assert bounded
    assert sum(kept for _, kept in bounded) < 10 * len(expected)


def test_a_bound_that_prunes_little_stops_after_one_block(records, monkeypatch):
    left, _ = records
    monkeypatch.setattr(join_module, "BRUTE_BLOCK_CELLS", 2_000)
    monkeypatch.setattr(join_module, "BRUTE_BLOCK_ROWS", 1)
    calls = []
    candidates = PrefixBound.candidates
    monkeypatch.setattr(
        PrefixBound,
        "candidates",
        lambda self, *args: calls.append(args) or candidates(self, *args),
    )
    # Within 0.9 of their lengths almost every pair qualifies: one block tries the bound.
    assert _joined(left, None, "normalized_indel", 0.9) == _expected(
        left, None, "normalized_indel", 0.9
    )
    assert len(calls) == 1


def test_the_bound_is_tried_for_strings_past_the_fast_path_only(records):
    """Up to 64 characters the bound would be the distance itself, and each
    pair it kept would be computed twice (on 10,000 words within 3 edits the
    join took 0.61 s through the bound, 0.44 s without)."""
    left, _ = records
    left = np.concatenate([left, ["short", "x" * SIMD_WIDTH, "y" * (SIMD_WIDTH + 1)]])
    bound = PrefixBound(
        get_metric("levenshtein"), lambda a, b: np.full(np.shape(a), 6), left, left, None
    )
    tried = bound.rows(np.arange(len(left)))
    lengths = np.array([len(string) for string in left])
    np.testing.assert_array_equal(
        tried, np.flatnonzero((lengths > SIMD_WIDTH) & (lengths <= LONGEST))
    )
    assert len(left) - 1 in tried and len(left) - 2 not in tried


def test_the_bound_is_for_levenshtein_and_indel_only():
    from sklearn_ed.distances import get_metric

    assert PrefixBound.applies(get_metric("normalized_indel"))
    assert not PrefixBound.applies(get_metric("osa"))
    assert not PrefixBound.applies(get_metric("jaro_winkler"))


def test_a_brute_sample_compares_a_bounded_window_through_the_prefix_bound(records, monkeypatch):
    """``method="auto"`` times the path the join runs (the bound, for these
    strings of 65 to 96 characters), on at most ``BRUTE_SAMPLE_CELLS`` pairs."""
    left, _ = records
    monkeypatch.setattr(join_module, "BRUTE_SAMPLE_CELLS", 500)
    monkeypatch.setattr(join_module, "BAG_MAX_PASS_RATE", -1.0)  # the prefix bound's path
    bounded = []
    candidates = PrefixBound.candidates

    def recorded(self, left, rows, first, last=None, n_jobs=None):
        bounded.append((len(rows), last - first))
        return candidates(self, left, rows, first, last, n_jobs)

    monkeypatch.setattr(PrefixBound, "candidates", recorded)
    spec = get_metric("levenshtein")
    join = join_module.BruteJoin(left, None, spec, 6, None)
    share = join.sample(np.arange(len(left)))
    # One block (every row here) against a window of ceil(500 / 120) columns;
    # the rows over 96 characters went the plain path.
    [(rows, width)] = bounded
    assert width == 5 and 0 < rows < len(left) == 120
    assert share == len(left) * width / join.n_pairs
