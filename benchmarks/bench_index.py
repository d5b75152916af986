"""The filter stage on faiss: exact scan, HNSW and inverted lists vs the 0.1.0 scan.

Two workloads (``--dataset``):

- ``words``: spell-100k (100,000 wordfreq words, 1,000 codespell
  misspellings). CGK symbol codes (``CGKEmbedder(random_state=0)``).
- ``reads``: ``--n-base`` simulated reads of length ~1,000 from the whole
  bundled genome (``make_genome_reads``), CGK codes, 1,000 reads as queries
  (``--skip-kneighbors`` leaves out the brute-force table, which takes long).

For each index: build time, time of the filter for all queries (top
``--n-candidates`` by symbol Hamming distance) and its candidate recall
against the 0.1.0 release's exact scan (its numba symbol-by-symbol Hamming
scan, kept verbatim in ``_previous_filter.py``), ties counted. Then the whole
``FilterRefineNeighbors.kneighbors`` against ``rapidfuzz.process.cdist``
brute force, both with ``--n-jobs`` workers, with top-1/top-10 recall
against the exact answers (ties counted).

Run: ``python -m benchmarks.bench_index --dataset words``
"""

import argparse
import json
import time

import numpy as np

from benchmarks._common import format_table, print_header, progress
from benchmarks._previous_filter import BruteFilter
from sklearn_ed import CGKEmbedder, FilterRefineNeighbors  # noqa: E402
from sklearn_ed.index import FlatIndex, HNSWIndex, IVFIndex  # noqa: E402


def previous_scan(query_codes, base_codes, n_candidates):
    """Candidates and symbol distances of the 0.1.0 scan."""
    candidates, distances = (
        BruteFilter("hamming").build(base_codes).query(query_codes, n_candidates)
    )
    return distances, candidates


def candidate_recall(found_distances, reference_distances):
    """Share of the scan's top-C distances matched, ties counted: position i of
    a row counts when the i-th smallest found distance is at most the scan's."""
    found = np.sort(found_distances, axis=1)
    return float(np.mean(found <= reference_distances + 1e-9))


def exact_recall(indices, exact_distances, k):
    """Share of queries' true top-k distance multiset reproduced (ties counted)."""
    kth = np.sort(exact_distances, axis=1)[:, k - 1 : k]
    got = np.take_along_axis(exact_distances, indices[:, :k], axis=1)
    return float(np.mean(got <= kth))


def load(dataset, n_base):
    if dataset == "words":
        from sklearn_ed.datasets import load_spell_benchmark

        data = load_spell_benchmark()
        return list(data.base), list(data.query)
    from sklearn_ed.datasets import make_genome_reads

    reads = make_genome_reads(n_base + 1000, genome_length=2_400_000, random_state=0)
    reads = list(reads.data)
    return reads[1000:], reads[:1000]


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=["words", "reads"], default="words")
    parser.add_argument("--n-base", type=int, default=100_000)
    parser.add_argument("--n-candidates", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument(
        "--skip-kneighbors",
        action="store_true",
        help="only the filter table (reads: brute force takes long)",
    )
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    print_header(
        f"Filter indexes on {args.dataset}",
        [f"C = {args.n_candidates}, {args.n_jobs} workers everywhere"],
    )
    base, queries = load(args.dataset, args.n_base)
    progress(f"{len(base)} base items, {len(queries)} queries")
    embedder, fit_time = timed(lambda: CGKEmbedder(random_state=0).fit(base))
    base_codes, embed_time = timed(lambda: embedder.transform_symbols(base))
    query_codes = embedder.transform_symbols(queries)
    C = args.n_candidates
    previous_scan(query_codes[:2], base_codes[:10], 2)  # compile outside the timing
    (reference, _), scan_time = timed(lambda: previous_scan(query_codes, base_codes, C))
    rows, results = (
        [],
        {"dataset": args.dataset, "n_base": len(base), "n_candidates": C, "indexes": []},
    )
    rows.append(["0.1.0 scan (numba, symbols)", "-", f"{scan_time:.2f}", "1.000", "1.00x"])
    configs = [("brute", FlatIndex, {})]
    if args.dataset == "words":
        configs += [
            (f"hnsw M={m} ef={ef}", HNSWIndex, {"M": m, "ef_factor": ef})
            for m in (16, 32)
            for ef in (1.0, 2.0, 4.0)
        ]
    else:
        configs += [(f"ivf probe={p}", IVFIndex, {"n_probe": p}) for p in (8, 16, 32, 64)]
        configs += [("hnsw M=32 ef=2", HNSWIndex, {"M": 32, "ef_factor": 2.0})]
    for name, cls, params in configs:
        index, build_time = timed(
            lambda: cls("hamming", n_symbols=embedder.n_symbols_, **params).add(base_codes)
        )
        (found, _), query_time = timed(lambda: index.search(query_codes, C))
        recall = candidate_recall(found, reference)
        rows.append(
            [
                name,
                f"{build_time:.2f}",
                f"{query_time:.2f}",
                f"{recall:.3f}",
                f"{scan_time / query_time:.2f}x",
            ]
        )
        results["indexes"].append(
            {
                "name": name,
                "build_s": build_time,
                "filter_s": query_time,
                "recall_vs_scan": recall,
                "speedup_vs_scan": scan_time / query_time,
            }
        )
        progress(f"{name}: {rows[-1]}")
    print(
        format_table(
            [
                "index",
                "build s",
                f"filter s ({len(queries)} q)",
                "recall of scan's top-C",
                "filter speed-up",
            ],
            rows,
            title=f"Filter: top-{C} candidates by CGK symbol Hamming distance "
            f"(CGK fit {fit_time:.2f} s, embedding {embed_time:.2f} s)",
        )
    )
    if not args.skip_kneighbors:
        print(end_to_end(args, base, queries, results))
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=1)


def end_to_end(args, base, queries, results):
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    progress("rapidfuzz brute force")
    exact, brute_time = timed(
        lambda: process.cdist(
            queries, base, scorer=Levenshtein.distance, workers=args.n_jobs, dtype=np.int32
        )
    )
    rows = [
        [
            "rapidfuzz.process.cdist",
            "-",
            f"{brute_time * 1e3 / len(queries):.3f}",
            "1.000",
            "1.000",
            "1.00x",
            "1.00x",
        ]
    ]
    algorithms = ["brute", "hnsw"] if args.dataset == "words" else ["brute", "auto"]
    for algorithm in algorithms:
        progress(f"FilterRefineNeighbors {algorithm}")
        search = FilterRefineNeighbors(
            CGKEmbedder(random_state=0),
            n_neighbors=10,
            n_candidates=args.n_candidates,
            filter_algorithm=algorithm,
            n_jobs=args.n_jobs,
        )
        _, fit_time = timed(lambda: search.fit(base))
        indices, query_time = timed(lambda: search.kneighbors(queries, return_distance=False))
        top1, top10 = exact_recall(indices, exact, 1), exact_recall(indices, exact, 10)
        rows.append(
            [
                f"CGK + {algorithm} ({type(search.index_).__name__})",
                f"{fit_time:.2f}",
                f"{query_time * 1e3 / len(queries):.3f}",
                f"{top1:.3f}",
                f"{top10:.3f}",
                f"{brute_time / query_time:.2f}x",
                f"{brute_time / (query_time + fit_time):.2f}x",
            ]
        )
        results.setdefault("kneighbors", []).append(
            {
                "name": algorithm,
                "fit_s": fit_time,
                "query_s": query_time,
                "top1": top1,
                "top10": top10,
                "brute_s": brute_time,
            }
        )
    return format_table(
        ["method", "fit s", "ms / query", "top-1", "top-10", "speed-up", "incl. fit"],
        rows,
        title=f"kneighbors (k=10, C={args.n_candidates}) vs brute force, {args.n_jobs} workers",
    )


if __name__ == "__main__":
    main()
