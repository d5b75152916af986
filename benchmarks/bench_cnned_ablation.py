"""CNN-ED variants (the ablations of Dai et al. 2020) on genome reads: top-10 recall and
training time.

One exact training matrix and one brute-force query matrix are shared by all
variants; each variant is ``CNNEDEmbedder(max_epochs, max_length=1120,
train_neighbors="exact", random_state=0, **variant)`` (the paper's top-k
lists) trained on the same 1,000 reads of
``load_genome_reads_benchmark(n_base, n_query, n_train=1000,
genome_length=10 * (n_base + n_query + 1000))`` (the 5k-read version of
genome-reads-50k by default). Training time excludes the exact matrix.

Run: python -m benchmarks.bench_cnned_ablation [--n-base 5000 --n-query 100
     --max-epochs 50 --variants default,channels_relu,max,layers6,layers10]
     (--epochs-override default50:50 trains the "default50" variant, the defaults,
     for 50 epochs when the others run fewer)
"""

import argparse
import os
import sys
import time

import numpy as np

from benchmarks._common import format_table, print_footer, print_header, progress

VARIANTS = {
    "default": {},
    "default50": {},
    "channels_relu": {"input_mode": "channels", "activation": "relu"},
    "channels": {"input_mode": "channels"},
    "max": {"pooling": "max"},
    "layers6": {"n_layers": 6},
    "layers10": {"n_layers": 10},
}
PERCENT = [1, 2, 5]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-base", type=int, default=5_000)
    parser.add_argument("--n-query", type=int, default=100)
    parser.add_argument("--max-epochs", type=int, default=50)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--variants", default="default,channels_relu,max,layers6,layers10")
    parser.add_argument(
        "--epochs-override", default="", help="variant:epochs,... (e.g. max:10) for slow variants"
    )
    args = parser.parse_args()
    start_time = time.perf_counter()
    from scipy.spatial.distance import cdist

    from sklearn_ed import CNNEDEmbedder
    from sklearn_ed.datasets import load_genome_reads_benchmark
    from sklearn_ed.distances import pairwise_distances, symmetric_pairwise_distances
    from sklearn_ed.metrics import recall_curve

    overrides = {
        k: int(v) for k, v in (item.split(":") for item in args.epochs_override.split(",") if item)
    }
    genome_length = 10 * (args.n_base + args.n_query + 1000)
    names = args.variants.split(",")
    print_header(
        "CNN-ED variants on genome reads",
        notes=[
            f"load_genome_reads_benchmark(n_base={args.n_base}, n_query={args.n_query}, "
            f"n_train=1000, genome_length={genome_length}, random_state=0)",
            f"CNNEDEmbedder(max_epochs={args.max_epochs}, max_length=1120, "
            "train_neighbors='exact', random_state=0, "
            "**variant); default = d=128, 8 layers, 8 channels, avg pooling, no activation, "
            "per-character input",
            "variants: "
            + "; ".join(
                f"{n}: {VARIANTS[n] or 'defaults'}"
                + (f" ({overrides[n]} epochs)" if n in overrides else "")
                for n in names
            ),
        ],
    )
    bench = load_genome_reads_benchmark(
        n_base=args.n_base,
        n_query=args.n_query,
        n_train=1000,
        genome_length=genome_length,
        random_state=0,
    )
    train = np.array(bench.train, dtype=object)
    progress("brute force")
    exact = pairwise_distances(bench.query, bench.base, n_jobs=args.n_jobs)
    progress("training distances")
    train_distances = symmetric_pairwise_distances(train, n_jobs=args.n_jobs)
    import sklearn_ed.nn._training_distances as cnned_module

    # fits reuse the matrix computed above (timed separately)
    cnned_module.symmetric_pairwise_distances = lambda strings, **kwargs: train_distances

    n_base = len(bench.base)
    counts = [int(round(p / 100 * n_base)) for p in PERCENT]
    rows = []
    for name in names:
        epochs = overrides.get(name, args.max_epochs)
        progress(f"fit {name} ({epochs} epochs)")
        embedder = CNNEDEmbedder(
            max_epochs=epochs,
            train_neighbors="exact",
            max_length=1120,
            n_jobs=args.n_jobs,
            random_state=0,
            **VARIANTS[name],
        )
        load = os.getloadavg()[0]
        start, cpu = time.perf_counter(), time.process_time()
        embedder.fit(train)
        fit_s, cpu_s = time.perf_counter() - start, time.process_time() - cpu
        start = time.perf_counter()
        base_vectors = embedder.transform(bench.base)
        embed_s = time.perf_counter() - start
        embedded = cdist(embedder.transform(bench.query), base_vectors)
        recall = {k: recall_curve(exact, embedded, k=k, n_candidates=counts)[1] for k in (1, 10)}
        rows.append(
            [
                name,
                epochs,
                f"{fit_s:.1f}",
                f"{cpu_s:.1f}",
                f"{embedder.history_[-1]['train_loss']:.4f}" if epochs else "-",
                f"{embed_s:.2f}",
                f"{recall[1][0]:.3f}",
            ]
            + [f"{value:.3f}" for value in recall[10]]
            + [f"{load:.1f}"]
        )
        print(f"[{name}] done: top-10 {np.round(recall[10], 3)}", file=sys.stderr)
    print(f"data: {n_base} base reads, {len(bench.query)} queries, 1000 training reads")
    print()
    print(
        format_table(
            [
                "variant",
                "epochs",
                "fit wall s",
                "fit CPU s",
                "final loss",
                f"embed {n_base} s",
                "top-1 @1%",
            ]
            + [f"top-10 @{p}% (C={c})" for p, c in zip(PERCENT, counts)]
            + ["load at fit"],
            rows,
            title="Top-10 recall at C = 1/2/5 % of the base and training time",
        )
    )
    print(
        "fit wall/CPU s exclude the exact training matrix (shared, computed once); "
        "embed uses the lookup table for affine variants (default, layers*), torch otherwise."
    )
    print()
    print_footer(start_time)


if __name__ == "__main__":
    main()
