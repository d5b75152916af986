"""Why CNN-ED falls short on genome-reads-50k: the training reads barely overlap.

In genome-reads-50k the 1,000 training reads cover a 500,000 bp genome about
2x, so a training read has few real (overlapping) neighbors among them and
the triplets mostly rank unrelated reads. This script evaluates, on the
genome-reads-50k base and ``--n-query`` of its queries, CNN-ED (defaults,
50 epochs) trained on:

- ``standard``: the 1,000 training reads of genome-reads-50k (~2x coverage);
- ``dense``: 1,000 reads simulated by the same generator on the first
  61,000 bp of the same genome (~16x coverage, the density of the 5k-read
  benchmark), seed 1;
- ``untrained``: the network with 0 epochs.

Run: python -m benchmarks.bench_cnned_coverage [--n-query 30]
"""

import argparse
import time

import numpy as np

from benchmarks._common import format_table, print_footer, print_header, progress


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-query", type=int, default=30)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    start_time = time.perf_counter()
    from scipy.spatial.distance import cdist

    from sklearn_ed import CNNEDEmbedder
    from sklearn_ed.datasets import load_genome_reads_benchmark, make_genome_reads
    from sklearn_ed.distances import pairwise_distances
    from sklearn_ed.metrics import recall_curve

    print_header(
        "CNN-ED on genome-reads-50k: density of the training reads",
        notes=[
            f"base: load_genome_reads_benchmark(n_query=100, random_state=0).base (50,000 reads); "
            f"queries: the first {args.n_query} of its 100 queries",
            "CNNEDEmbedder(max_length=1123, max_epochs=50, random_state=0), other parameters "
            "default; 'dense' training reads: make_genome_reads(1000, genome_length=61000, "
            "random_state=1)",
        ],
    )
    bench = load_genome_reads_benchmark(n_query=100, random_state=0)
    query = bench.query[: args.n_query]
    base = bench.base
    progress("brute force")
    start = time.perf_counter()
    exact = pairwise_distances(query, base, n_jobs=args.n_jobs)
    brute_s = time.perf_counter() - start
    trains = {
        "untrained": (bench.train, 0),
        "standard (2x coverage)": (bench.train, 50),
        "dense (16x coverage)": (
            make_genome_reads(1000, genome_length=61_000, random_state=1).data,
            50,
        ),
    }
    counts = [50, 100, 250, 500, 1000, 2500]
    rows = []
    for name, (train, epochs) in trains.items():
        progress(f"fit {name}")
        start = time.perf_counter()
        embedder = CNNEDEmbedder(
            max_length=1123, max_epochs=epochs, n_jobs=args.n_jobs, random_state=0
        ).fit(train)
        fit_s = time.perf_counter() - start
        k_dist = np.sort(embedder.train_distances_, axis=1)[:, 1:11].mean()
        embedded = cdist(embedder.transform(query), embedder.transform(base))
        for k in (1, 10, 50):
            recall = recall_curve(exact, embedded, k=k, n_candidates=counts)[1]
            rows.append(
                [name, f"{k_dist:.0f}", f"{fit_s:.0f}", k] + [f"{value:.3f}" for value in recall]
            )
    print(
        f"brute force: {exact.size} pairs in {brute_s:.0f} s; mean distance of a query to "
        f"its 10 nearest base reads: {np.sort(exact, axis=1)[:, :10].mean():.0f}"
    )
    print()
    print(
        format_table(
            [
                "training reads",
                "mean d to 10 nearest training reads",
                "fit s (incl. exact matrix)",
                "k",
            ]
            + [f"C={c} ({100 * c / len(base):g}%)" for c in counts],
            rows,
            title="Top-k recall at C candidates on genome-reads-50k",
        )
    )
    print_footer(start_time)


if __name__ == "__main__":
    main()
