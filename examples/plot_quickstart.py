"""
=========================================================
Quickstart: nearest sequencing reads under edit distance
=========================================================

Sequencing reads are strings of about 1,000 DNA bases with errors. Finding
the reads closest to a query under edit (Levenshtein) distance by brute force
costs one quadratic-time dynamic programme per base read. This example
replaces most of those with cheap comparisons of embeddings (*filter*), then
computes the exact edit distance to a few candidates only (*refine*), with
every parameter at its default: the estimator chooses the embedder and the
number of candidates from the data, and estimates its own recall.
"""

# %%
# Data: reads of a real bacterial genome
# --------------------------------------
# :func:`~sklearn_ed.datasets.make_genome_reads` simulates reads with
# insertions, deletions and substitutions (1 to 8 % errors per read) from the
# genome shipped with ``pyrodigal``. The benchmark of the
# :ref:`benchmark pages <benchmarks>`
# (:func:`~sklearn_ed.datasets.load_genome_reads_benchmark`) draws 52,000
# reads from 500,000 bp, about 100x coverage, so that every read has real
# overlapping neighbors. To keep this example fast we keep the same coverage
# on a smaller scale: 2,050 reads from the first 20,000 bp, split into 50
# queries and a base set of 2,000 reads.
import time

import matplotlib.pyplot as plt
import numpy as np

from sklearn_ed import CGKEmbedder, FilterRefineNeighbors, QGramEmbedder
from sklearn_ed.datasets import make_genome_reads, train_query_base_split
from sklearn_ed.distances import pairwise_distances
from sklearn_ed.metrics import RecallCurveDisplay

reads = make_genome_reads(2_050, genome_length=20_000, random_state=0)
_, query, base = train_query_base_split(reads.data, n_train=0, n_query=50, random_state=0)
print(
    f"{len(base)} base reads, {len(query)} queries, "
    f"lengths {min(map(len, base))}-{max(map(len, base))}"
)

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
# Distance of each query's 10th nearest read: a returned neighbor is correct
# when its exact distance is at most this (ties count as correct).
kth_distance = np.sort(exact, axis=1)[:, k - 1]

# %%
# Filter and refine, with the defaults
# ------------------------------------
# :class:`~sklearn_ed.FilterRefineNeighbors` embeds the base reads at
# ``fit``. ``embedder="auto"`` picks :class:`~sklearn_ed.QGramEmbedder` for
# strings: each read becomes its q-gram count profile (``q`` from
# the alphabet, the lengths and the number of reads). A query's candidates
# are the reads of highest cosine similarity, and the exact edit distance
# ranks them; the returned distances are always exact.
#
# ``n_candidates="auto"`` is settled at fit by a recall check: a seeded
# sample of base reads is searched as queries and compared with its exact
# neighbors, and the smallest candidate count reaching ``target_recall``
# (0.95) is kept, with the estimate and its standard error as attributes.
search = FilterRefineNeighbors(n_neighbors=k, n_jobs=-1, random_state=0)
start = time.perf_counter()
search.fit(base)
fit_time = time.perf_counter() - start

start = time.perf_counter()
distances, indices = search.kneighbors(query)
query_time = time.perf_counter() - start

recall = np.mean(distances <= kth_distance[:, None])
print(
    f"embedder: {type(search.embedder_).__name__}(q={search.embedder_.q_}), "
    f"n_candidates_ = {search.n_candidates_} of {len(base)} reads"
)
print(
    f"estimated top-{k} recall at fit: {search.estimated_recall_:.3f} "
    f"+/- {search.estimated_recall_se_:.3f}"
)
print(f"measured on the queries: {recall:.3f}")
print(
    f"fit {fit_time:.2f} s, kneighbors {query_time:.2f} s: "
    f"{brute_time / query_time:.1f}x faster than brute force per query, "
    f"{brute_time / (fit_time + query_time):.1f}x including fit"
)

# %%
# The recall curve the fit measured
# ---------------------------------
# ``recall_curve_`` holds the check's candidate counts, recall estimates and
# standard errors: how recall grows with the candidates refined per query.
counts, estimates, errors = search.recall_curve_.T
fig, ax = plt.subplots(figsize=(6.4, 4.0))
ax.errorbar(counts, estimates, yerr=errors, marker="o", capsize=3)
ax.axhline(search.target_recall, color="grey", linestyle="--", label="target_recall")
ax.axvline(search.n_candidates_, color="tab:red", linestyle=":", label="n_candidates_")
ax.set_xscale("log")
ax.set_xlabel("candidates refined per query")
ax.set_ylabel(f"estimated top-{k} recall")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()

# %%
# ``n_candidates`` trades time for recall
# ---------------------------------------
# A count fixes the candidates instead. With ``n_candidates >= n_samples_fit_``
# every read is refined and the answer is the exact brute-force answer (ties
# broken by base index).
print(f"{'C':>6} {'recall':>7} {'query time (s)':>15}")
for n_candidates in [10, 50, 200, len(base)]:
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
# Other embedders
# ---------------
# The recall-item curve plots the top-k recall against the number of
# candidates C for embedders given directly. CGK (a data-independent random
# walk into Hamming space) needs many more candidates on reads that overlap
# with a shift, which is why ``embedder="auto"`` does not choose it for
# strings (see the user guide, "Choosing an embedder").
embedders = {
    "QGram": QGramEmbedder().fit(base),
    "CGK": CGKEmbedder(random_state=0).fit(base),
}
display = RecallCurveDisplay.from_estimator(embedders, query, base, k=k, exact_distances=exact)
display.ax_.set_title(f"top-{k} recall, {len(query)} queries, {len(base)} reads")
plt.show()
