"""Choosing CNN-ED's training sample on genome-reads-50k, on validation queries.

CNN-ED is fitted on the 50,000 base reads of genome-reads-50k (it draws its
``n_train=1000`` training reads from them) with each variant of
``train_sampling`` / ``neighborhood_size`` / ``n_neighbors`` / seed given by
``--variants`` (JSON objects of ``CNNEDEmbedder`` parameters, plus
``"seed"`` for ``random_state``). Recall is measured on **validation**
queries: 100 reads of the loader's *train* set (``numpy default_rng(123)``),
which are neither base reads nor the benchmark's test queries (those are
only used by ``bench_cnned_recall.py``, once, for the final numbers).

Exact validation-query x base distances: rapidfuzz brute force, cached in
``--cache`` (about 13 minutes on one core).

Run: python -m benchmarks.bench_cnned_sampling --cache /tmp/cnv \\
    --variants '{"train_sampling": "uniform"}' '{"neighborhood_size": 20}'
"""

import argparse
import json
import os
import time
import warnings

import numpy as np

from benchmarks._common import format_table, print_footer, print_header, progress

COUNTS = [50, 100, 250, 500, 1000, 2500]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--variants",
        nargs="+",
        default=['{"train_sampling": "uniform"}', '{"neighborhood_size": 20}'],
    )
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--cache", default=None)
    args = parser.parse_args()
    start_time = time.perf_counter()
    from scipy.spatial.distance import cdist

    from sklearn_ed import CNNEDEmbedder
    from sklearn_ed.datasets import load_genome_reads_benchmark
    from sklearn_ed.distances import pairwise_distances
    from sklearn_ed.metrics import recall_curve

    print_header(
        "CNN-ED training sample on genome-reads-50k (validation queries)",
        notes=[
            "load_genome_reads_benchmark(n_base=50000, n_query=100, n_train=1000, "
            "genome_length=500000, random_state=0); validation queries: 100 of its train reads "
            "(numpy default_rng(123)); CNN-ED fitted on the base",
            "CNNEDEmbedder(max_length=1123, n_jobs=1, random_state=seed, **variant), other "
            "parameters default (50 epochs)",
        ],
    )
    bench = load_genome_reads_benchmark(
        n_base=50_000, n_query=100, n_train=1000, genome_length=500_000, random_state=0
    )
    base = np.array(bench.base, dtype=object)
    keep = np.sort(np.random.default_rng(123).choice(len(bench.train), 100, replace=False))
    query = np.array(bench.train, dtype=object)[keep]
    path = os.path.join(args.cache, "exact_val.npy") if args.cache else None
    if path and os.path.exists(path):
        exact = np.load(path).astype(np.float64)
    else:
        progress("brute force (validation queries)")
        exact = pairwise_distances(query, base, n_jobs=args.n_jobs)
        if path:
            os.makedirs(args.cache, exist_ok=True)
            np.save(path, exact.astype(np.int32))
    rows = []
    for spec in args.variants:
        params = json.loads(spec)
        seed = params.pop("seed", 0)
        progress(f"fit {spec}")
        start = time.perf_counter()
        embedder = CNNEDEmbedder(max_length=1123, n_jobs=args.n_jobs, random_state=seed, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            embedder.fit(base)
            embedded = cdist(embedder.transform(query), embedder.transform(base))
        fit_s = time.perf_counter() - start
        distances = embedder.train_distances_.astype(np.float64)
        np.fill_diagonal(distances, np.inf)
        near = np.sort(distances, axis=1)[:, :10].mean()
        for k in (1, 10, 50):
            recall = recall_curve(exact, embedded, k=k, n_candidates=COUNTS)[1]
            rows.append(
                [spec + (f" seed {seed}" if seed else ""), f"{fit_s:.0f}", f"{near:.0f}", k]
                + [f"{value:.3f}" for value in recall]
            )
    print(
        f"mean distance of a validation query to its 10 nearest base reads: "
        f"{np.sort(exact, axis=1)[:, :10].mean():.0f}"
    )
    print()
    print(
        format_table(
            ["variant", "fit s", "mean d to 10 nearest training reads", "k"]
            + [f"C={c} ({100 * c / len(base):g}%)" for c in COUNTS],
            rows,
            title="Top-k recall at C candidates, validation queries",
        )
    )
    print_footer(start_time)


if __name__ == "__main__":
    main()
