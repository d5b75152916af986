"""The nearest word as the dictionary grows: 100,000 to 3,000,000 words, every method.

Base: the first ``n`` distinct words in Latin letters of wordfreq's "large"
lists of 13 languages (``bench_partial_fit.multilingual_words``: English
first). Queries: 1,000 codespell misspellings (``load_spell_benchmark``).
Each method runs in a process of its own (wall time, peak memory of fit and
queries), with 2 workers:

- exact brute force, ``rapidfuzz.process.cdist``, on 200 of the queries
  (its time per query is projected; it is the reference of top-1);
- sklearn-ed ``FilterRefineNeighbors(n_neighbors=1)`` with every default,
  and with ``exact=True``;
- tf-idf of character 3-grams + ``sparse_dot_topn`` top-50 + exact refine
  (the engine of string_grouper);
- symspellpy, ``max_dictionary_edit_distance=2``.

Top-1 is judged on the 200 brute-forced queries: a query counts when the
nearest distance returned equals the exact one.

Run: ``python -m benchmarks.bench_words_scale --json benchmarks/results/words_scale.json``
"""

import argparse
import json
import time

import numpy as np

from benchmarks._common import (
    PeakRSS,
    format_table,
    print_footer,
    print_header,
    progress,
    run_worker,
    worker_reply,
)
from benchmarks.bench_partial_fit import LANGUAGES

N_JOBS = 2
N_JUDGED = 200
METHODS = ("brute force", "sklearn-ed defaults", "sklearn-ed exact=True", "tf-idf", "symspellpy")


def _data(n_base):
    from benchmarks.bench_partial_fit import multilingual_words
    from sklearn_ed.datasets import load_spell_benchmark

    base = multilingual_words(n_base)
    queries = np.asarray(
        load_spell_benchmark(n_base=100_000, n_query=1_000, n_train=10).query, dtype=object
    )
    return base, queries


def _brute(base, queries):
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    nearest = np.empty(len(queries))
    for start in range(0, len(queries), 20):
        block = process.cdist(
            queries[start : start + 20],
            base,
            scorer=Levenshtein.distance,
            workers=N_JOBS,
            dtype=np.int32,
        )
        nearest[start : start + 20] = block.min(axis=1)
    return nearest


def _sklearn_ed(base, queries, exact):
    from sklearn_ed import FilterRefineNeighbors

    search = FilterRefineNeighbors(n_neighbors=1, n_jobs=N_JOBS, exact=exact, random_state=0)
    return search.fit(base), lambda: search.kneighbors(queries)[0][:, 0]


def _tfidf(base, queries):
    from benchmarks.bench_words import nearest_distances_tfidf

    return nearest_distances_tfidf(base, queries, N_JOBS)


def _symspell(base, queries):
    from benchmarks.bench_words import nearest_distances_symspell

    return nearest_distances_symspell(base, queries)


def worker(spec):
    """One method at one size, in this process: times, memory, nearest distances."""
    base, queries = _data(spec["n_base"])
    method = spec["method"]
    with PeakRSS() as memory:
        if method == "brute force":
            start = time.perf_counter()
            nearest = _brute(base, queries[:N_JUDGED])
            fit_s, query_s = 0.0, (time.perf_counter() - start) * len(queries) / N_JUDGED
        elif method.startswith("sklearn-ed"):
            _sklearn_ed(base[:2_000], queries[:10], exact=True)  # untimed: numba kernels
            start = time.perf_counter()
            search, query = _sklearn_ed(base, queries, exact=method.endswith("exact=True"))
            fit_s = time.perf_counter() - start
            start = time.perf_counter()
            nearest = query()
            query_s = time.perf_counter() - start
        else:
            nearest, fit_s, query_s = (_tfidf if method == "tf-idf" else _symspell)(base, queries)
    worker_reply(
        {
            "fit_s": fit_s,
            "query_ms": 1000 * query_s / len(queries),
            "nearest": np.asarray(nearest)[:N_JUDGED].tolist(),
            "peak_mib": memory.peak,
        }
    )


def run(sizes):
    rows = []
    for n_base in sizes:
        replies = {}
        for method in METHODS:
            progress(f"{n_base:,} words: {method}")
            replies[method] = run_worker(
                "benchmarks.bench_words_scale", {"n_base": n_base, "method": method}, N_JOBS
            )
        exact = np.asarray(replies["brute force"]["nearest"])
        brute_ms = replies["brute force"]["query_ms"]
        for method, reply in replies.items():
            rows.append(
                {
                    "n_base": n_base,
                    "method": method,
                    "fit_s": reply["fit_s"],
                    "query_ms": reply["query_ms"],
                    "speedup": brute_ms / reply["query_ms"],
                    "top1": float(np.mean(np.asarray(reply["nearest"]) == exact)),
                    "peak_gib": reply["peak_mib"] / 1024,
                }
            )
    return rows


def report(rows):
    table = [
        [
            f"{row['n_base']:,}",
            row["method"],
            f"{row['fit_s']:.1f}",
            f"{row['query_ms']:.3f}",
            f"{row['speedup']:.1f}x",
            f"{row['top1']:.3f}",
            f"{row['peak_gib']:.2f}",
        ]
        for row in rows
    ]
    print(
        format_table(
            ["base", "method", "fit s", "ms/query", "vs brute", "top-1", "peak GiB"],
            table,
            title="Nearest word of 1,000 misspellings, 2 workers, each method in its own process",
            align="llrrrrr",
        )
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,300000,1000000,3000000")
    parser.add_argument("--json", default=None)
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(json.loads(args.worker))
    start = time.perf_counter()
    print_header(
        "The nearest word as the dictionary grows",
        notes=[
            f"base: distinct words in Latin letters of wordfreq's large lists "
            f"({', '.join(LANGUAGES)}), in that order; queries: 1,000 codespell misspellings",
            f"brute force on {N_JUDGED} queries, its time per query projected; top-1 judged "
            f"on those {N_JUDGED}",
            "peak memory: the worker's resident high-water mark over data, fit and queries",
        ],
    )
    rows = run([int(size) for size in args.sizes.split(",")])
    report(rows)
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"rows": rows}, file, indent=1)
    print_footer(start)


if __name__ == "__main__":
    main()
