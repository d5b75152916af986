"""
==================================
CNN-ED vs CGK recall curves
==================================

:class:`~sklearn_ed.CNNEDEmbedder` learns an embedding of edit distance into
Euclidean distance (Dai et al., 2020) from a small training set;
:class:`~sklearn_ed.CGKEmbedder` is data-independent. On sequencing reads
that overlap with shifts, CGK's random walks fall out of step, while the
convolutional embedding learns to be robust to shifts and indels. This
example trains CNN-ED on 150 reads and compares the recall-item curves
(top-k recall among the C nearest candidates by embedding distance) of the
two embeddings.

Reads here are about 300 bases long and few, so that the example runs in
seconds; see the benchmarks page for reads of 1,000 bases.
"""

# %%
# Data: overlapping noisy reads of a real genome
# ----------------------------------------------
import time

start_time = time.perf_counter()

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.spatial.distance import cdist  # noqa: E402

from sklearn_ed import CGKEmbedder, CNNEDEmbedder  # noqa: E402
from sklearn_ed.datasets import make_genome_reads, train_query_base_split  # noqa: E402
from sklearn_ed.distances import pairwise_distances  # noqa: E402
from sklearn_ed.metrics import approximation_error, recall_curve  # noqa: E402

reads = make_genome_reads(780, read_length=(250, 350), genome_length=2_500, random_state=0)
train, query, base = train_query_base_split(reads.data, n_train=150, n_query=30,
                                            random_state=0)
exact = pairwise_distances(query, base, n_jobs=-1)
print(f"{len(train)} training reads, {len(query)} queries, {len(base)} base reads")

# %%
# Fit both embedders
# ------------------
# CNN-ED computes the exact distances between its training reads once
# (rapidfuzz, cached in ``train_distances_``), draws triplets from each
# read's nearest neighbours and trains the network through skorch.
fit_start = time.perf_counter()
cnned = CNNEDEmbedder(n_layers=6, n_neighbors=50, max_epochs=30, lr=3e-3,
                      random_state=0).fit(train)
print(f"CNN-ED fit in {time.perf_counter() - fit_start:.1f} s "
      f"(imports and data: {fit_start - start_time:.1f} s)")
cgk = CGKEmbedder(random_state=0).fit(train)
print(f"CNN-ED training loss: {cnned.history_[0]['train_loss']:.3f} -> "
      f"{cnned.history_[-1]['train_loss']:.3f}")

cnned_distances = cdist(cnned.transform(query), cnned.transform(base))
cgk_distances = cdist(cgk.transform(query), cgk.transform(base), "hamming")

# %%
# Recall-item curves
# ------------------
for name, embedded in (("CNN-ED", cnned_distances), ("CGK", cgk_distances)):
    _, at = recall_curve(exact, embedded, k=10, n_candidates=[6, 30, 60])
    print(f"{name}: top-10 recall at C = 1%, 5%, 10% of the base: {np.round(at, 3)}")

fig, axes = plt.subplots(1, 3, figsize=(12, 3.6), sharey=True)
for ax, k in zip(axes, (1, 10, 50)):
    for name, embedded in (("CNN-ED", cnned_distances), ("CGK", cgk_distances)):
        counts, recall = recall_curve(exact, embedded, k=k)
        ax.plot(counts, recall, label=name)
    ax.set_xscale("log")
    ax.set_title(f"top-{k} recall")
    ax.set_xlabel("candidates C")
axes[0].set_ylabel("recall")
axes[0].legend()
fig.tight_layout()
plt.show()

# %%
# Approximation error
# -------------------
# The mean relative error of edit distances estimated from embedding
# distances (Dai et al., Table 2): linear map for CNN-ED (``distance_map_``,
# fitted on training pairs), quadratic for CGK, here fitted on the
# evaluation pairs themselves for both.
print(f"CNN-ED: {approximation_error(exact, cnned_distances):.3f}")
print(f"CGK:    {approximation_error(exact, cgk_distances, degree=2):.3f}")
estimate = cnned.estimate_distance(query[:1], base[:5]).round(1)
print("estimated:", estimate[0], " exact:", exact[0, :5])

# %%
# Runtime of this example (the docs build runs it on 2 CPU cores).
print(f"example runtime: {time.perf_counter() - start_time:.1f} s")
