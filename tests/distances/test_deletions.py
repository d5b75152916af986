"""The sorted hashes the deletion lookups search."""

import numpy as np
import pytest

from sklearn_ed.distances.bounds._deletions import SortedHashes


@pytest.mark.parametrize("n", [0, 1, 40, 5000])
def test_runs_are_those_of_a_binary_search(n):
    rng = np.random.default_rng(n)
    # Repeated hashes (long runs), hashes at both ends of the range, absent needles.
    ends = np.array([0, 2**64 - 1], dtype=np.uint64)
    distinct = rng.integers(0, 2**64, size=max(n // 4, 1), dtype=np.uint64)
    hashes = np.sort(np.concatenate([rng.choice(distinct, n), ends[: min(n, 2)]]))
    needles = np.concatenate([distinct, rng.integers(0, 2**64, size=50, dtype=np.uint64), ends])
    start, counts = SortedHashes(hashes).runs(needles)
    expected_start = np.searchsorted(hashes, needles, side="left")
    expected_counts = np.searchsorted(hashes, needles, side="right") - expected_start
    np.testing.assert_array_equal(counts, expected_counts)
    present = counts > 0
    np.testing.assert_array_equal(start[present], expected_start[present])
