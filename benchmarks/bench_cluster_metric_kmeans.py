"""K-means with a learned metric on UCI data (Mochihashi, Kikui and Kita 2004, s5.3, Figure 4).

For iris, wine, breast cancer and digits (``sklearn.datasets``):

1. split the samples 50/50 (stratified) into a training and a test half;
2. optionally compress the features with ``TruncatedSVD`` fitted on the
   training half (the paper's horizontal axis; "orig" = no compression);
3. learn a metric on the training half from its classes (the clusters);
4. run K-means (K = number of classes, ``n_init=100`` random starts) on the
   test half, in the Euclidean space and in each learned space;
5. score the clustering with the pairwise clustering precision of Xing et
   al. (2002): the probability that a random pair of test samples is grouped
   as in the true classes (= Rand index), and its balanced variant.

Methods: Euclid (the paper's baseline), Euclid after ``StandardScaler``
(a stronger baseline the paper does not use), ``ClusterMetricLearner``
(the paper's metric) and scikit-learn's ``NeighborhoodComponentsAnalysis``
(default ``max_iter=50``). Means over 5 random splits; fit times are means
over the splits. Everything runs single-threaded (BLAS and OpenMP limited to
one thread): on data this small threads only add synchronisation cost, which
becomes severe on a machine shared with other jobs. metric-learn's RCA is
left out: metric-learn 0.7.0 does not run with scikit-learn 1.9.1 (it calls
``check_X_y(force_all_finite=...)``).

Run: ``python -m benchmarks.bench_cluster_metric_kmeans`` (about 1-2 minutes on
2 cores).
"""

import time

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.decomposition import TruncatedSVD
from sklearn.model_selection import train_test_split
from sklearn.neighbors import NeighborhoodComponentsAnalysis
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from benchmarks._common import format_table, print_footer, print_header, progress
from sklearn_ed import ClusterMetricLearner
from sklearn_ed.metrics import pairwise_clustering_precision

N_SPLITS = 5
N_INIT = 100
DATASETS = {
    "iris": (load_iris, [2, 3]),
    "wine": (load_wine, [2, 4, 8]),
    "breast_cancer": (load_breast_cancer, [2, 5, 10]),
    "digits": (load_digits, [8, 16, 32]),
}
METHODS = ["Euclid", "Euclid+std", "Metric", "NCA"]


def _learners():
    return {
        "Euclid": None,
        "Euclid+std": StandardScaler(),
        "Metric": ClusterMetricLearner(),
        "NCA": NeighborhoodComponentsAnalysis(random_state=0),
    }


def run_dataset(X, y, dims):
    """Scores[dim][method] = list over splits of (precision, balanced, fit_s)."""
    n_classes = len(np.unique(y))
    scores = {dim: {m: [] for m in METHODS} for dim in dims + ["orig"]}
    for split in range(N_SPLITS):
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.5, stratify=y, random_state=split
        )
        for dim in dims + ["orig"]:
            if dim == "orig":
                Z_tr, Z_te = X_tr, X_te
            else:
                svd = TruncatedSVD(n_components=dim, random_state=split).fit(X_tr)
                Z_tr, Z_te = svd.transform(X_tr), svd.transform(X_te)
            for name, learner in _learners().items():
                fit_s = 0.0
                if learner is not None:
                    start = time.perf_counter()
                    learner.fit(Z_tr, y_tr)
                    fit_s = time.perf_counter() - start
                V = Z_te if learner is None else learner.transform(Z_te)
                km = KMeans(n_clusters=n_classes, n_init=N_INIT, random_state=split)
                labels = km.fit_predict(V)
                scores[dim][name].append(
                    (
                        pairwise_clustering_precision(y_te, labels),
                        pairwise_clustering_precision(y_te, labels, balanced=True),
                        fit_s,
                    )
                )
    return scores


def print_tables(name, X, y, scores):
    n_classes = len(np.unique(y))
    title = (
        f"{name}: {X.shape[0]} samples, {X.shape[1]} features, K={n_classes}; "
        f"mean over {N_SPLITS} splits"
    )
    rows = []
    for dim, by_method in scores.items():
        means = {m: np.mean(by_method[m], axis=0) for m in METHODS}
        rows.append(
            [dim]
            + [f"{means[m][0]:.3f}" for m in METHODS]
            + [f"{means[m][1]:.3f}" for m in METHODS]
            + [f"{1e3 * means[m][2]:.1f}" for m in ("Metric", "NCA")]
        )
    headers = ["dims"] + METHODS + [f"bal. {m}" for m in METHODS] + ["Metric fit ms", "NCA fit ms"]
    print(format_table(headers, rows, title=title))


def main():
    start = time.perf_counter()
    print_header(
        "ClusterMetricLearner: K-means on UCI data (Mochihashi et al. 2004 s5.3, Figure 4)",
        notes=[
            "train/test 50/50 stratified per split; TruncatedSVD (dims) and metrics fitted on "
            "train; KMeans(K = n_classes, n_init=100) on test; BLAS and OpenMP limited to 1 thread",
            "precision = pairwise clustering precision (Rand); bal. = balanced variant; "
            "Euclid+std = StandardScaler; NCA = NeighborhoodComponentsAnalysis(max_iter=50)",
        ],
    )
    summary = []
    for name, (loader, dims) in DATASETS.items():
        progress(name)
        X, y = loader(return_X_y=True)
        with threadpool_limits(limits=1):
            scores = run_dataset(X, y, dims)
        print_tables(name, X, y, scores)
        summary.append([name] + [f"{np.mean(scores['orig'][m], axis=0)[0]:.3f}" for m in METHODS])
    print(
        format_table(
            ["data"] + METHODS,
            summary,
            title="Summary: pairwise clustering precision, original dimensions",
        )
    )
    print_footer(start)


if __name__ == "__main__":
    main()
