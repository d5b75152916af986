"""Fit time of ClusterMetricLearner on 10,000 x 1,000 dense data, vs NCA.

Data: 100 clusters of 100 samples in 1,000 dimensions; cluster centres are
standard normal, the within-cluster distortion (shared by all clusters) has
per-feature scales uniform in [0.1, 3] plus a rank-20 correlated part.

``ClusterMetricLearner.fit`` is one scatter-matrix product (10,000 x 1,000),
one 1,000 x 1,000 symmetric eigendecomposition and one 1,000^3 product: it is
timed ``N_REPEATS`` times (min and median reported). Target: under 2 s on 2
cores.

``NeighborhoodComponentsAnalysis`` needs O(n_samples^2 n_features) work per
L-BFGS iteration (n_samples^2 = 10^8 pairs here), so a full fit is out of
reach for a benchmark. Two measured comparisons instead:

1. NCA on the full data capped at ``max_iter=1`` (one L-BFGS iteration): a
   lower bound on NCA's full fit time;
2. NCA with its default ``max_iter=50`` and ClusterMetricLearner on the same
   random subsample of ``N_SUB`` samples.

Run: ``python benchmarks/bench_cluster_metric_speed.py`` (about 1-2 minutes
on 2 cores).
"""

import time

import numpy as np
from sklearn.neighbors import NeighborhoodComponentsAnalysis
from threadpoolctl import threadpool_info

from sklearn_ed._cluster_metric import ClusterMetricLearner

N_SAMPLES, N_FEATURES, N_CLUSTERS = 10_000, 1_000, 100
N_REPEATS = 5
N_SUB = 2_000


def make_data(seed=0):
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(N_CLUSTERS), N_SAMPLES // N_CLUSTERS)
    centres = rng.normal(size=(N_CLUSTERS, N_FEATURES))
    scales = rng.uniform(0.1, 3.0, size=N_FEATURES)
    mixing = rng.normal(size=(20, N_FEATURES))
    noise = rng.normal(size=(N_SAMPLES, N_FEATURES)) * scales
    noise += rng.normal(size=(N_SAMPLES, 20)) @ mixing
    return centres[y] + noise, y


def timed_fit(estimator, X, y):
    start = time.perf_counter()
    estimator.fit(X, y)
    return time.perf_counter() - start


def main():
    X, y = make_data()
    threads = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
    print(f"data: {X.shape[0]} x {X.shape[1]} dense float64, {N_CLUSTERS} clusters; "
          f"BLAS threads: {threads}\n")

    times = [timed_fit(ClusterMetricLearner(), X, y) for _ in range(N_REPEATS)]
    cml_full = float(np.median(times))
    print(f"ClusterMetricLearner, full data, {N_REPEATS} fits: "
          f"min {min(times):.2f} s, median {cml_full:.2f} s")

    nca_one = timed_fit(NeighborhoodComponentsAnalysis(max_iter=1, random_state=0), X, y)
    print(f"NCA, full data, max_iter=1 (one L-BFGS iteration): {nca_one:.1f} s "
          f"-> ratio NCA(1 iteration) / ClusterMetricLearner = {nca_one / cml_full:.0f}x")

    sub = np.random.RandomState(1).choice(N_SAMPLES, N_SUB, replace=False)
    X_sub, y_sub = X[sub], y[sub]
    cml_sub = float(np.median([timed_fit(ClusterMetricLearner(), X_sub, y_sub)
                               for _ in range(N_REPEATS)]))
    nca = NeighborhoodComponentsAnalysis(max_iter=50, random_state=0)
    nca_sub = timed_fit(nca, X_sub, y_sub)
    print(f"\nsubsample of {N_SUB} samples x {N_FEATURES} features "
          f"({len(np.unique(y_sub))} clusters):")
    print(f"  ClusterMetricLearner (median of {N_REPEATS}): {cml_sub:.2f} s")
    print(f"  NCA, max_iter=50 (ran {nca.n_iter_} iterations): {nca_sub:.1f} s")
    print(f"  ratio NCA / ClusterMetricLearner = {nca_sub / cml_sub:.0f}x")


if __name__ == "__main__":
    main()
