r"""Choose the training settings of bench_triplet_retrieval.py on validation splits.

The test queries of ``bench_triplet_retrieval.py`` are never used here: a
part of its base set (``--n-val`` objects, seeds ``--val-seeds``) is held out
as validation queries, the networks train on the rest of the base (all of
it, ``n_train=None``) and are scored by the same 9 cells (exact distances
needed for p = 90/95/99% of the validation queries to get their k = 1/10/50
true neighbors). With several split seeds, each model is trained and
scored once per split and the choice pools the cells of all splits (small
data sets: a few dozen validation queries make a single split noisy).
FastMap (d = 8, 16, 32, +2d exact distances per query) is the reference; R
and the mined strategies share each training configuration.

A configuration is ``epochs:lr:n_neighbors`` with an optional ``:adaptive``
(``adaptive_margin=True``); ``lr`` may be ``default`` (the thesis' optimiser
step). Networks are ``--dim``-dimensional (the middle of the table's
dimensions by default), ``margin=0.1``, ``random_state=0``, the data set's
network. Also printed: the raw inputs as vectors (Euclidean), per model the
same cells on the training objects themselves (every 6th as a leave-one-out
query: underfitting vs overfitting), and per method the configuration with
the smallest geometric mean of its 9 cells (the choice rule).

Usage (needs the exact base matrix cached by bench_triplet_retrieval.py)::

    python -m benchmarks.bench_triplet_retrieval --dataset gunpoint --cache /tmp/gunpoint.npz
    python -m benchmarks.bench_triplet_tuning --dataset gunpoint --cache /tmp/gunpoint.npz \
        --methods R,GR,GG,GC,RR,RG,RC --configs 40:default:10,200:0.01:10:adaptive \
        --val-seeds 1,2,3 --n-jobs 2

Outputs: benchmarks/results/triplet_tuning_*.txt, with the exact commands
of each in docs/_benchmarks/triplet.rst; the chosen settings are ``TUNED``
of bench_triplet_retrieval.py.
"""

import argparse
import math
import time
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed

from benchmarks._common import distances_at, format_table, print_footer, print_header
from benchmarks.bench_triplet_retrieval import (
    STRATEGIES,
    embedded_distances,
    load,
    parse_config,
    strategy_params,
)

KS = (1, 10, 50)
PS = (0.90, 0.95, 0.99)
DEFAULT_N_VAL = {"digits": 200, "gunpoint": 30, "pig": 47, "italy": 100}


def cells(exact, embedded, offset=0):
    from sklearn_ed.metrics import exact_distances_needed

    return [
        distances_at(exact_distances_needed(exact, embedded, k=k + offset), p) - offset
        for p in PS
        for k in KS
    ]


class Split(NamedTuple):
    """One training/validation split of the base set."""

    X_train: np.ndarray
    X_val: np.ndarray
    d_train: np.ndarray  # exact distances, training x training
    d_val: np.ndarray  # exact distances, validation x training
    loo: np.ndarray  # d_train with -1 on the diagonal (a query finds itself first)
    probe: np.ndarray  # training objects scored as leave-one-out queries
    train: np.ndarray  # base indices
    val: np.ndarray


def train_and_score(method, config, split, metric, network, dim):
    """Validation and leave-one-out training cells of one model, and its fit time."""
    from sklearn_ed import TripletMinedEmbedder

    tic = time.perf_counter()
    embedder = TripletMinedEmbedder(
        metric=metric,
        network=network,
        n_components=dim,
        n_train=None,
        random_state=0,
        **parse_config(config),
        **strategy_params(method),
    )
    embedder.fit(split.X_train, train_distances=split.d_train)
    z_train = embedder.transform(split.X_train)
    seconds = time.perf_counter() - tic
    on_val = cells(split.d_val, embedded_distances(embedder.transform(split.X_val), z_train))
    on_train = embedded_distances(z_train[split.probe], z_train)
    on_train[np.arange(len(split.probe)), split.probe] = -1.0
    return on_val, cells(split.loo[split.probe], on_train, offset=1), seconds


def geometric_mean(counts):
    return math.exp(np.mean(np.log(counts)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--dataset", choices=["digits", "gunpoint", "pig", "italy"], default="digits"
    )
    parser.add_argument(
        "--cache",
        required=True,
        help="the .npz written by bench_triplet_retrieval.py for this data set",
    )
    parser.add_argument("--configs", default="40:0.001:10,200:0.001:10,200:0.01:10,200:0.01:30")
    parser.add_argument("--methods", default="R,GR,RR,GG")
    parser.add_argument("--dim", type=int, default=16)
    parser.add_argument(
        "--n-val",
        type=int,
        default=None,
        help="validation queries (default: 200 digits, 30 GunPoint, 47 PigCVP, "
        "100 ItalyPowerDemand)",
    )
    parser.add_argument(
        "--val-seeds",
        "--val-seed",
        default="1",
        help="seeds of the validation splits (comma-separated); the choice pools their cells",
    )
    parser.add_argument("--no-fastmap", action="store_true")
    parser.add_argument("--digits-input", choices=["edges", "pixels"], default="edges")
    parser.add_argument(
        "--n-jobs", type=int, default=1, help="models trained in parallel (one torch thread each)"
    )
    args = parser.parse_args()

    start_time = time.perf_counter()
    inputs, objects, metric, network, _, base = load(args.dataset, args.digits_input)
    distances = np.load(args.cache)["base"]
    n_val = args.n_val or DEFAULT_N_VAL[args.dataset]
    seeds = [int(seed) for seed in args.val_seeds.split(",")]
    print_header(
        f"TripletMinedEmbedder settings for {args.dataset} ({metric.name}), validation split",
        notes=[
            f"validation: {n_val} of the {len(base)} base objects (split seeds "
            f"{seeds}) as queries against the other {len(base) - n_val} (the "
            "training set); the test queries are not used",
            f"networks: {network} d={args.dim}, margin=0.1, the thesis' optimiser, "
            "random_state=0; configuration = epochs:lr:n_neighbors[:adaptive margin]",
        ],
    )
    splits = [split_base(distances, inputs[base], n_val, seed) for seed in seeds]
    jobs = [
        (split, method, config)
        for split in range(len(seeds))
        for method, config in model_grid(args.configs, args.methods)
    ]
    results = Parallel(n_jobs=args.n_jobs, verbose=5 if args.n_jobs > 1 else 0)(
        delayed(train_and_score)(method, config, splits[split], metric, network, args.dim)
        for split, method, config in jobs
    )
    headers = ["method", "config"] + [f"{round(p * 100)}% k={k}" for p in PS for k in KS]
    pooled = {}
    for split, seed in enumerate(seeds):
        rows = reference_rows(args, splits[split], [objects[i] for i in base], metric)
        train_rows = []
        for (in_split, method, config), (on_val, on_train, _) in zip(jobs, results):
            if in_split == split:
                rows.append([method, config] + on_val)
                train_rows.append([method, config] + on_train)
                pooled.setdefault(method, {}).setdefault(config, []).extend(on_val)
        n_train = len(splits[split].train)
        print(
            format_table(
                headers,
                rows,
                align="ll" + "r" * 9,
                title=f"split seed {seed}, validation queries: exact distances "
                f"needed (n_base = {n_train})",
            )
        )
        print()
        print(
            format_table(
                headers,
                train_rows,
                align="ll" + "r" * 9,
                title=f"split seed {seed}, training objects as queries "
                "(leave-one-out, every 6th): exact distances needed",
            )
        )
        print()
    choice = []
    for method, options in pooled.items():
        score, config = min((geometric_mean(cells_), config) for config, cells_ in options.items())
        choice.append([method, config, f"{score:.1f}"])
    print(
        format_table(
            ["method", "chosen config", "geometric mean of the validation cells"],
            choice,
            align="llr",
            title=f"choice per method (smallest geometric mean of the 9 cells of "
            f"{len(seeds)} split(s))",
        )
    )
    print(
        f"fit + embed: {sum(r[2] for r in results):.0f} s in all for {len(jobs)} models "
        f"({args.n_jobs} in parallel)"
    )
    print_footer(start_time)


def split_base(distances, base_inputs, n_val, seed):
    """The :class:`Split` of the base set drawn with ``seed``."""
    val = np.sort(np.random.RandomState(seed).choice(len(base_inputs), n_val, replace=False))
    train = np.setdiff1d(np.arange(len(base_inputs)), val)
    d_train = distances[np.ix_(train, train)]
    loo = d_train.copy()
    np.fill_diagonal(loo, -1.0)
    probe = np.arange(0, len(train), 6)
    return Split(
        base_inputs[train],
        base_inputs[val],
        d_train,
        distances[np.ix_(val, train)],
        loo,
        probe,
        train,
        val,
    )


def model_grid(configs, methods):
    """(method, config) pairs to train; R once per configuration it can tell apart."""
    grid, seen_random = [], set()
    for config in configs.split(","):
        parsed = parse_config(config)
        for method in methods.split(","):
            if STRATEGIES[method] is None:
                key = (parsed["max_epochs"], parsed["lr"], parsed["adaptive_margin"])
                if key in seen_random and not parsed["adaptive_margin"]:
                    continue  # R ignores n_neighbors (unless it scales the margin)
                seen_random.add(key)
            grid.append((method, config))
    return grid


def reference_rows(args, split, base_objects, metric):
    """The raw inputs (Euclidean) and FastMap at d = 8, 16, 32 on one split."""
    from sklearn_ed import FastMapEmbedder

    X_train, X_val, train, val = split.X_train, split.X_val, split.train, split.val
    raw_name = f"raw {args.digits_input}" if args.dataset == "digits" else "raw series"
    rows = [
        [raw_name, "Euclidean"]
        + cells(
            split.d_val,
            embedded_distances(X_val.reshape(len(val), -1), X_train.reshape(len(train), -1)),
        )
    ]
    if args.no_fastmap:
        return rows
    train_objects = [base_objects[i] for i in train]
    val_objects = [base_objects[i] for i in val]
    for d in (8, 16, 32):
        fm = FastMapEmbedder(metric=metric, n_components=d, random_state=0).fit(train_objects)
        embedded = embedded_distances(fm.transform(val_objects), fm.transform(train_objects))
        rows.append(["FM", f"d={d}"] + [c + 2 * d for c in cells(split.d_val, embedded)])
    rows.append(["FM", "best d"] + [min(r[i] for r in rows[-3:]) for i in range(2, 11)])
    return rows


if __name__ == "__main__":
    main()
