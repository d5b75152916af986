"""CNN-ED vs CGK on genome reads: recall-item, approximation error, speedup, training time.

Scaled-down genome-reads benchmark (same generator and coverage as
genome-reads-50k): ``load_genome_reads_benchmark(n_base, n_query, n_train,
genome_length=10 * n_base)`` with 1,000 training reads. Exact query-base
distances by rapidfuzz brute force (timed); CNN-ED trained on the training
reads with the paper's top-k lists (``train_neighbors="exact"``; the exact
training matrix timed separately from the 50 epochs).

Run: python -m benchmarks.bench_cnned_genome [--n-base 5000 --n-query 100]
"""

import argparse
import time
import warnings

import numpy as np

from benchmarks._common import format_table, print_footer, print_header, progress

CANDIDATES_PERCENT = [0.1, 0.2, 0.5, 1, 2, 5, 10]


def _fit_embedders(args, train, train_distances):
    """CNN-ED untrained and trained on ``train``, reusing its exact distance matrix."""
    import sklearn_ed.nn._training_distances as cnned_module
    from sklearn_ed import CNNEDEmbedder

    cnned_module.symmetric_pairwise_distances = lambda strings, **kwargs: train_distances

    embedders = {}
    timings = {}
    for name, epochs in (("CNN-ED untrained", 0), ("CNN-ED", args.max_epochs)):
        progress(f"fit {name}")
        embedder = CNNEDEmbedder(
            max_epochs=epochs, train_neighbors="exact", n_jobs=args.n_jobs, random_state=0
        )
        start, cpu = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            embedder.fit(train)
        timings[name] = (
            time.perf_counter() - start,
            time.process_time() - cpu,
            sum(entry["dur"] for entry in embedder.history_),
        )
        embedders[name] = embedder
    return embedders, timings


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-base", type=int, default=5_000)
    parser.add_argument("--n-query", type=int, default=100)
    parser.add_argument("--n-train", type=int, default=1_000)
    parser.add_argument("--max-epochs", type=int, default=50)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    start_time = time.perf_counter()
    from scipy.spatial.distance import cdist

    from sklearn_ed import CGKEmbedder
    from sklearn_ed.datasets import load_genome_reads_benchmark
    from sklearn_ed.distances import (
        candidate_distances,
        pairwise_distances,
        symmetric_pairwise_distances,
    )
    from sklearn_ed.metrics import (
        approximation_error,
        exact_distance_speedup,
        exact_distances_needed,
        recall_curve,
    )

    genome_length = 10 * (args.n_base + args.n_query + args.n_train)
    print_header(
        "genome reads: CNN-ED vs CGK",
        notes=[
            f"load_genome_reads_benchmark(n_base={args.n_base}, n_query={args.n_query}, "
            f"n_train={args.n_train}, genome_length={genome_length}, random_state=0): "
            "the genome-reads-50k protocol scaled down at the same ~100x coverage",
            f"CNNEDEmbedder defaults (d=128, 8 layers, avg, no activation, per-character), "
            f"max_epochs={args.max_epochs}, train_neighbors='exact', random_state=0; "
            "CGKEmbedder(random_state=0), x1",
            "wall times on a shared 2-core machine; CPU s = process CPU time (less "
            "sensitive to other jobs)",
        ],
    )
    bench = load_genome_reads_benchmark(
        n_base=args.n_base,
        n_query=args.n_query,
        n_train=args.n_train,
        genome_length=genome_length,
        random_state=0,
    )
    train = np.array(bench.train, dtype=object)
    progress("brute force")
    start = time.perf_counter()
    exact = pairwise_distances(bench.query, bench.base, n_jobs=args.n_jobs)
    brute_s = time.perf_counter() - start
    progress("training distances")
    start = time.perf_counter()
    train_distances = symmetric_pairwise_distances(train, n_jobs=args.n_jobs)
    train_d_s = time.perf_counter() - start

    embedders, timings = _fit_embedders(args, train, train_distances)
    cgk = CGKEmbedder(random_state=0).fit(bench.base)

    progress("embed and evaluate")
    n_base = len(bench.base)
    counts = sorted({max(1, int(round(p / 100 * n_base))) for p in CANDIDATES_PERCENT})
    recall_rows, error_rows, speed_rows, curves = [], [], [], {}
    train_left, train_right = np.triu_indices(len(train), 1)
    for name in ("CGK", "CNN-ED untrained", "CNN-ED"):
        if name == "CGK":
            start = time.perf_counter()
            base_vectors = cgk.transform_symbols(bench.base)
            embed_s = time.perf_counter() - start
            query_vectors = cgk.transform_symbols(bench.query)
            metric, degree = "hamming", 2
            train_vectors = cgk.transform_symbols(train)
        else:
            embedder = embedders[name]
            start = time.perf_counter()
            base_vectors = embedder.transform(bench.base)
            embed_s = time.perf_counter() - start
            query_vectors = embedder.transform(bench.query)
            metric, degree = "euclidean", 1
            train_vectors = embedder.transform(train)
        scale = base_vectors.shape[1] if metric == "hamming" else 1.0
        embedded = cdist(query_vectors, base_vectors, metric) * scale
        train_embedded = (
            np.linalg.norm(
                train_vectors[train_left].astype(np.float64) - train_vectors[train_right], axis=1
            )
            if metric == "euclidean"
            else (train_vectors[train_left] != train_vectors[train_right]).sum(1)
        )
        error = approximation_error(
            exact,
            embedded,
            degree=degree,
            fit_exact=train_distances[train_left, train_right],
            fit_embedding=train_embedded,
        )
        error_rows.append([name, "quadratic" if degree == 2 else "linear", f"{error:.3f}"])
        for k in (1, 10, 50):
            _, recall = recall_curve(exact, embedded, k=k, n_candidates=counts)
            curves[(name, k)] = recall
            recall_rows.append([name, k] + [f"{value:.3f}" for value in recall])
        needed = np.sort(exact_distances_needed(exact, embedded, k=10))
        speedup = exact_distance_speedup(exact, embedded, k=10, p=0.95)
        n_p = needed[int(np.ceil(0.95 * len(needed))) - 1]
        # Measured filter + refine wall time at C = N_0.95 (queries embedded, Euclidean
        # or Hamming scan, exact distances to the C best candidates).
        start = time.perf_counter()
        if name == "CGK":
            q = cgk.transform_symbols(bench.query)
        else:
            q = embedders[name].transform(bench.query)
        scan = cdist(q, base_vectors, metric)
        candidates = np.argsort(scan, axis=1, kind="stable")[:, :n_p]
        candidate_distances(bench.query, bench.base, candidates, n_jobs=args.n_jobs)
        fr_s = time.perf_counter() - start
        speed_rows.append(
            [
                name,
                n_p,
                f"{speedup:.1f}x",
                f"{embed_s:.2f}",
                f"{fr_s:.2f}",
                f"{brute_s:.1f}",
                f"{brute_s / fr_s:.1f}x",
            ]
        )

    print(
        f"data: {n_base} base reads, {len(bench.query)} queries, {len(train)} training "
        f"reads; lengths {min(map(len, bench.base))}-{max(map(len, bench.base))}"
    )
    print(f"brute force (rapidfuzz, n_jobs={args.n_jobs}): {exact.size} pairs in {brute_s:.1f} s")
    print(
        f"exact training matrix: {len(train_left)} pairs in {train_d_s:.1f} s "
        "(computed once, cached as train_distances_)"
    )
    print()
    print(
        format_table(
            ["model", "fit wall s", "fit CPU s", "sum of epoch durations s"],
            [[name, f"{w:.1f}", f"{c:.1f}", f"{d:.1f}"] for name, (w, c, d) in timings.items()],
            title=f"CNN-ED training time ({args.max_epochs} epochs of "
            f"{len(train)} triplets, batch 64; excludes the exact matrix)",
        )
    )
    print()
    print(
        format_table(
            ["embedding", "k"] + [f"C={c} ({100 * c / n_base:g}%)" for c in counts],
            recall_rows,
            title="Recall-item: top-k recall at C candidates",
        )
    )
    print()
    print(
        format_table(
            ["embedding", "g", "approximation error"],
            error_rows,
            title="Approximation error mean |g(d_emb) - d_E| / d_E over query-base "
            "pairs, g fitted on training pairs (Dai et al. 2020, Table 2)",
        )
    )
    print()
    print(
        format_table(
            [
                "embedding",
                "N_0.95 (k=10)",
                "count speedup",
                "embed base s",
                "filter+refine s",
                "brute s",
                "wall speedup",
            ],
            speed_rows,
            title="Exact distances for 95% of queries to get all top-10, and "
            "measured filter + refine wall time at C = N_0.95",
        )
    )
    print(
        "wall speedup = brute-force time / (embed queries + vector scan + exact distances "
        "to C candidates); the base embedding (embed base s) is paid once per index."
    )
    print()
    print_footer(start_time)


if __name__ == "__main__":
    main()
