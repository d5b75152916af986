"""The defaults, as a new user meets them: genome reads and words, peers in the same run.

Every sklearn-ed estimator here is built with its defaults (``embedder="auto"``,
``n_candidates="auto"``, ``target_recall=0.95``) and ``n_jobs`` workers, the
same number rapidfuzz and mappy get. Wall times include fit; numba's kernels
are loaded (or compiled, on a cold cache) by an untimed fit on 2,000 strings
of each data set first.

Reads: genome-reads-50k (``load_genome_reads_benchmark``): 50,000 simulated
reads of ~1 kbp from the first 500 kbp of a real genome, 1,000 more as
queries.

- ``rapidfuzz.process.cdist`` over the whole base: the exact answer (truth);
- mappy (minimap2, all-vs-all preset ``ava-ont``) seeds, exact refine of
  every hit: the peer of bioinformaticians;
- ``FilterRefineNeighbors(n_neighbors=10)``: top-10 recall (ties counted),
  the fit's own estimate of it, and the recall check's share of the fit;
- ``FilterRefineClassifier()`` predicting the origin of a read (which
  50 kbp region of the genome), against exact 5-NN on the truth's distances;
- ``radius_neighbors`` at the median distances to the 1st, 5th and 10th
  neighbor: recall of the pairs within the radius.

Words: spell-100k (``load_spell_benchmark``): 100,000 wordfreq words, 1,000
codespell misspellings. Top-1 recall of ``FilterRefineNeighbors()`` and of
``FilterRefineNeighbors(n_neighbors=1)``, and radius recall at 1, 2 and 3.

Run: ``python -m benchmarks.bench_defaults --json benchmarks/results/defaults.json``
(about 25 minutes on 2 cores, 20 of them rapidfuzz's brute force on reads).
"""

import argparse
import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from benchmarks._common import format_table, print_header, progress
from sklearn_ed import FilterRefineClassifier, FilterRefineNeighbors  # noqa: E402
from sklearn_ed.datasets import load_genome_reads_benchmark, load_spell_benchmark  # noqa: E402
from sklearn_ed.distances import candidate_distances  # noqa: E402

REGION = 50_000  # bp per class of the read-origin task


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def brute_force(queries, base, n_jobs):
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    return timed(
        lambda: process.cdist(
            queries, base, scorer=Levenshtein.distance, workers=n_jobs, dtype=np.int32
        )
    )


def top_k_recall(found_distances, exact, k):
    """Share of the true top-k found, ties counted: found distances at most the k-th."""
    kth = np.partition(exact, k - 1, axis=1)[:, k - 1]
    return float(np.mean(np.minimum((found_distances <= kth[:, None]).sum(axis=1), k) / k))


def mappy_neighbors(base, queries, k, n_jobs):
    """minimap2 all-vs-all seeds, then the exact distance to every hit."""
    try:
        import mappy
    except ImportError:
        return None
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "base.fa")
        with open(path, "w") as file:
            file.writelines(f">{i}\n{read}\n" for i, read in enumerate(base))
        aligner, build = timed(lambda: mappy.Aligner(path, preset="ava-ont", n_threads=n_jobs))

    def hits(query):
        buffer = mappy.ThreadBuffer()
        return sorted({int(hit.ctg) for hit in aligner.map(query, buf=buffer)})

    def search():
        with ThreadPoolExecutor(n_jobs) as pool:
            found = list(pool.map(hits, queries))
        width = max(k, max(map(len, found)))
        candidates = np.full((len(queries), width), -1, dtype=np.int64)
        for row, items in enumerate(found):
            candidates[row, : len(items)] = items
        exact = candidate_distances(queries, base, candidates, n_jobs=n_jobs)
        return np.sort(exact, axis=1)[:, :k], np.mean(list(map(len, found)))

    (distances, mean_hits), query_time = timed(search)
    return distances, build, query_time, mean_hits


def exact_knn_predict(exact, labels, k):
    """5-NN vote on exact distances, ties broken by index (as every sklearn kNN)."""
    nearest = np.argsort(exact, axis=1, kind="stable")[:, :k]
    votes = labels[nearest]
    n_classes = labels.max() + 1
    counts = np.apply_along_axis(np.bincount, 1, votes, minlength=n_classes)
    return counts.argmax(axis=1)


def radius_recall(search, queries, exact, radius):
    (_, indices), seconds = timed(lambda: search.radius_neighbors(queries, radius=radius))
    truth = [np.flatnonzero(row <= radius) for row in exact]
    found = sum(int(np.isin(t, i).sum()) for t, i in zip(truth, indices))
    total = sum(map(len, truth))
    returned = sum(map(len, indices))
    return found / max(total, 1), total / len(queries), returned / len(queries), seconds


def warm_up(base, queries, n_jobs):
    """An untimed fit and search on a slice: numba loads (or, on a cold cache,
    compiles) its kernels here, not inside the first timed fit."""
    FilterRefineNeighbors(n_jobs=n_jobs, random_state=0).fit(base[:2_000]).kneighbors(queries[:20])


def fit_with_check_share(make, base, y=None):
    """Fit time, and the share of it the recall check took (refit without it)."""
    estimator, fit_time = timed(lambda: make().fit(base, y) if y is not None else make().fit(base))
    unchecked = make().set_params(check_recall=False, n_candidates=int(estimator.n_candidates_))
    _, unchecked_time = timed(
        lambda: unchecked.fit(base, y) if y is not None else unchecked.fit(base)
    )
    return estimator, fit_time, max(fit_time - unchecked_time, 0.0) / fit_time


def reads_section(args, results):
    data = load_genome_reads_benchmark(n_base=args.n_base, n_query=args.n_query, n_train=1)
    base, queries = list(data.base), list(data.query)
    k = 10
    warm_up(base, queries, args.n_jobs)
    progress(f"reads: rapidfuzz brute force, {len(queries)} x {len(base)}")
    exact, brute_time = brute_force(queries, base, args.n_jobs)
    rows = [
        ["rapidfuzz.process.cdist (brute force)", "-", f"{brute_time:.1f}", "1.000", "-", "1.0x"]
    ]
    record = {"n_base": len(base), "n_query": len(queries), "brute_s": brute_time, "methods": []}
    progress("reads: mappy")
    mapped = mappy_neighbors(base, queries, k, args.n_jobs)
    if mapped is None:
        print("mappy is not installed: its row is skipped (pip install mappy)\n")
    else:
        distances, build, query_time, mean_hits = mapped
        recall = top_k_recall(distances, exact, k)
        rows.append(
            [
                f"mappy ava-ont seeds + exact refine ({mean_hits:.0f} hits/query)",
                f"{build:.1f}",
                f"{build + query_time:.1f}",
                f"{recall:.3f}",
                "-",
                f"{brute_time / (build + query_time):.1f}x",
            ]
        )
        record["methods"].append(
            {"name": "mappy", "fit_s": build, "query_s": query_time, "recall": recall}
        )
    progress("reads: FilterRefineNeighbors defaults")
    search, fit_time, check_share = fit_with_check_share(
        lambda: FilterRefineNeighbors(n_neighbors=k, n_jobs=args.n_jobs), base
    )
    (distances, _), query_time = timed(lambda: search.kneighbors(queries))
    recall = top_k_recall(distances, exact, k)
    estimate = f"{search.estimated_recall_:.3f} +/- {search.estimated_recall_se_:.3f}"
    rows.append(
        [
            f"FilterRefineNeighbors(n_neighbors=10) [{type(search.embedder_).__name__}, "
            f"C={search.n_candidates_}]",
            f"{fit_time:.1f}",
            f"{fit_time + query_time:.1f}",
            f"{recall:.3f}",
            estimate,
            f"{brute_time / (fit_time + query_time):.1f}x",
        ]
    )
    record["methods"].append(
        {
            "name": "FilterRefineNeighbors(n_neighbors=10)",
            "fit_s": fit_time,
            "query_s": query_time,
            "recall": recall,
            "n_candidates": int(search.n_candidates_),
            "estimated_recall": search.estimated_recall_,
            "estimated_recall_se": search.estimated_recall_se_,
            "check_share_of_fit": check_share,
            "embedder": type(search.embedder_).__name__,
        }
    )
    print(
        format_table(
            [
                "method",
                "fit s",
                "fit + 1,000 queries s",
                "top-10 recall",
                "fit's estimate",
                "speed-up incl. fit",
            ],
            rows,
            title=f"genome reads: {len(base):,} reads, {len(queries):,} queries, "
            f"{args.n_jobs} workers",
        )
    )
    print(f"the recall check took {check_share:.0%} of FilterRefineNeighbors.fit\n")

    progress("reads: radius search")
    sorted_exact = np.sort(exact, axis=1)
    radius_rows = []
    record["radius"] = []
    for rank in (1, 5, 10):
        radius = float(np.median(sorted_exact[:, rank - 1]))
        recall, true_per_query, returned, seconds = radius_recall(search, queries, exact, radius)
        radius_rows.append(
            [
                f"{radius:g} (median d to neighbor {rank})",
                f"{recall:.3f}",
                f"{true_per_query:.1f}",
                f"{seconds * 1e3 / len(queries):.1f}",
            ]
        )
        record["radius"].append({"radius": radius, "recall": recall, "seconds": seconds})
    print(
        format_table(
            ["radius", "recall", "true neighbors / query", "ms / query"],
            radius_rows,
            title="genome reads: radius_neighbors with the defaults",
        )
    )

    progress("reads: FilterRefineClassifier defaults")
    labels = np.asarray(data.base_start) // REGION
    truth_labels = np.asarray(data.query_start) // REGION
    clf, clf_fit, _ = fit_with_check_share(
        lambda: FilterRefineClassifier(n_jobs=args.n_jobs), base, labels
    )
    predicted, clf_query = timed(lambda: clf.predict(queries))
    exact_predicted = exact_knn_predict(exact, labels, clf.n_neighbors)
    accuracy, exact_accuracy = (
        float(np.mean(predicted == truth_labels)),
        float(np.mean(exact_predicted == truth_labels)),
    )
    print(
        format_table(
            ["classifier (read origin, 50 kbp regions)", "accuracy", "fit + predict s"],
            [
                [
                    "exact 5-NN (on the brute-force distances)",
                    f"{exact_accuracy:.3f}",
                    f"{brute_time:.1f}",
                ],
                [
                    f"FilterRefineClassifier() [C={clf.n_candidates_}]",
                    f"{accuracy:.3f}",
                    f"{clf_fit + clf_query:.1f}",
                ],
            ],
            title="genome reads: classification with the defaults",
        )
    )
    record["classifier"] = {
        "accuracy": accuracy,
        "exact_accuracy": exact_accuracy,
        "seconds": clf_fit + clf_query,
    }
    results["reads"] = record


def words_section(args, results):
    data = load_spell_benchmark()
    base, queries = list(data.base), list(data.query)
    warm_up(base, queries, args.n_jobs)
    progress("words: brute force")
    exact, brute_time = brute_force(queries, base, args.n_jobs)
    rows = [
        [
            "rapidfuzz.process.cdist (brute force)",
            "-",
            f"{brute_time:.2f}",
            "1.000",
            "1.000",
            "-",
            "1.0x",
        ]
    ]
    record = {"brute_s": brute_time, "methods": []}
    for name, make in [
        (
            "FilterRefineNeighbors() [n_neighbors=5]",
            lambda: FilterRefineNeighbors(n_jobs=args.n_jobs),
        ),
        (
            "FilterRefineNeighbors(n_neighbors=1)",
            lambda: FilterRefineNeighbors(n_neighbors=1, n_jobs=args.n_jobs),
        ),
    ]:
        progress(f"words: {name}")
        search, fit_time, check_share = fit_with_check_share(make, base)
        (distances, _), query_time = timed(lambda: search.kneighbors(queries))
        k = search.n_neighbors
        recall, recall_k = (
            top_k_recall(distances[:, :1], exact, 1),
            top_k_recall(distances, exact, k),
        )
        rows.append(
            [
                f"{name} [C={search.n_candidates_}]",
                f"{fit_time:.2f}",
                f"{fit_time + query_time:.2f}",
                f"{recall:.3f}",
                f"{recall_k:.3f}",
                f"{search.estimated_recall_:.3f} +/- {search.estimated_recall_se_:.3f}",
                f"{brute_time / (fit_time + query_time):.1f}x",
            ]
        )
        record["methods"].append(
            {
                "name": name,
                "fit_s": fit_time,
                "query_s": query_time,
                "top1_recall": recall,
                "k": k,
                "recall": recall_k,
                "n_candidates": int(search.n_candidates_),
                "estimated_recall": search.estimated_recall_,
                "estimated_recall_se": search.estimated_recall_se_,
                "check_share_of_fit": check_share,
            }
        )
    print(
        format_table(
            [
                "method",
                "fit s",
                "fit + 1,000 queries s",
                "top-1 recall",
                "top-k recall (k = n_neighbors)",
                "fit's estimate (top-k)",
                "speed-up incl. fit",
            ],
            rows,
            title=f"words: {len(base):,} words, {len(queries):,} misspellings, "
            f"{args.n_jobs} workers",
        )
    )
    print(
        "the fit's estimate is of top-n_neighbors recall, on words of the base as "
        "queries; the recall check took "
        + ", ".join(f"{m['check_share_of_fit']:.0%}" for m in record["methods"])
        + " of the fits\n"
    )
    radius_rows = []
    record["radius"] = []
    for radius in (1, 2, 3):
        recall, true_per_query, returned, seconds = radius_recall(search, queries, exact, radius)
        radius_rows.append(
            [
                radius,
                f"{recall:.3f}",
                f"{true_per_query:.1f}",
                f"{seconds * 1e3 / len(queries):.2f}",
            ]
        )
        record["radius"].append({"radius": radius, "recall": recall, "seconds": seconds})
    print(
        format_table(
            ["radius", "recall", "true neighbors / query", "ms / query"],
            radius_rows,
            title="words: radius_neighbors with the defaults",
        )
    )
    results["words"] = record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--n-base", type=int, default=50_000)
    parser.add_argument("--n-query", type=int, default=1_000)
    parser.add_argument("--skip-reads", action="store_true")
    parser.add_argument("--skip-words", action="store_true")
    parser.add_argument(
        "--json", default=None, help="result file; a skipped section keeps its entry from this file"
    )
    args = parser.parse_args()
    print_header(
        "The defaults on genome reads and words",
        [
            f"{args.n_jobs} workers for every method; wall times include fit",
            "kernels loaded by an untimed fit on 2,000 strings of each data set",
        ],
    )
    results = {}
    if args.json and os.path.exists(args.json):
        with open(args.json) as file:
            results = json.load(file)
    if not args.skip_words:
        words_section(args, results)
    if not args.skip_reads:
        reads_section(args, results)
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=1)


if __name__ == "__main__":
    main()
