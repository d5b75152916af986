"""Which embedder for which strings: the measurements behind ``embedder="auto"``.

For words, proteins and genome reads, each string embedder we have is put
in ``FilterRefineNeighbors`` with a fixed candidate count C, ``n_jobs``
workers and no recall check (``check_recall=False``): fit time (training
included), query time, and top-10 recall of the answers against rapidfuzz
brute force (ties counted), at C = 50 and 200.

- words: the first 20,000 words of spell-100k, its 1,000 misspellings;
- proteins: the ``proteins`` benchmark (1,700 base, 200 query proteins);
- reads: 10,000 simulated reads of ~1 kbp from 100 kbp of a real genome
  (the coverage of genome-reads-50k), 200 more as queries.

Run: ``python -m benchmarks.bench_embedder_choice --json
benchmarks/results/embedder_choice.json`` (about 15 minutes on 2 cores).
"""

import argparse
import json
import time

import numpy as np

from benchmarks._common import format_table, print_header, progress
from sklearn_ed import CGKEmbedder, CNNEDEmbedder, FilterRefineNeighbors, QGramEmbedder  # noqa: E402
from sklearn_ed.datasets import load_protein_benchmark, load_spell_benchmark, make_genome_reads  # noqa: E402

K = 10
CANDIDATES = (50, 200)


def datasets():
    words = load_spell_benchmark()
    yield "words", list(words.base[:20_000]), list(words.query)
    proteins = load_protein_benchmark()
    yield "proteins", list(proteins.base), list(proteins.query)
    reads = make_genome_reads(10_200, genome_length=100_000, random_state=0).data
    yield "genome reads", reads[:10_000], reads[10_000:]


def embedders():
    return [
        ("QGramEmbedder()", lambda: QGramEmbedder(n_jobs=2)),
        ("CGKEmbedder()", lambda: CGKEmbedder(random_state=0)),
        ("CNNEDEmbedder()", lambda: CNNEDEmbedder(random_state=0)),
    ]


def top_k_recall(found, exact, k):
    kth = np.partition(exact, k - 1, axis=1)[:, k - 1]
    return float(np.mean(np.minimum((found <= kth[:, None]).sum(axis=1), k) / k))


def measure(make, base, queries, exact, n_jobs):
    """Fit once (the embedder), then query at each C on the same fitted index."""
    search = FilterRefineNeighbors(
        make(), n_neighbors=K, n_candidates=max(CANDIDATES), check_recall=False, n_jobs=n_jobs
    )
    start = time.perf_counter()
    search.fit(base)
    fit_time = time.perf_counter() - start
    row = {"fit_s": fit_time}
    for count in CANDIDATES:
        search.set_params(n_candidates=count)
        start = time.perf_counter()
        distances, _ = search.kneighbors(queries)
        row[f"query_s_{count}"] = time.perf_counter() - start
        row[f"recall_{count}"] = top_k_recall(distances, exact, K)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    print_header(
        "Embedder choice: words, proteins, genome reads",
        [f"{args.n_jobs} workers; k={K}; fit includes training"],
    )
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    results = []
    for data_name, base, queries in datasets():
        progress(f"{data_name}: brute force")
        start = time.perf_counter()
        exact = process.cdist(
            queries, base, scorer=Levenshtein.distance, workers=args.n_jobs, dtype=np.int32
        )
        brute_time = time.perf_counter() - start
        rows = [["rapidfuzz brute force", "-", f"{brute_time:.2f}", "1.000", "-", "-"]]
        for name, make in embedders():
            progress(f"{data_name}: {name}")
            row = measure(make, base, queries, exact, args.n_jobs)
            rows.append(
                [name, f"{row['fit_s']:.1f}"]
                + [f"{row[f'query_s_{c}']:.2f}" for c in CANDIDATES[:1]]
                + [f"{row[f'recall_{c}']:.3f}" for c in CANDIDATES]
                + [f"{row[f'query_s_{c}']:.2f}" for c in CANDIDATES[1:]]
            )
            results.append(
                {
                    "data": data_name,
                    "embedder": name,
                    "n_base": len(base),
                    "n_query": len(queries),
                    "brute_s": brute_time,
                    **row,
                }
            )
        print(
            format_table(
                [
                    "embedder",
                    "fit s",
                    f"query s (C={CANDIDATES[0]})",
                    f"recall C={CANDIDATES[0]}",
                    f"recall C={CANDIDATES[1]}",
                    f"query s (C={CANDIDATES[1]})",
                ],
                rows,
                title=f"{data_name}: {len(base):,} base, {len(queries):,} queries, top-{K}",
            )
        )
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=1)


if __name__ == "__main__":
    main()
