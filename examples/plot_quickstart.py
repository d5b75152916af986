"""
=========================================================
Quickstart: nearest sequencing reads under edit distance
=========================================================

Sequencing reads are strings of about 1,000 DNA bases with errors. Finding
the reads closest to a query under edit (Levenshtein) distance by brute force
costs one quadratic-time dynamic programme per base read. This example
replaces most of those with cheap Hamming distances between CGK embeddings
(*filter*), then computes the exact edit distance to a few candidates only
(*refine*), and measures what is lost: the top-10 recall.
"""

# %%
# Data: reads of a real bacterial genome
# --------------------------------------
# :func:`~sklearn_ed.datasets.make_genome_reads` simulates reads with
# insertions, deletions and substitutions (1 to 8 % errors per read) from the
# genome shipped with ``pyrodigal``. The ``genome-reads-50k`` benchmark
# (:func:`~sklearn_ed.datasets.load_genome_reads_benchmark`) draws 52,000
# reads from 500,000 bp, about 100x coverage, so that every read has real
# overlapping neighbours. To keep this example fast we keep the same coverage
# on a smaller scale: 2,050 reads from the first 20,000 bp, split into 50
# queries and a base set of 2,000 reads.
import time

import matplotlib.pyplot as plt
import numpy as np

from sklearn_ed import CGKEmbedder, FilterRefineNeighbors
from sklearn_ed.datasets import make_genome_reads, train_query_base_split
from sklearn_ed.distances import pairwise_distances
from sklearn_ed.metrics import RecallCurveDisplay, exact_distance_speedup

reads = make_genome_reads(2_050, genome_length=20_000, random_state=0)
_, query, base = train_query_base_split(reads.data, n_train=0, n_query=50, random_state=0)
print(f"{len(base)} base reads, {len(query)} queries, "
      f"lengths {min(map(len, base))}-{max(map(len, base))}")

# %%
# Exact brute force
# -----------------
# :func:`sklearn_ed.distances.pairwise_distances` computes every query-base
# edit distance with rapidfuzz (bit-parallel, still ``O(L^2 / 64)`` word
# operations per pair), spread over all cores with joblib.
start = time.perf_counter()
exact = pairwise_distances(query, base, n_jobs=-1)
brute_time = time.perf_counter() - start
print(f"brute force: {exact.size:,} edit distances in {brute_time:.2f} s")

k = 10
# Distance of each query's 10th nearest read: a returned neighbour is correct
# when its exact distance is at most this (ties count as correct).
kth_distance = np.sort(exact, axis=1)[:, k - 1]

# %%
# Filter and refine
# -----------------
# :class:`~sklearn_ed.FilterRefineNeighbors` embeds the base reads with
# :class:`~sklearn_ed.CGKEmbedder` at ``fit``. A query is embedded the same
# way; its ``n_candidates`` nearest reads by Hamming distance between
# embeddings are the candidates, and the exact edit distance ranks them.
# The returned distances are always exact.
search = FilterRefineNeighbors(
    CGKEmbedder(random_state=0), n_neighbors=k, n_candidates=200, n_jobs=-1
)
start = time.perf_counter()
search.fit(base)
fit_time = time.perf_counter() - start

start = time.perf_counter()
distances, indices = search.kneighbors(query)
query_time = time.perf_counter() - start

recall = np.mean(distances <= kth_distance[:, None])
print(f"fit (embed {len(base)} reads): {fit_time:.2f} s")
print(f"kneighbors: {query_time:.2f} s, top-{k} recall {recall:.2f}, "
      f"{search.n_candidates} exact distances per query instead of {len(base)}")

# %%
# ``n_candidates`` trades time for recall
# ---------------------------------------
# The refine step computes ``n_candidates`` exact distances per query. With
# ``n_candidates >= n_samples_fit_`` every read is refined and the answer is
# the exact brute-force answer (ties broken by base index).
print(f"{'C':>6} {'recall':>7} {'query time (s)':>15}")
for n_candidates in [10, 50, 200, 1000, len(base)]:
    search.set_params(n_candidates=n_candidates)  # the fitted index is reused
    start = time.perf_counter()
    distances, indices = search.kneighbors(query)
    elapsed = time.perf_counter() - start
    recall = np.mean(distances <= kth_distance[:, None])
    print(f"{n_candidates:>6} {recall:>7.2f} {elapsed:>15.2f}")

brute_indices = np.argsort(exact, axis=1, kind="stable")[:, :k]
print("C = n_base equals brute force:", np.array_equal(indices, brute_indices))

# %%
# .. note::
#    ``set_params`` on a fitted estimator is used here only to query the same
#    index with several values of ``n_candidates``; ``n_candidates`` is read
#    at query time.
#
# Recall-item curves: CGK and CGK'
# --------------------------------
# The recall-item curve of seed papers 000 and 001 plots the top-k recall
# against the number of candidates C. ``variant="cgk_prime"`` is the
# truncated CGK' walk (each character is written at most twice, output length
# ``2L`` instead of ``3L``). Reads that overlap with a shift are hard for the
# CGK random walk, which synchronises two strings only after an offset has
# been absorbed by random stalls: learned embeddings do better here (see the
# benchmarks).
embedders = {
    "CGK": CGKEmbedder(random_state=0).fit(base),
    "CGK'": CGKEmbedder(variant="cgk_prime", random_state=0).fit(base),
}
display = RecallCurveDisplay.from_estimator(
    embedders, query, base, k=k, exact_distances=exact
)
display.ax_.set_title(f"top-{k} recall, {len(query)} queries, {len(base)} reads")
plt.show()

# %%
# Exact-distance speedup
# ----------------------
# For 90 % of the queries to get all their 10 true neighbours, how many exact
# distances must be computed per query, in embedding order? The speedup is
# ``n_base`` divided by that number (seed 004, section 5.3).
from scipy.spatial.distance import cdist  # noqa: E402

for name, embedder in embedders.items():
    # Hamming distance between embeddings (scipy returns the mismatch share).
    hamming = cdist(embedder.transform(query), embedder.transform(base), "hamming")
    speedup = exact_distance_speedup(exact, hamming, k=k, p=0.9)
    print(f"{name}: exact-distance speedup at p=0.9: {speedup:.2f}x")
