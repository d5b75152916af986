"""Brute-force joins bounded by the characters shared: what the count costs,
what it keeps, and what it saves.

For each base (10,000 generated person records, person names, multilingual
words: the suite's join matrix) and each metric and threshold, on the
processed strings of the self-join:

- ``kept``: the share of the pairs whose count of shared characters allows
  the threshold (the pairs brute force then compares), over the whole join;
- ``count ns``: nanoseconds a pair of the count
  (:class:`~sklearn_ed.distances.bounds._bag_bounds.BagPairFilter`), one
  thread, 500 rows against every column;
- ``rapidfuzz ns``: nanoseconds a pair of ``rapidfuzz.process.cdist`` with
  ``score_cutoff`` on the same block, one thread;
- ``bounded s``, ``every pair s``: ``similarity_join(method="brute")`` with the count
  (``bounded``) and with every pair compared (``every pair``), two threads,
  the median of 3 calls; ``uses count``: whether brute force uses the count
  at its own rule (at most ``BAG_MAX_PASS_RATE`` of a sample's pairs kept).

Run: ``python -m benchmarks.bench_shared_characters``
"""

import argparse
import time

import numpy as np

from benchmarks._common import format_table, print_footer, print_header, progress
from benchmarks._matrix_data import load_base
from benchmarks._matrix_metrics import PROCESSORS, SCORERS, process_strings

# (base, metric, processor, thresholds)
CELLS = [
    ("records", "levenshtein", "none", (2, 6)),
    ("records", "normalized_levenshtein", "none", (0.1, 0.2)),
    ("records", "normalized_indel", "sort_tokens", (0.1, 0.15, 0.2)),
    ("records", "jaro_winkler", "none", (0.05, 0.1)),
    ("names", "levenshtein", "none", (1, 3)),
    ("names", "normalized_indel", "none", (0.15,)),
    ("words", "levenshtein", "none", (1, 2, 3)),
    ("words", "indel", "none", (2, 4)),
    ("words", "normalized_indel", "none", (0.2,)),
]
BLOCK_ROWS = 500
REPEATS = 3


def _pair_filter(strings, metric, threshold):
    """The count's filter of the self-join, as brute force builds it (any pass rate)."""
    import sklearn_ed.join._brute as brute
    from sklearn_ed.distances import get_metric

    saved, brute.BAG_MAX_PASS_RATE = brute.BAG_MAX_PASS_RATE, 1.0
    try:
        return brute.BruteJoin(strings, None, get_metric(metric), threshold, 1).bag
    finally:
        brute.BAG_MAX_PASS_RATE = saved


def _median_seconds(function, repeats=REPEATS):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _joined(strings, metric, threshold, rate, n_jobs):
    import sklearn_ed.join._brute as brute
    from sklearn_ed import similarity_join

    saved, brute.BAG_MAX_PASS_RATE = brute.BAG_MAX_PASS_RATE, rate
    try:
        return similarity_join(strings, threshold=threshold, metric=metric, method="brute",
                               n_jobs=n_jobs)  # fmt: skip
    finally:
        brute.BAG_MAX_PASS_RATE = saved


def cell_row(strings, base, metric, processor, threshold, n_jobs):
    from rapidfuzz.process import cdist

    import sklearn_ed.join._brute as brute

    n = len(strings)
    pair_filter = _pair_filter(strings, metric, threshold)
    kept = len(pair_filter.pairs(np.arange(n), 0, n, upper=True)[0]) / (n * (n - 1) / 2)
    rows = np.arange(BLOCK_ROWS)
    count_ns = _median_seconds(lambda: pair_filter.pairs(rows, 0, n)) / (BLOCK_ROWS * n) * 1e9
    scorer, _, keywords = SCORERS[metric]
    block = list(strings[:BLOCK_ROWS])
    rapidfuzz_ns = (
        _median_seconds(
            lambda: cdist(
                block, list(strings), scorer=scorer, score_cutoff=threshold, workers=1, **keywords
            )  # fmt: skip
        )
        / (BLOCK_ROWS * n)
        * 1e9
    )
    bounded = _median_seconds(lambda: _joined(strings, metric, threshold, 1.0, n_jobs))
    every = _median_seconds(lambda: _joined(strings, metric, threshold, -1.0, n_jobs))
    uses = _pair_filter(strings, metric, threshold).pass_rate() <= brute.BAG_MAX_PASS_RATE
    return [base, metric, processor, str(threshold), f"{kept:.5f}", f"{count_ns:.2f}",
            f"{rapidfuzz_ns:.1f}", f"{bounded:.3f}", f"{every:.3f}", f"{every / bounded:.2f}x",
            "yes" if uses else "no"]  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    print_header(
        "Brute-force joins bounded by the characters shared",
        notes=[
            f"self-joins of {args.n:,} strings; the count and rapidfuzz on one thread, "
            f"the joins on {args.n_jobs}"
        ],  # fmt: skip
    )
    rows, bases = [], {}
    for base, metric, processor, thresholds in CELLS:
        if base not in bases:
            bases[base] = load_base(base, args.n)
        strings = np.asarray(process_strings(processor, bases[base]), dtype=object)
        _joined(strings[:300], metric, thresholds[0], 1.0, args.n_jobs)  # compiled, untimed
        for threshold in thresholds:
            progress(f"{base} {metric} {processor} {threshold}")
            rows.append(cell_row(strings, base, metric, processor, threshold, args.n_jobs))
    headers = ["data", "metric", "proc", "threshold", "kept", "count ns", "rapidfuzz ns",
               "bounded s", "every pair s", "saved", "uses count"]  # fmt: skip
    title = "The count of shared characters, per pair and per join"
    print(format_table(headers, rows, title=title))
    print()
    print(f"processors: {PROCESSORS}")
    print_footer(start)


if __name__ == "__main__":
    main()
