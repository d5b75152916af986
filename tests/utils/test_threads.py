"""Thread helpers: a call to rapidfuzz gets its threads only where they pay."""

import numpy as np
from rapidfuzz import process

from sklearn_ed.distances import get_metric
from sklearn_ed.join._verify import verified
from sklearn_ed.utils import pair_call_workers
from sklearn_ed.utils._threads import PARALLEL_CHARACTERS, PARALLEL_PAIRS


def test_a_call_of_few_pairs_and_characters_runs_on_one_worker():
    # Words or 25-character records: threads from 20,000 pairs on, as before.
    for length in (8, 25):
        short = np.array(["x" * length] * PARALLEL_PAIRS, dtype=object)
        assert pair_call_workers(short[:-1], short[:-1], 2) == 1
        assert pair_call_workers(short, short, 2) == 2
        assert pair_call_workers(short, short, -1) == -1
    # 1 kbp reads: from 500 pairs on.
    reads = np.array(["ACGT" * 250] * 500, dtype=object)
    assert 500 * 2_000 == PARALLEL_CHARACTERS
    assert pair_call_workers(reads[:-1], reads[:-1], 2) == 1
    assert pair_call_workers(reads, reads, 2) == 2
    assert pair_call_workers(reads, reads, 1) == 1


def test_verification_asks_rapidfuzz_for_threads_only_for_large_batches(monkeypatch):
    seen = []
    cpdist = process.cpdist

    def recording(*args, workers=1, **kwargs):
        seen.append(workers)
        return cpdist(*args, workers=workers, **kwargs)

    monkeypatch.setattr(process, "cpdist", recording)
    strings = np.array(["kitten", "sitting", "mitten", "kitchen"], dtype=object)
    rows, columns = np.array([0, 0, 1]), np.array([1, 2, 3])
    left, right, distances = verified(
        get_metric("levenshtein"), strings, strings, rows, columns, 2, n_jobs=2
    )
    assert seen == [1]
    assert (left.tolist(), right.tolist(), distances.tolist()) == ([0], [2], [1])
