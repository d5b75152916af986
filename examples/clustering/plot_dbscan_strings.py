"""
=============================================================
Clustering misspellings with DBSCAN and a neighbor graph
=============================================================

scikit-learn estimators that accept ``metric="precomputed"`` (``DBSCAN``,
``TSNE``, ``Isomap``, ``SpectralClustering``...) also accept a sparse graph of
nearest-neighbor distances, as produced by
:class:`sklearn.neighbors.KNeighborsTransformer`.
:class:`~sklearn_ed.FilterRefineTransformer` builds that graph for strings
under the exact edit distance, computing only a few hundred edit distances
per string instead of all of them. Here the strings are real misspellings of
30 English words, plus the words themselves: can DBSCAN find the 30 groups?
"""

# %%
# Data: 30 words and their misspellings
# -------------------------------------
# :func:`~sklearn_ed.datasets.load_misspellings` reads the codespell
# dictionary (misspelling -> correction). We draw 30 lower-case words that
# have at least 8 known misspellings and keep every misspelling of them.
import re
from collections import defaultdict

import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import DBSCAN
from sklearn.manifold import TSNE
from sklearn.metrics import adjusted_rand_score
from sklearn.pipeline import make_pipeline

from sklearn_ed import FilterRefineTransformer, QGramEmbedder
from sklearn_ed.datasets import load_misspellings
from sklearn_ed.distances import pairwise_distances

misspellings = load_misspellings()
groups = defaultdict(set)
for misspelling, correction in zip(misspellings.data, misspellings.target):
    if re.fullmatch(r"[a-z]+", correction):
        groups[correction].add(misspelling.lower())

rng = np.random.RandomState(0)
eligible = sorted(word for word, variants in groups.items() if len(variants) >= 8)
words = sorted(rng.choice(eligible, size=30, replace=False).tolist())

strings, labels, seen = [], [], set()
for label, word in enumerate(words):
    for string in sorted(groups[word] | {word}):
        if string not in seen:  # a string belongs to one group only
            seen.add(string)
            strings.append(string)
            labels.append(label)
labels = np.array(labels)
print(
    f"{len(strings)} strings in {len(words)} groups, e.g. "
    f"{[s for s, y in zip(strings, labels) if y == 0][:6]}"
)

# %%
# DBSCAN on the filter-and-refine graph
# -------------------------------------
# Each string gets its 30 nearest strings under edit distance (filtered by
# q-gram profiles, and refined exactly). The embedder is given: on so few
# strings ``embedder="auto"`` would compare every pair (brute force, which
# costs less here than any filter), and this example shows the filter.
# In the ``"distance"`` mode the graph also
# stores each string as its own neighbor at distance 0, as
# ``KNeighborsTransformer`` does. DBSCAN then treats strings within edit
# distance ``eps`` as neighbors; the graph must hold every pair closer than
# ``eps`` that matters, which 30 neighbors per string does here.
graph = FilterRefineTransformer(QGramEmbedder(), n_neighbors=30)
model = make_pipeline(graph, DBSCAN(metric="precomputed", eps=2.5, min_samples=2))
predicted = model.fit_predict(strings)

n_clusters = predicted.max() + 1
print(
    f"DBSCAN found {n_clusters} clusters, {np.mean(predicted == -1):.1%} noise; "
    f"adjusted Rand index {adjusted_rand_score(labels, predicted):.3f}"
)

# %%
# Against DBSCAN on the full matrix of exact distances
# ----------------------------------------------------
# With all ``n^2`` exact distances DBSCAN sees every pair. The graph above
# computed ``n_candidates_`` exact distances per string (chosen at fit by
# the recall check) instead of one per string of the data set, and gives
# nearly the same clustering.
full = pairwise_distances(strings)
exact_model = DBSCAN(metric="precomputed", eps=2.5, min_samples=2)
exact_predicted = exact_model.fit_predict(full)
print(
    f"exact DBSCAN: {exact_predicted.max() + 1} clusters, adjusted Rand index "
    f"{adjusted_rand_score(labels, exact_predicted):.3f}"
)
print(
    f"agreement with the graph version (n_candidates_={model[0].n_candidates_} of "
    f"{len(strings)}): {adjusted_rand_score(exact_predicted, predicted):.3f}"
)

# %%
# A t-SNE map from the same graph
# -------------------------------
# ``TSNE(metric="precomputed")`` accepts the same sparse graph; it needs about
# ``3 * perplexity + 1`` neighbors per string, so ``perplexity=9`` fits the 31
# entries per row (30 neighbors plus the string itself). A sparse graph
# requires ``init="random"``.
embedding = TSNE(
    metric="precomputed", init="random", perplexity=9, max_iter=500, random_state=0
).fit_transform(model[0].transform(strings))

# Thirty distinct colours (tab20 and the dark half of tab20b), and each group
# labelled with its word.
palette = np.vstack([plt.cm.tab20(np.arange(20)), plt.cm.tab20b(np.arange(0, 20, 2))])
fig, axes = plt.subplots(1, 2, figsize=(12, 6), sharex=True, sharey=True)
axes[0].scatter(*embedding.T, c=palette[labels % len(palette)], s=14)
axes[0].set_title("true groups (codespell correction)")
for label, word in enumerate(words):
    x, y = np.median(embedding[labels == label], axis=0)
    axes[0].annotate(word, (x, y), fontsize=11, ha="center")
noise = predicted == -1
axes[1].scatter(*embedding[~noise].T, c=palette[predicted[~noise] % len(palette)], s=14)
axes[1].scatter(*embedding[noise].T, c="lightgrey", s=12, label="noise")
axes[1].set_title("DBSCAN on the FilterRefineTransformer graph")
axes[1].legend(loc="lower right")
for ax in axes:
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()
