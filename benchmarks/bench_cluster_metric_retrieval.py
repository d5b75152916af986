"""Retrieval of misspelling clusters with a learned metric (seed papers 002/003, s5.1).

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
the smaller SVD sizes. ``ClusterMetricLearner`` on the full tf-idf vocabulary
(thousands of features, a dense n_features^2 eigenproblem) is not run: the
paper compresses with SVD first for the same reason. metric-learn's RCA is
left out: metric-learn 0.7.0 does not run with scikit-learn >= 1.8.

Run: ``python benchmarks/bench_cluster_metric_retrieval.py`` (about 2
minutes on 2 cores).
"""

import time
from collections import defaultdict

import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import pairwise_distances
from sklearn.neighbors import NeighborhoodComponentsAnalysis

from sklearn_ed._cluster_metric import ClusterMetricLearner
from sklearn_ed.datasets import load_misspellings
from sklearn_ed.metrics import eleven_point_average_precision, r_precision

N_SETS = 3
N_TRAIN = 1000
N_TEST = 250
MIN_PER_CLUSTER = 3
MAX_PER_CLUSTER = 30
SVD_DIMS = [25, 50, 100, 200]
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
    clusters = misspelling_clusters()
    print(
        f"codespell misspelling clusters with >= {MIN_PER_CLUSTER} members: "
        f"{len(clusters)} (capped at {MAX_PER_CLUSTER} members each)"
    )
    runs = [run_set(clusters, seed) for seed in range(N_SETS)]
    n_train, n_nca, n_test, n_vocab = np.mean([sizes for _, sizes in runs], axis=0)
    print(
        f"{N_SETS} random sets of {N_TRAIN} training / {N_TEST} disjoint test clusters: "
        f"on average {n_train:.0f} training strings, {n_test:.0f} test strings "
        f"(each queries the other {n_test - 1:.0f}), {n_vocab:.0f} char 2-3-gram "
        f"tf-idf features"
    )
    print(
        f"NCA: fitted on the strings of {NCA_TRAIN_CLUSTERS} of the training clusters "
        f"({n_nca:.0f} strings on average), max_iter={NCA_MAX_ITER}\n"
    )
    print(
        f"{'features':>9} | {'method':>10} | {'11-pt AP':>8} | {'R-prec':>6} | "
        f"{'fit [s]':>7}   (mean over {N_SETS} sets)"
    )
    for key in runs[0][0]:
        values = np.mean([results[key] for results, _ in runs], axis=0)
        dim, method = key
        label = dim if dim == "tf-idf" else f"SVD {dim}"
        fit = f"{values[2]:7.3f}" if method not in ("Euclid", "SVD") else f"{'-':>7}"
        shown = "Euclid" if method in ("Euclid", "SVD") else method
        print(f"{label:>9} | {shown:>10} | {values[0]:8.3f} | {values[1]:6.3f} | {fit}")
    print(f"\ntotal time {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
