"""When is brute force already enough? The recipes' tasks at growing size.

For each task of the docs' recipes page, exact brute force with rapidfuzz
``process.cdist`` (2 workers, blocks of rows so memory stays bounded) and the
sklearn-ed recipe, at base sizes growing by about 3x, in one process:

1. nearest dictionary word: 1,000 codespell misspellings against the
   ``n`` most frequent English words, ``FilterRefineNeighbors(n_neighbors=1)``;
2. near-duplicate pairs of one list (the deduplicator's first step) and a
   join of two lists: generated person records (``make_person_records``),
   every pair within 2 edits, ``similarity_join(names, threshold=2)`` and
   ``similarity_join(left, right, threshold=2)`` (exact: the same pairs);
3. nearest reads: 100 simulated 1 kbp reads against ``n`` reads,
   ``FilterRefineNeighbors(n_neighbors=10)``.

Times include the fit (one batch of queries); "per query" divides the query
time alone. The crossover is the smallest size at which the recipe (fit
included) is faster than brute force.

Run: ``python -m benchmarks.bench_recipes --json benchmarks/results/recipes.json``
"""

import argparse
import json
import time

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from benchmarks._common import format_table, print_footer, print_header, progress

N_JOBS = 2
BLOCK_CELLS = 20_000_000  # cells of one cdist block: bounded memory at any size


def _blocks(n_rows, n_columns):
    rows = max(1, BLOCK_CELLS // max(n_columns, 1))
    return [slice(start, start + rows) for start in range(0, n_rows, rows)]


def brute_nearest(queries, base, k):
    """Top-k indices of each query by exact distance, in row blocks."""
    found = []
    for rows in _blocks(len(queries), len(base)):
        distances = process.cdist(
            queries[rows], base, scorer=Levenshtein.distance, workers=N_JOBS, dtype=np.int32
        )
        found.append(_smallest(distances, k))
    return np.vstack(found)


def _smallest(distances, k):
    """Indices of the k smallest of each row, nearest first (a partition, not a sort)."""
    if k == 1:
        return distances.argmin(axis=1)[:, None]
    nearest = np.argpartition(distances, k - 1, axis=1)[:, :k]
    order = np.argsort(np.take_along_axis(distances, nearest, axis=1), axis=1, kind="stable")
    return np.take_along_axis(nearest, order, axis=1)


def brute_pairs(left, right, threshold):
    """Number of pairs within ``threshold`` (each unordered pair once for a self-join)."""
    self_join = right is None
    right = left if self_join else right
    count = 0
    for rows in _blocks(len(left), len(right)):
        distances = process.cdist(
            left[rows],
            right,
            scorer=Levenshtein.distance,
            score_cutoff=threshold,
            workers=N_JOBS,
            dtype=np.int32,
        )
        within = distances <= threshold
        if self_join:
            row_ids = np.arange(rows.start, rows.start + len(distances))[:, None]
            within &= np.arange(len(right))[None, :] > row_ids
        count += int(within.sum())
    return count


def _timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def nearest_word(sizes):
    from sklearn_ed import FilterRefineNeighbors
    from sklearn_ed.datasets import load_spell_benchmark

    rows = []
    for n in sizes:
        progress(f"nearest word, {n:,} words")
        data = load_spell_benchmark(n_base=n, n_query=1_000, n_train=10)
        base, queries = np.asarray(data.base, dtype=object), np.asarray(data.query, dtype=object)
        exact, brute_s = _timed(lambda: brute_nearest(queries, base, 1))
        search, fit_s = _timed(
            lambda: FilterRefineNeighbors(n_neighbors=1, n_jobs=N_JOBS, random_state=0).fit(base)
        )
        (distances, indices), query_s = _timed(lambda: search.kneighbors(queries))
        true = Levenshtein_distances(queries, base[exact[:, 0]])
        rows.append(
            _row(
                "nearest word",
                n,
                len(queries),
                brute_s,
                fit_s,
                query_s,
                float(np.mean(distances[:, 0] == true)),
            )
        )
    return rows


def Levenshtein_distances(left, right):
    return np.array([Levenshtein.distance(a, b) for a, b in zip(left, right)])


def pairs(sizes):
    from sklearn_ed import similarity_join
    from sklearn_ed.datasets import make_person_records

    rows = []
    for n in sizes:
        progress(f"pairs within 2 edits, {n:,} records")
        # Two halves of one list: the planted duplicates straddle them, so the join finds pairs.
        records = make_person_records(2 * n).data
        names, other = records[:n], records[n:]
        expected, brute_s = _timed(lambda: brute_pairs(names, None, 2))
        (left, _, _), join_s = _timed(lambda: similarity_join(names, threshold=2, n_jobs=N_JOBS))
        rows.append(
            _row(
                "near-duplicate pairs of one list",
                n,
                n,
                brute_s,
                join_s,
                0.0,
                _share(len(left), expected),
            )
        )
        expected, brute_s = _timed(lambda: brute_pairs(names, other, 2))
        (left, _, _), join_s = _timed(
            lambda: similarity_join(names, other, threshold=2, n_jobs=N_JOBS)
        )
        rows.append(_row("join two lists", n, n, brute_s, join_s, 0.0, _share(len(left), expected)))
    return rows


def _share(found, expected):
    return found / expected if expected else float(found == 0)


def nearest_reads(sizes):
    from sklearn_ed import FilterRefineNeighbors
    from sklearn_ed.datasets import load_genome_reads_benchmark

    rows = []
    for n in sizes:
        progress(f"nearest reads, {n:,} reads")
        data = load_genome_reads_benchmark(
            n_base=n, n_query=100, n_train=10, genome_length=max(10 * n, 50_000)
        )
        base, queries = np.asarray(data.base, dtype=object), np.asarray(data.query, dtype=object)
        exact, brute_s = _timed(lambda: brute_nearest(queries, base, 10))
        search, fit_s = _timed(
            lambda: FilterRefineNeighbors(n_neighbors=10, n_jobs=N_JOBS, random_state=0).fit(base)
        )
        (distances, _), query_s = _timed(lambda: search.kneighbors(queries))
        true = np.array(
            [sorted(Levenshtein_distances([q] * 10, base[row])) for q, row in zip(queries, exact)]
        )
        recall = float(np.mean(distances <= true[:, -1:]))
        rows.append(
            _row("nearest reads (top-10)", n, len(queries), brute_s, fit_s, query_s, recall)
        )
    return rows


def _row(task, n, n_queries, brute_s, fit_s, query_s, quality):
    return {
        "task": task,
        "n": n,
        "n_queries": n_queries,
        "brute_s": brute_s,
        "fit_s": fit_s,
        "query_s": query_s,
        "quality": quality,
    }


def crossovers(rows):
    """Per task, the smallest size at which the recipe (fit included) beats brute force."""
    found = {}
    for row in rows:
        found.setdefault(row["task"], None)
        if found[row["task"]] is None and row["fit_s"] + row["query_s"] < row["brute_s"]:
            found[row["task"]] = row["n"]
    return found


def report(rows):
    table = [
        [
            row["task"],
            f"{row['n']:,}",
            f"{row['brute_s']:.2f}",
            f"{row['fit_s'] + row['query_s']:.2f}",
            f"{row['brute_s'] / (row['fit_s'] + row['query_s']):.1f}x",
            f"{row['quality']:.3f}",
        ]
        for row in rows
    ]
    print(
        format_table(
            [
                "task",
                "size",
                "brute force s",
                "sklearn-ed s (fit included)",
                "speed-up",
                "recall or share of pairs",
            ],
            table,
            title="Brute force against the recipe, 2 workers",
        )
    )
    for task, size in crossovers(rows).items():
        said = f"from {size:,}" if size else "not within the sizes measured"
        print(f"{task}: the recipe is faster (fit included) {said}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--word-sizes", default="1000,3000,10000,30000,100000,300000")
    parser.add_argument("--record-sizes", default="1000,3000,10000,30000")
    parser.add_argument("--read-sizes", default="1000,3000,10000,30000")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print_header(
        "When brute force is already enough",
        notes=[
            "brute force: rapidfuzz process.cdist, 2 workers, in blocks of rows",
            "sklearn-ed: the recipe's lines with 2 jobs; times include the fit",
            "kernels loaded by an untimed run on 2,000 words first",
        ],
    )
    sizes = {
        key: [int(v) for v in value.split(",")]
        for key, value in (
            ("words", args.word_sizes),
            ("records", args.record_sizes),
            ("reads", args.read_sizes),
        )
    }
    nearest_word([2_000])  # untimed: loads the numba kernels
    rows = nearest_word(sizes["words"]) + pairs(sizes["records"]) + nearest_reads(sizes["reads"])
    report(rows)
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"rows": rows, "crossovers": crossovers(rows)}, file, indent=1)
    print_footer(start)


if __name__ == "__main__":
    main()
