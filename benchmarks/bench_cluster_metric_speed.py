"""Fit time of ClusterMetricLearner on 10,000 x 1,000 dense data, vs NCA.

Data: 100 clusters of 100 samples in 1,000 dimensions; cluster centres are
standard normal, the within-cluster distortion (shared by all clusters) has
per-feature scales uniform in [0.1, 3] plus a rank-20 correlated part.

``ClusterMetricLearner.fit`` is one scatter-matrix product (10,000 x 1,000),
one 1,000 x 1,000 symmetric eigendecomposition and one 1,000^3 product.
Target: under 2 s on 2 cores. It is timed with the default BLAS threads and
with one thread (on a machine shared with other jobs, one thread is often
faster), ``N_REPEATS`` fits before and ``N_REPEATS`` fits after NCA, so that
both sides of a ratio see the same load; ratios use the median with the
default threads.

``NeighborhoodComponentsAnalysis`` needs O(n_samples^2 n_features) work per
L-BFGS iteration (n_samples^2 = 10^8 pairs here), so a full fit is out of
reach for a benchmark. Two measured comparisons instead:

1. NCA on the full data capped at ``max_iter=1`` (one L-BFGS iteration): a
   lower bound on NCA's full fit time;
2. NCA with its default ``max_iter=50`` and ClusterMetricLearner on the same
   random subsample of ``N_SUB`` samples.

Run: ``python -m benchmarks.bench_cluster_metric_speed`` (about 3 minutes on
2 cores).
"""

import time

import numpy as np
from sklearn.neighbors import NeighborhoodComponentsAnalysis
from threadpoolctl import threadpool_limits

from benchmarks._common import format_table, print_footer, print_header, progress
from sklearn_ed import ClusterMetricLearner

N_SAMPLES, N_FEATURES, N_CLUSTERS = 10_000, 1_000, 100
N_REPEATS = 3
N_SUB = 2_000
THREADS = {"default": None, "1": 1}


def make_data(seed=0):
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(N_CLUSTERS), N_SAMPLES // N_CLUSTERS)
    centres = rng.normal(size=(N_CLUSTERS, N_FEATURES))
    scales = rng.uniform(0.1, 3.0, size=N_FEATURES)
    mixing = rng.normal(size=(20, N_FEATURES))
    noise = rng.normal(size=(N_SAMPLES, N_FEATURES)) * scales
    noise += rng.normal(size=(N_SAMPLES, 20)) @ mixing
    return centres[y] + noise, y


def timed_fit(estimator, X, y, threads=None):
    with threadpool_limits(limits=threads):
        start = time.perf_counter()
        estimator.fit(X, y)
        return time.perf_counter() - start


def time_cml(X, y, times):
    """Append N_REPEATS fit times per thread setting to ``times``."""
    for label, threads in THREADS.items():
        times[label] += [timed_fit(ClusterMetricLearner(), X, y, threads) for _ in range(N_REPEATS)]


def compare(X, y, nca, title):
    """ClusterMetricLearner before and after one NCA fit; returns the table rows."""
    times = {label: [] for label in THREADS}
    time_cml(X, y, times)
    progress(f"{title}: NCA")
    nca_s = timed_fit(nca, X, y)
    time_cml(X, y, times)
    rows = [
        [
            f"ClusterMetricLearner, BLAS threads {label}",
            len(t),
            f"{min(t):.2f}",
            f"{np.median(t):.2f}",
            "-",
        ]
        for label, t in times.items()
    ]
    ratio = nca_s / np.median(times["default"])
    rows.append(
        [
            f"NCA max_iter={nca.max_iter} (n_iter_={nca.n_iter_})",
            1,
            f"{nca_s:.1f}",
            f"{nca_s:.1f}",
            f"{ratio:.0f}x",
        ]
    )
    return rows


def main():
    start = time.perf_counter()
    print_header(
        "ClusterMetricLearner: fit time on 10,000 x 1,000 dense data vs NCA",
        notes=[
            f"{N_CLUSTERS} clusters of {N_SAMPLES // N_CLUSTERS} samples; ClusterMetricLearner "
            f"timed {N_REPEATS} times per thread setting before and {N_REPEATS} times after NCA",
            "ratio = NCA time / median ClusterMetricLearner time with the default BLAS threads",
        ],
    )
    headers = ["fit", "runs", "min s", "median s", "NCA / CML"]
    X, y = make_data()
    rows = compare(X, y, NeighborhoodComponentsAnalysis(max_iter=1, random_state=0), "full")
    print(
        format_table(
            headers,
            rows,
            align="lrrrr",
            title=f"Full data, {N_SAMPLES} x {N_FEATURES} (NCA: one L-BFGS "
            "iteration only, a lower bound on its fit time)",
        )
    )
    sub = np.random.RandomState(1).choice(N_SAMPLES, N_SUB, replace=False)
    rows = compare(
        X[sub], y[sub], NeighborhoodComponentsAnalysis(max_iter=50, random_state=0), "subsample"
    )
    print(
        format_table(
            headers,
            rows,
            align="lrrrr",
            title=f"Random subsample of {N_SUB} x {N_FEATURES} "
            f"({len(np.unique(y[sub]))} clusters), NCA with default max_iter",
        )
    )
    print_footer(start)


if __name__ == "__main__":
    main()
