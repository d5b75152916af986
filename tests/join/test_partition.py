"""The partition filter's candidates hold every pair within the bound."""

from collections import Counter

import numpy as np
import pytest
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from sklearn_ed.join._partition import (
    SegmentIndex,
    _Hashes,
    even_segments,
    partition_candidates,
)
from sklearn_ed.join._windows import DROPPED, probe_plans, segment_shifts
from sklearn_ed.utils import tagged_hashes

# Letters drawn from a large alphabet: segments seldom match by chance, so a
# window too narrow for some shift loses its pairs instead of hiding behind
# accidental candidates.
ALPHABET = [chr(0x4E00 + i) for i in range(2000)]


def _edited(string, n_edits, where, rng):
    """``string`` with ``n_edits`` edits of mixed kinds, all at its start, its
    end, or anywhere: the shifts the window must allow are largest there."""
    letters = list(string)
    for _ in range(n_edits):
        if where == "start":
            position = 0
        elif where == "end":
            position = len(letters)
        else:
            position = int(rng.integers(len(letters) + 1))
        kind = rng.integers(3)
        if kind == 0 and position < len(letters):
            letters[position] = str(rng.choice(ALPHABET))
        elif kind == 1 and letters:
            del letters[min(position, len(letters) - 1)]
        else:
            letters.insert(position, str(rng.choice(ALPHABET)))
    return "".join(letters)


def _variants(originals, tau, rng):
    return [
        _edited(original, int(rng.integers(tau + 1)), where, rng)
        for original in originals
        for where in ("start", "end", "anywhere", "anywhere")
    ]


def _candidate_pairs(index_strings, probe_strings, bound, self_join):
    short, blocks = partition_candidates(index_strings, probe_strings, bound, self_join)
    pairs = {(int(p), int(i)) for probe, index in blocks for p, i in zip(probe, index)}
    for row in short:  # uncut indexed strings: compared to every probe
        pairs.update((p, int(row)) for p in range(len(probe_strings)))
    return pairs


@pytest.mark.parametrize("tau", [1, 2, 3, 6])
@pytest.mark.parametrize("normalized", [False, True], ids=["distance", "normalized"])
def test_every_pair_within_the_bound_is_a_candidate(tau, normalized):
    rng = np.random.default_rng(tau)
    originals = ["".join(rng.choice(ALPHABET, rng.integers(2, 40))) for _ in range(60)]
    index_strings = originals + _variants(originals, tau, rng)
    probe_strings = _variants(originals, tau, rng)

    def bound(index_lengths, probe_lengths):
        if normalized:  # at most tau edits per 20 letters of the longer string
            return (np.maximum(index_lengths, probe_lengths) * tau) // 20
        return np.full_like(index_lengths, tau)

    for self_join in (True, False):
        probes = index_strings if self_join else probe_strings
        distances = process.cdist(probes, index_strings, scorer=Levenshtein.distance)
        lengths = np.array([len(s) for s in index_strings])
        probe_lengths = np.array([len(s) for s in probes])
        limits = bound(*np.broadcast_arrays(lengths[None, :], probe_lengths[:, None]))
        probe_rows, index_rows = np.nonzero(distances <= limits)
        if self_join:
            keep = index_rows < probe_rows
            probe_rows, index_rows = probe_rows[keep], index_rows[keep]
        expected = set(zip(probe_rows.tolist(), index_rows.tolist()))
        assert len(expected) > 200
        found = _candidate_pairs(index_strings, probes, bound, self_join)
        assert expected <= found, sorted(expected - found)[:5]


def test_the_window_takes_fewer_substrings_than_the_position_aware_one():
    """Li et al.'s multi-match-aware window: for equal lengths and tau = 6, a
    string cut into 9 segments (2 dropped) looks up 39 substrings where the
    position-aware window (every segment at shifts -3 .. 3) looks up 63."""
    starts, sizes = even_segments(60, 9)
    [(_, plan)] = probe_plans(60, [(60, starts, sizes)], np.array([6]))
    assert len(plan) == 39
    first, last = plan[plan[:, 0] == 0], plan[plan[:, 0] == 8]
    assert first[:, 1].tolist() == [0] and last[:, 1].tolist() == [starts[-1]]


def _windows_one_at_a_time(probe_length, index_length, tau, starts, sizes):
    """The windows of every segment, one segment at a time from ``segment_shifts``."""
    rows = []
    for segment, (start, size) in enumerate(zip(starts, sizes)):
        positions = start + segment_shifts(
            segment, len(starts) - DROPPED, tau, probe_length - index_length
        )
        rows += [(segment, p, size) for p in positions if 0 <= p <= probe_length - size]
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def test_windows_of_all_lengths_at_once_are_those_of_each_segment():
    """``probe_plans`` (every indexed length at once, in NumPy) takes exactly the
    windows the proof of ``segment_shifts`` allows, segment by segment."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        probe_length = int(rng.integers(1, 100))
        cuts, taus = [], []
        for length in rng.choice(np.arange(1, 110), size=int(rng.integers(1, 30)), replace=False):
            tau, extra = int(rng.integers(0, 20)), int(rng.integers(0, 4))
            if length >= tau + 1 + extra + DROPPED and abs(probe_length - length) <= tau:
                cuts.append((int(length), *even_segments(int(length), tau + 1 + extra + DROPPED)))
                taus.append(tau)
        got = dict(probe_plans(probe_length, cuts, np.array(taus, dtype=np.int64))) if cuts else {}
        for (length, starts, sizes), tau in zip(cuts, taus):
            expected = _windows_one_at_a_time(probe_length, length, tau, starts, sizes)
            assert np.array_equal(got.get(length, np.empty((0, 3), np.int64)), expected)


def test_the_index_keeps_all_but_the_most_common_segments_of_each_string():
    """Each string's segments less its ``DROPPED`` most common (ties: the
    later ones), grouped by segment with the rows ascending: a plain oracle."""
    rng = np.random.default_rng(5)
    # Few letters and repeated prefixes: segments are shared, often equally.
    strings = ["".join(rng.choice(list("abc"), int(rng.integers(8, 14)))) for _ in range(300)]
    strings += [strings[i][:4] + "cab"[: i % 3 + 1] + strings[i][4:] for i in range(100)]
    counts = {length: 2 for length in range(8, 20)}
    index = SegmentIndex(strings, counts)

    segments = {}  # row -> [(length, segment number, text)]
    for row, string in enumerate(strings):
        starts, sizes = even_segments(len(string), counts[len(string)] + DROPPED)
        segments[row] = [
            (len(string), number, string[start : start + size])
            for number, (start, size) in enumerate(zip(starts, sizes))
        ]
    frequency = Counter(segment for row in segments.values() for segment in row)
    expected = {}
    for row, row_segments in segments.items():
        order = sorted(range(len(row_segments)), key=lambda j: frequency[row_segments[j]])
        for j in order[: len(order) - DROPPED]:  # sorted() is stable: later ties last
            expected.setdefault(row_segments[j], []).append(row)

    n_rows = len(strings)
    entries = index.entries
    assert np.all(np.diff(entries) > 0)  # by key, then row, each pair once
    grouped = {}
    for key, rows in expected.items():
        length, number, text = key
        hashed = _Hashes([text]).of(np.array([0]), np.array([0]), np.array([len(text)]))
        probe_key = tagged_hashes(hashed, length, number)
        low, found = index.match_ranges(probe_key)
        grouped[key] = (entries[low[0] : low[0] + found[0]] % n_rows).tolist()
    assert grouped == expected


def test_a_substring_hashes_alike_wherever_it_stands():
    """Horner's prefix hashes: equal substrings, in any string and at any
    offset, hash alike; distinct ones (here) do not."""
    strings = ["abcabc", "xxabcx", "", "abd", "\U0001f600abc"]
    hashes = _Hashes(strings)
    rows, starts = np.array([0, 0, 1, 4, 3]), np.array([0, 3, 2, 1, 0])
    hashed = hashes.of(rows, starts, np.full(5, 3))
    assert len(set(hashed[:4].tolist())) == 1 and hashed[4] != hashed[0]
    assert hashes.of(np.array([2]), np.array([0]), np.array([0]))[0] == 0
