r"""Choose the digits training settings of bench_triplet_retrieval.py on a validation split.

The 300 test queries of ``bench_triplet_retrieval.py`` are never used here:
200 of the 1,497 base images (seed 1; ``--val-seed``) are held out as validation queries,
the networks train on the other 1,297 (all of them, ``n_train=None``) and
are scored by the same 9 cells (exact distances needed for p = 90/95/99% of
the validation queries to get their k = 1/10/50 true neighbours among the
1,297). FastMap (d = 8, 16, 32, +2d exact distances per query) is the
reference; R and the mined strategies share each training configuration.

A configuration is ``epochs:lr:n_neighbors``; the default grid separates the
training budget (epochs), the Adagrad step (lr) and the neighbourhood size
n, from the thesis' setting ``40:0.001:10`` (seed 004, s5.3). Networks are
d = 16 MLPs (the middle of the table's dimensions), ``margin=0.1``,
``random_state=0``. Also printed: the same 9 cells for the raw pixels
(64-D Euclidean), and per model the same cells on the training objects
themselves (every 6th as a leave-one-out query: underfitting vs
overfitting).

Usage (needs the exact base matrix cached by bench_triplet_retrieval.py)::

    python benchmarks/bench_triplet_retrieval.py --dataset digits --cache /tmp/digits.npz
    python benchmarks/bench_triplet_tuning.py --cache /tmp/digits.npz
    python benchmarks/bench_triplet_tuning.py --cache /tmp/digits.npz --val-seed 2 \
        --configs 200:0.01:10,200:0.01:30 --methods R,GR,RR

Outputs: benchmarks/results/triplet_tuning_digits.txt (the default grid)
and triplet_tuning_digits_seed2.txt (a second split); their reading is in
docs/_benchmarks/triplet.rst. The chosen setting (200:0.01:30) is
``SETTINGS["digits"]`` of bench_triplet_retrieval.py.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import distances_at, format_table, print_footer, print_header  # noqa: E402

KS = (1, 10, 50)
PS = (0.90, 0.95, 0.99)
STRATEGIES = {"R": None, "GR": ("gaussian", "random"), "GG": ("gaussian", "gaussian"),
              "GC": ("gaussian", "closest"), "RR": ("random", "random"),
              "RG": ("random", "gaussian"), "RC": ("random", "closest")}


def embedded_distances(zq, zb):
    zq, zb = zq.astype(np.float64), zb.astype(np.float64)
    return np.sqrt(np.maximum((zq ** 2).sum(1)[:, None] + (zb ** 2).sum(1)[None]
                              - 2 * zq @ zb.T, 0))


def cells(exact, embedded, offset=0):
    from sklearn_ed.metrics import exact_distances_needed

    return [distances_at(exact_distances_needed(exact, embedded, k=k + offset), p) - offset
            for p in PS for k in KS]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", required=True,
                        help="the .npz written by bench_triplet_retrieval.py --dataset digits")
    parser.add_argument("--configs", default="40:0.001:10,200:0.001:10,200:0.01:10,200:0.01:30")
    parser.add_argument("--methods", default="R,GR,RR,GG")
    parser.add_argument("--dim", type=int, default=16)
    parser.add_argument("--n-val", type=int, default=200)
    parser.add_argument("--val-seed", type=int, default=1, help="seed of the validation split")
    parser.add_argument("--no-fastmap", action="store_true")
    args = parser.parse_args()

    from sklearn.datasets import load_digits

    from sklearn_ed import FastMapEmbedder, TripletMinedEmbedder
    from sklearn_ed.distances import images_to_point_sets

    start_time = time.perf_counter()
    images = load_digits().images
    rng = np.random.RandomState(0)  # the same split as bench_triplet_retrieval.py
    queries = np.sort(rng.choice(len(images), 300, replace=False))
    base = np.setdiff1d(np.arange(len(images)), queries)
    distances = np.load(args.cache)["base"]
    val_rng = np.random.RandomState(args.val_seed)
    val = np.sort(val_rng.choice(len(base), args.n_val, replace=False))
    train = np.setdiff1d(np.arange(len(base)), val)
    d_train, d_val = distances[np.ix_(train, train)], distances[np.ix_(val, train)]
    X_train, X_val = images[base[train]], images[base[val]]
    print_header("TripletMinedEmbedder settings for digits (chamfer), validation split", notes=[
        f"validation: {len(val)} of the {len(base)} base images (seed {args.val_seed}) as "
        f"queries against the other {len(train)} (the training set); the 300 test queries "
        "are not used",
        f"networks: MLP d={args.dim}, margin=0.1, Adagrad, random_state=0; configuration = "
        "epochs:lr:n_neighbors",
    ])
    headers = ["method", "config"] + [f"{round(p * 100)}% k={k}" for p in PS for k in KS]
    rows = [["pixels", "64-D Euclidean"] + cells(d_val, embedded_distances(
        X_val.reshape(len(val), -1), X_train.reshape(len(train), -1)))]
    if not args.no_fastmap:
        point_sets = images_to_point_sets(images[base])
        train_sets, val_sets = [point_sets[i] for i in train], [point_sets[i] for i in val]
        for d in (8, 16, 32):
            fm = FastMapEmbedder(metric="chamfer", n_components=d, random_state=0).fit(train_sets)
            rows.append(["FM", f"d={d}"] + [c + 2 * d for c in cells(
                d_val, embedded_distances(fm.transform(val_sets), fm.transform(train_sets)))])
        rows.append(["FM", "best d"] + [min(r[i] for r in rows[-3:]) for i in range(2, 11)])
    train_rows = []
    loo = d_train.copy()
    np.fill_diagonal(loo, -1.0)
    probe = np.arange(0, len(train), 6)
    seen_random = set()
    for config in args.configs.split(","):
        epochs, lr, n_neighbors = config.split(":")
        for method in args.methods.split(","):
            strategy = STRATEGIES[method]
            if strategy is None:
                if (epochs, lr) in seen_random:  # R ignores n_neighbors
                    continue
                seen_random.add((epochs, lr))
            params = ({"mining": "random"} if strategy is None else
                      {"positive": strategy[0], "negative": strategy[1]})
            tic = time.perf_counter()
            embedder = TripletMinedEmbedder(
                metric="chamfer", n_components=args.dim, max_epochs=int(epochs), lr=float(lr),
                n_neighbors=int(n_neighbors), n_train=None, random_state=0, **params)
            embedder.fit(X_train, train_distances=d_train)
            z_train = embedder.transform(X_train)
            rows.append([method, config] + cells(
                d_val, embedded_distances(embedder.transform(X_val), z_train)))
            on_train = embedded_distances(z_train[probe], z_train)
            on_train[np.arange(len(probe)), probe] = -1.0
            train_rows.append([method, config] + cells(loo[probe], on_train, offset=1))
            print(f"[{time.perf_counter() - start_time:6.0f} s] {method} {config}: "
                  f"{time.perf_counter() - tic:.0f} s", file=sys.stderr, flush=True)
    print(format_table(headers, [[str(c) for c in r] for r in rows], align="ll" + "r" * 9,
                       title=f"validation queries: exact distances needed (n_base = {len(train)})"))
    print()
    print(format_table(headers, [[str(c) for c in r] for r in train_rows], align="ll" + "r" * 9,
                       title="training objects as queries (leave-one-out, every 6th): "
                             "exact distances needed"))
    print_footer(start_time)


if __name__ == "__main__":
    main()
