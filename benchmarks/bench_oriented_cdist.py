"""Queries beyond rapidfuzz's SIMD width compared as choices: what it saves
brute force.

``rapidfuzz.process.cdist`` packs queries of up to 64 characters into vector
registers and compares a longer one with each item on its own. The string
metrics' batched calls compute such rows the other way round
(``sklearn_ed/distances/metrics/_oriented_cdist.py``). For each metric,
on generated person records (the matrix's kNN base) after
``default_process`` and misspelt records of that base as queries:

- ``long``: the share of the queries longer than 64 characters;
- ``per pair, long``: nanoseconds a pair of those queries against the base,
  as rapidfuzz compares them (``as queries``) and turned (``as choices``);
- ``cdist ms/q``, ``turned ms/q``: a query of brute force's distances, the
  queries in blocks of 84 as brute force sends them to a thread, by
  ``cdist`` and by the metric's own batched call; one thread, the least of
  3 rounds, the two taking turns.

Run: ``python -m benchmarks.bench_oriented_cdist``
"""

import argparse
import time

import numpy as np

from benchmarks._common import format_table, print_footer, print_header, progress
from benchmarks._matrix_data import load_base, make_queries
from benchmarks._matrix_metrics import SCORERS, process_strings

METRICS = (
    "normalized_levenshtein",
    "levenshtein",
    "osa",
    "jaro_winkler",
    "normalized_indel",
    "lcsseq",
)
QUERY_SETS = ("edits2", "sampled")
# Brute force's rows a thread compares at once: 1,000 queries of 50,000 items
# on 2 threads (BruteSearch._chunks).
BLOCK_ROWS = 84
ROUNDS = 3


def _least_seconds(functions, rounds=ROUNDS):
    """The least time of each function over ``rounds`` rounds, taking turns."""
    times = [[] for _ in functions]
    for _ in range(rounds):
        for own, function in zip(times, functions):
            start = time.perf_counter()
            function()
            own.append(time.perf_counter() - start)
    return [min(own) for own in times]


def _in_blocks(call, queries, base):
    def run():
        for start in range(0, len(queries), BLOCK_ROWS):
            call(queries[start : start + BLOCK_ROWS], base)

    return run


def cell_row(metric_name, query_set, queries, base):
    from rapidfuzz.process import cdist

    from sklearn_ed.distances import get_metric

    scorer, unit, keywords = SCORERS[metric_name]
    dtype = np.int32 if unit == "edits" else np.float64
    metric = get_metric(metric_name)
    long_queries = [text for text in queries if len(text) > 64]

    def plain(rows, items):
        return cdist(rows, items, scorer=scorer, dtype=dtype, workers=1, **keywords)

    def turned_long(rows, items):
        return cdist(items, rows, scorer=scorer, dtype=dtype, workers=1, **keywords).T

    as_queries, as_choices = _least_seconds(
        [lambda: plain(long_queries, base), lambda: turned_long(long_queries, base)]
    )
    n_long_pairs = max(len(long_queries) * len(base), 1)
    direct, oriented = _least_seconds(
        [_in_blocks(plain, queries, base), _in_blocks(metric.pairwise, queries, base)]
    )
    return [metric_name, query_set, f"{len(long_queries) / len(queries):.3f}",
            f"{as_queries / n_long_pairs * 1e9:.0f}", f"{as_choices / n_long_pairs * 1e9:.0f}",
            f"{direct / len(queries) * 1e3:.3f}", f"{oriented / len(queries) * 1e3:.3f}",
            f"{direct / oriented:.2f}x"]  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--n-queries", type=int, default=840)
    args = parser.parse_args()
    start = time.perf_counter()
    print_header(
        "Queries beyond rapidfuzz's SIMD width compared as choices",
        notes=[
            f"{args.n:,} person records after default_process; {args.n_queries} queries "
            f"a set, in blocks of {BLOCK_ROWS}; one thread; the least of {ROUNDS} rounds"
        ],
    )
    raw = load_base("records", args.n)
    base = process_strings("default", raw)
    query_sets = {
        name: process_strings("default", make_queries("records", raw, name, args.n_queries))
        for name in QUERY_SETS
    }
    rows = []
    for metric_name in METRICS:
        for query_set, queries in query_sets.items():
            progress(f"{metric_name} {query_set}")
            rows.append(cell_row(metric_name, query_set, list(queries), list(base)))
    headers = ["metric", "queries", "long", "per pair, long: as queries ns", "as choices ns",
               "cdist ms/q", "turned ms/q", "saved"]  # fmt: skip
    print(format_table(headers, rows, title="Brute force's distances, plain and turned"))
    print()
    print_footer(start)


if __name__ == "__main__":
    main()
