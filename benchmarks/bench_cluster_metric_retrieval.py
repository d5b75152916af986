"""Retrieval of misspelling clusters with a learned metric (Mochihashi, Kikui and Kita 2004, s5.1).

The paper's sentence-retrieval experiment, on data that ships with
``codespell``: every correction in ``codespell_lib/data/dictionary.txt``
together with its misspellings (first correction of each line) forms a
cluster, e.g. {"following", "folowing", "follwing", ...}. Only clusters with
at least 3 members are used, each capped at ``MAX_PER_CLUSTER`` members
(sampled without replacement, as the paper caps its clusters at 100).

For each of ``N_SETS`` random data sets (as in the paper's 10 sets of 200
training / 50 test clusters), ``N_TRAIN`` training clusters and ``N_TEST``
disjoint test clusters are drawn; then

- features: character n-gram tf-idf, ``TfidfVectorizer(analyzer="char_wb",
  ngram_range=(2, 3))`` fitted on the training strings;
- ``TruncatedSVD`` fitted on the training strings (several sizes);
- ``ClusterMetricLearner`` fitted on the compressed training strings with
  their clusters;
- every test string queries all other test strings (``exclude_self=True``):
  11-point average precision and R-precision (R = cluster size - 1).

Baselines: Euclid on the full tf-idf vectors (= cosine, rows are
L2-normalised), Euclid after SVD alone, and scikit-learn's
``NeighborhoodComponentsAnalysis`` after SVD. NCA costs O(n^2 d) per
iteration, so it is fitted on a subsample of ``NCA_TRAIN_CLUSTERS`` training
clusters with ``max_iter=NCA_MAX_ITER`` (stated in the output), and only at
the smaller SVD sizes. Everything runs with BLAS and OpenMP limited to one
thread, for stable timings on a shared machine. ``ClusterMetricLearner`` on
the full tf-idf vocabulary (thousands of features, a dense n_features^2
eigenproblem) is not run: the paper compresses with SVD first for the same
reason. metric-learn's RCA is left out: metric-learn 0.7.0 does not run with
scikit-learn 1.9.1.

The SVD sizes are also given as a percentage of the tf-idf vocabulary (the
paper's "compression rate").

Run: ``python -m benchmarks.bench_cluster_metric_retrieval`` (about 2
minutes on 2 cores).
"""

import time
from collections import defaultdict

import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import pairwise_distances
from sklearn.neighbors import NeighborhoodComponentsAnalysis
from threadpoolctl import threadpool_limits

from benchmarks._common import format_table, print_footer, print_header, progress
from sklearn_ed import ClusterMetricLearner
from sklearn_ed.datasets import load_misspellings
from sklearn_ed.metrics import eleven_point_average_precision, r_precision

N_SETS = 3
N_TRAIN = 1000
N_TEST = 250
MIN_PER_CLUSTER = 3
MAX_PER_CLUSTER = 30
SVD_DIMS = [25, 50, 100, 200, 400]
NCA_DIMS = [25, 50]
NCA_TRAIN_CLUSTERS = 300
NCA_MAX_ITER = 50


def misspelling_clusters():
    """Map each correction to its cluster: the correction and its misspellings."""
    data = load_misspellings()
    clusters = defaultdict(lambda: [])
    for misspelling, correction in zip(data.data, data.target):
        clusters[correction].append(misspelling)
    return {
        word: [word] + misspellings
        for word, misspellings in clusters.items()
        if len(misspellings) + 1 >= MIN_PER_CLUSTER
    }


def draw(clusters, words, rng):
    strings, labels = [], []
    for label, word in enumerate(words):
        members = clusters[word]
        if len(members) > MAX_PER_CLUSTER:
            members = list(rng.choice(members, MAX_PER_CLUSTER, replace=False))
        strings += members
        labels += [label] * len(members)
    return strings, np.array(labels)


def scores(V, labels):
    D = pairwise_distances(V)
    return (
        eleven_point_average_precision(D, labels, exclude_self=True),
        r_precision(D, labels, exclude_self=True),
    )


def run_set(clusters, seed):
    rng = np.random.RandomState(seed)
    words = rng.permutation(sorted(clusters))
    train_strings, y_train = draw(clusters, words[:N_TRAIN], rng)
    test_strings, y_test = draw(clusters, words[N_TRAIN : N_TRAIN + N_TEST], rng)
    nca_rows = y_train < NCA_TRAIN_CLUSTERS

    tfidf = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 3))
    X_train = tfidf.fit_transform(train_strings)
    X_test = tfidf.transform(test_strings)
    results = {("tf-idf", "Euclid"): (*scores(X_test, y_test), 0.0)}
    for dim in SVD_DIMS:
        svd = TruncatedSVD(n_components=dim, random_state=seed).fit(X_train)
        Z_train, Z_test = svd.transform(X_train), svd.transform(X_test)
        results[(dim, "SVD")] = (*scores(Z_test, y_test), 0.0)
        learners = [("SVD+Metric", ClusterMetricLearner(), Z_train, y_train)]
        if dim in NCA_DIMS:
            nca = NeighborhoodComponentsAnalysis(max_iter=NCA_MAX_ITER, random_state=seed)
            learners.append(("SVD+NCA", nca, Z_train[nca_rows], y_train[nca_rows]))
        for name, learner, Z, y in learners:
            start = time.perf_counter()
            learner.fit(Z, y)
            fit_s = time.perf_counter() - start
            results[(dim, name)] = (*scores(learner.transform(Z_test), y_test), fit_s)
    sizes = (len(y_train), int(nca_rows.sum()), len(y_test), X_train.shape[1])
    return results, sizes


def main():
    start = time.perf_counter()
    print_header(
        "ClusterMetricLearner: misspelling-cluster retrieval (Mochihashi et al. 2004 s5.1)",
        notes=[
            f"clusters = a codespell correction + its misspellings, >= {MIN_PER_CLUSTER} members, "
            f"at most {MAX_PER_CLUSTER} sampled per cluster",
            f"{N_SETS} random sets of {N_TRAIN} training / {N_TEST} disjoint test clusters; "
            "TfidfVectorizer(analyzer='char_wb', ngram_range=(2, 3)) and TruncatedSVD fitted on "
            "the training strings; every test string queries all other test strings",
            f"NCA = NeighborhoodComponentsAnalysis(max_iter={NCA_MAX_ITER}) fitted on the strings "
            f"of {NCA_TRAIN_CLUSTERS} of the training clusters, SVD sizes {NCA_DIMS} only",
            "BLAS and OpenMP limited to 1 thread (stable timings on the shared machine)",
        ],
    )
    clusters = misspelling_clusters()
    runs = []
    for seed in range(N_SETS):
        progress(f"set {seed}")
        with threadpool_limits(limits=1):
            runs.append(run_set(clusters, seed))
    n_train, n_nca, n_test, n_vocab = np.mean([sizes for _, sizes in runs], axis=0)
    print(
        f"{len(clusters)} clusters with >= {MIN_PER_CLUSTER} members; per set on average "
        f"{n_train:.0f} training strings ({n_nca:.0f} for NCA), {n_test:.0f} test strings, "
        f"{n_vocab:.0f} tf-idf features\n"
    )
    rows = []
    for key in runs[0][0]:
        ap, rp, fit_s = np.mean([results[key] for results, _ in runs], axis=0)
        dim, method = key
        features = dim if dim == "tf-idf" else f"SVD {dim} ({100 * dim / n_vocab:.1f}%)"
        learned = method not in ("Euclid", "SVD")
        rows.append(
            [
                features,
                method if learned else "Euclid",
                f"{ap:.3f}",
                f"{rp:.3f}",
                f"{fit_s:.3f}" if learned else "-",
            ]
        )
    print(
        format_table(
            ["features", "method", "11-pt AP", "R-prec", "fit s"],
            rows,
            title=f"Retrieval on the test clusters, mean over {N_SETS} sets",
            align="llrrr",
        )
    )
    print_footer(start)


if __name__ == "__main__":
    main()
