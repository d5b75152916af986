"""One million simulated 1 kbp reads: fit, memory and query time of the filter index.

Data: ``--n-base`` reads (default 1,000,000) plus 1,000 query reads simulated
by ``make_genome_reads`` from the whole bundled genome (2.4 Mbp, so about
400x coverage), lengths 900-1,100, error rates 1-8 %, seed 0.

Rows:

- the 0.1.0 filter (numba symbol scan over uint8 CGK codes, kept verbatim in
  ``_previous_filter.py``): top-``C`` candidates of the 1,000 queries;
- ``FilterRefineNeighbors(CGKEmbedder(random_state=0), filter_algorithm="auto")``
  (faiss binary flat scan on one-hot packed codes);
- ``FilterRefineNeighbors(CNNEDEmbedder(random_state=0), filter_algorithm="auto")``
  (faiss HNSW on 128-d float vectors), unless ``--skip-cnned``.

For each: fit time, peak memory of the fit above the loaded strings (kernel
VmHWM), filter time for 1,000 queries and the share of the 0.1.0 scan's
top-C distances it matches (ties counted), and ``kneighbors`` top-10 recall
against exact answers (rapidfuzz brute force) on the first ``--n-exact``
queries.

Run: ``python -m benchmarks.bench_index_reads``
"""

import argparse
import json
import time

import numpy as np

from benchmarks._common import PeakRSS, format_table, print_header, progress
from benchmarks._previous_filter import BruteFilter
from sklearn_ed import CGKEmbedder, CNNEDEmbedder, FilterRefineNeighbors  # noqa: E402
from sklearn_ed.datasets import make_genome_reads  # noqa: E402


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def exact_top_k(queries, base, k, n_jobs):
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    distances = process.cdist(
        queries, base, scorer=Levenshtein.distance, workers=n_jobs, dtype=np.int32
    )
    return np.sort(distances, axis=1)[:, :k]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-base", type=int, default=1_000_000)
    parser.add_argument("--n-candidates", type=int, default=100)
    parser.add_argument("--n-exact", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--skip-cnned", action="store_true")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    print_header(
        f"Filter index on {args.n_base:,} simulated reads",
        [f"C = {args.n_candidates}, {args.n_jobs} workers, exact top-10 on {args.n_exact} queries"],
    )
    reads = make_genome_reads(args.n_base + 1000, genome_length=2_400_000, random_state=0)
    reads = list(reads.data)
    queries, base = reads[:1000], reads[1000:]
    reads = None
    C = args.n_candidates
    results = {"n_base": args.n_base, "n_candidates": C, "rows": []}
    progress("exact answers")
    exact, exact_time = timed(lambda: exact_top_k(queries[: args.n_exact], base, 10, args.n_jobs))
    results["exact_s"] = exact_time

    progress("0.1.0 scan")
    embedder = CGKEmbedder(random_state=0).fit(base)
    with PeakRSS() as memory:
        codes, embed_time = timed(lambda: embedder.transform_symbols(base))
        scan, build_time = timed(lambda: BruteFilter("hamming").build(codes))
    query_codes = embedder.transform_symbols(queries)
    scan.query(query_codes[:2], 2)
    (_, scan_distances), scan_time = timed(lambda: scan.query(query_codes, C))
    rows = [
        [
            "0.1.0 scan (CGK symbols)",
            f"{embed_time + build_time:.1f}",
            f"{memory.extra / 1024:.2f}",
            f"{scan_time:.1f}",
            "1.000",
            "1.0x",
            "-",
        ]
    ]
    results["rows"].append(
        {
            "name": "0.1.0 scan",
            "fit_s": embed_time + build_time,
            "fit_extra_gib": memory.extra / 1024,
            "filter_s": scan_time,
        }
    )
    codes = scan = None  # free the 0.1.0 codes before the next fit
    progress(f"scan: {rows[-1]}")

    embedders = [("CGK", CGKEmbedder(random_state=0))]
    if not args.skip_cnned:
        embedders.append(("CNN-ED", CNNEDEmbedder(random_state=0)))
    for name, embedder in embedders:
        progress(f"{name} fit")
        search = FilterRefineNeighbors(
            embedder, n_neighbors=10, n_candidates=C, filter_algorithm="auto", n_jobs=args.n_jobs
        )
        with PeakRSS() as memory:
            _, fit_time = timed(lambda: search.fit(base))
        embedded = search._embed(queries)
        (found, _), filter_time = timed(lambda: search.index_.search(embedded, C))
        if name == "CGK":
            recall = f"{np.mean(np.sort(found, axis=1) <= scan_distances + 1e-9):.3f}"
        else:
            recall = "(other embedding)"
        progress(f"{name} kneighbors")
        distances, _ = search.kneighbors(queries[: args.n_exact])
        top10 = float(np.mean(distances <= exact[:, -1:]))
        index_name = type(search.index_).__name__
        rows.append(
            [
                f"{name} + auto ({index_name})",
                f"{fit_time:.1f}",
                f"{memory.extra / 1024:.2f}",
                f"{filter_time:.1f}",
                recall,
                f"{scan_time / filter_time:.1f}x",
                f"{top10:.3f}",
            ]
        )
        results["rows"].append(
            {
                "name": name,
                "index": index_name,
                "fit_s": fit_time,
                "fit_extra_gib": memory.extra / 1024,
                "filter_s": filter_time,
                "recall_vs_scan": recall,
                "top10_recall": top10,
            }
        )
        progress(f"{name}: {rows[-1]}")
        search = None  # free the index before the next fit
    print(
        format_table(
            [
                "method",
                "fit s",
                "fit peak GiB",
                "filter s (1000 q)",
                "recall of scan's top-C",
                "filter speed-up",
                "top-10 recall",
            ],
            rows,
            title=f"{args.n_base:,} reads, C = {C}, memory above the loaded "
            f"strings ({memory.method})",
        )
    )
    print(
        f"exact answers for {args.n_exact} queries (rapidfuzz.process.cdist, "
        f"{args.n_jobs} workers): {exact_time:.1f} s"
    )
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=1)


if __name__ == "__main__":
    main()
