"""CNN-ED training time: 50 epochs on 1,000 reads of length ~1,000 (2 CPU cores).

Fits ``CNNEDEmbedder`` (defaults: d=128, 8 layers, avg pooling, no
activation, per-character input; training through ``forward_collapsed``) on
the 1,000 training reads of ``load_genome_reads_benchmark()`` (the standard
genome-reads-50k protocol, lengths 900-1100), twice on the same data:
the first fit includes the exact 1,000 x 1,000 training matrix (rapidfuzz;
``train_neighbors="exact"``, the paper's lists; ``bench_cnned_fit_time``
measures the default),
the second reuses it (cached in ``train_distances_``), so it times training
alone (50 epochs + the distance map). Load average is printed at each step.

torch trains on every usable core; on a shared machine, compare with a run
pinned to one free core (``taskset -c 0 python ...``): the header's
"usable" cores show which it was.

Run: python -m benchmarks.bench_cnned_train_time [--max-epochs 50]
"""

import argparse
import os
import time

from benchmarks._common import format_table, print_footer, print_header, progress


def load():
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-epochs", type=int, default=50)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    start_time = time.perf_counter()
    import numpy as np
    import torch

    from sklearn_ed import CNNEDEmbedder
    from sklearn_ed.datasets import load_genome_reads_benchmark

    print_header(
        "CNN-ED training time (CPU)",
        notes=[
            f"torch {torch.__version__}; CNNEDEmbedder(max_epochs={args.max_epochs}, "
            f"max_length=1120, n_jobs={args.n_jobs}, train_neighbors='exact', random_state=0), "
            "other parameters default",
            "training reads: the 1,000 train reads of load_genome_reads_benchmark(), "
            "the standard genome-reads-50k configuration",
        ],
    )
    bench = load_genome_reads_benchmark(random_state=0)
    train = np.array(bench.train, dtype=object)
    lengths = np.array([len(s) for s in train])
    embedder = CNNEDEmbedder(
        max_epochs=args.max_epochs,
        max_length=1120,
        n_jobs=args.n_jobs,
        train_neighbors="exact",
        random_state=0,
    )
    rows = []
    for label in ("first fit (exact matrix + training)", "refit (matrix cached: training only)"):
        progress(label)
        before = load()
        start, cpu = time.perf_counter(), time.process_time()
        embedder.fit(train)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        epochs = sum(entry["dur"] for entry in embedder.history_)
        rows.append(
            [
                label,
                f"{wall:.1f}",
                f"{cpu:.1f}",
                f"{epochs:.1f}",
                f"{embedder.history_[-1]['train_loss']:.4f}",
                before,
                load(),
            ]
        )
    print(
        f"{len(train)} training reads, lengths {lengths.min()}-{lengths.max()} "
        f"(mean {lengths.mean():.0f})"
    )
    print()
    print(
        format_table(
            [
                "fit",
                "wall s",
                "CPU s",
                "sum of epoch durations s",
                "final loss",
                "load before",
                "load after",
            ],
            rows,
            title=f"{args.max_epochs} epochs of 1,000 triplets, batch 64",
        )
    )
    print("CPU s is process CPU time over both cores (wall s x 2 at most).")
    print()
    print_footer(start_time)


if __name__ == "__main__":
    main()
