"""DBSCAN on neighbor graphs of strings: how close to DBSCAN on exact distances.

Data: the codespell misspellings of 300 English words with at least 8 of
them each (a seeded sample), plus the words: the DBSCAN gallery example with
300 groups instead of 30. DBSCAN(eps=2.5, min_samples=2, metric="precomputed") runs on
the full exact distance matrix (the reference) and on sparse graphs built by
sklearn-ed; the adjusted Rand index (ARI) of each against the reference says
how much of the exact clustering a graph keeps.

- k-nearest-neighbor graphs (``FilterRefineTransformer``, 30 neighbors):
  CGK at ``n_candidates=100`` (the example before the defaults), the
  defaults, and ``exact=True``. A kNN graph drops the pairs within ``eps``
  beyond the 30th neighbor, so dense groups can lose core points;
- the radius graph (``FilterRefineNeighbors.radius_neighbors_graph`` at
  ``radius=eps``) holds every pair within ``eps``: what DBSCAN needs.

Run: ``python -m benchmarks.bench_graph_clustering --json
benchmarks/results/graph_clustering.json`` (about a minute).
"""

import argparse
import json
import re
import time
from collections import defaultdict

import numpy as np
from sklearn.cluster import DBSCAN
from sklearn.metrics import adjusted_rand_score

from benchmarks._common import format_table, print_header, progress
from sklearn_ed import CGKEmbedder, FilterRefineNeighbors, FilterRefineTransformer  # noqa: E402
from sklearn_ed.datasets import load_misspellings  # noqa: E402
from sklearn_ed.distances import pairwise_distances  # noqa: E402

EPS, MIN_SAMPLES, N_NEIGHBORS = 2.5, 2, 30
# Strings each graph is first built on, untimed, so that times exclude numba's
# first-call compilation.
WARM_UP = 300


def misspelling_groups(n_groups=300, min_variants=8):
    misspellings = load_misspellings()
    groups = defaultdict(set)
    for misspelling, correction in zip(misspellings.data, misspellings.target):
        if re.fullmatch(r"[a-z]+", correction):
            groups[correction].add(misspelling.lower())
    eligible = sorted(word for word, variants in groups.items() if len(variants) >= min_variants)
    chosen = np.random.RandomState(0).choice(eligible, size=n_groups, replace=False)
    strings, seen = [], set()
    for word in sorted(chosen):
        for string in sorted(groups[word] | {word}):
            if string not in seen:
                seen.add(string)
                strings.append(string)
    return strings


def dbscan(graph):
    return DBSCAN(eps=EPS, min_samples=MIN_SAMPLES, metric="precomputed").fit_predict(graph)


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    print_header(
        "DBSCAN on neighbor graphs of misspellings",
        [f"DBSCAN(eps={EPS}, min_samples={MIN_SAMPLES}); {args.n_jobs} workers"],
    )
    strings = misspelling_groups()
    progress(f"{len(strings)} strings: exact distance matrix")
    full, full_time = timed(lambda: pairwise_distances(strings, n_jobs=args.n_jobs))
    reference = dbscan(full)
    graphs = [
        (
            f"kNN graph, CGKEmbedder, n_candidates=100, {N_NEIGHBORS} neighbors",
            lambda X: FilterRefineTransformer(
                CGKEmbedder(random_state=0),
                n_neighbors=N_NEIGHBORS,
                n_candidates=100,
                n_jobs=args.n_jobs,
            ).fit_transform(X),
        ),
        (
            f"kNN graph, defaults, {N_NEIGHBORS} neighbors",
            lambda X: FilterRefineTransformer(
                n_neighbors=N_NEIGHBORS, n_jobs=args.n_jobs, random_state=0
            ).fit_transform(X),
        ),
        (
            f"kNN graph, exact=True, {N_NEIGHBORS} neighbors",
            lambda X: FilterRefineTransformer(
                n_neighbors=N_NEIGHBORS, exact=True, n_jobs=args.n_jobs, random_state=0
            ).fit_transform(X),
        ),
        (
            f"radius graph, defaults, radius=eps={EPS}",
            lambda X: (
                FilterRefineNeighbors(n_jobs=args.n_jobs, random_state=0)
                .fit(X)
                .radius_neighbors_graph(X, radius=EPS, mode="distance")
            ),
        ),
    ]
    rows = [
        [
            f"full exact matrix ({len(strings)}^2 distances)",
            f"{full_time:.2f}",
            "1.000",
            f"{reference.max() + 1}",
        ]
    ]
    results = {"n_strings": len(strings), "full_s": full_time, "graphs": []}
    for name, build in graphs:
        progress(name)
        build(strings[:WARM_UP])  # untimed: loads the compiled kernels
        graph, seconds = timed(lambda: build(strings))
        labels = dbscan(graph)
        ari = adjusted_rand_score(reference, labels)
        rows.append([name, f"{seconds:.2f}", f"{ari:.3f}", f"{labels.max() + 1}"])
        results["graphs"].append(
            {"name": name, "seconds": seconds, "ari": ari, "n_clusters": int(labels.max() + 1)}
        )
    print(
        format_table(
            ["graph", "build s", "ARI vs exact DBSCAN", "clusters"],
            rows,
            title=f"{len(strings):,} misspellings and words",
        )
    )
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=1)


if __name__ == "__main__":
    main()
