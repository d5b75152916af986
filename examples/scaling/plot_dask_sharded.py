"""
========================================
A sharded index on a Dask LocalCluster
========================================

When the base outgrows one machine, :mod:`sklearn_ed.dask` splits it into
shards kept in the memory of Dask workers. The embedder is fitted once, on a
sample, and shared; each shard indexes its part of the base where it lives;
a query batch goes once to each worker, every shard answers with its top-k
(exact distances, global indices), and the answers merge into the global
top-k. This example runs it on a two-worker ``LocalCluster`` and checks the
answers against one process. On a real cluster only the ``Client`` changes.
"""

# %%
# A cluster and a base
# --------------------
# ``LocalCluster`` starts a scheduler and two worker processes on this
# machine; ``Client(address)`` would connect to a cluster started by
# dask-jobqueue or on Kubernetes instead, with no other change.
import time

import numpy as np
from distributed import Client, LocalCluster
from sklearn.frozen import FrozenEstimator

from sklearn_ed import FilterRefineNeighbors
from sklearn_ed.dask import ShardedFilterRefineNeighbors
from sklearn_ed.datasets import load_spell_benchmark

bench = load_spell_benchmark(n_base=50_000, n_query=500, n_train=10)
cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
client = Client(cluster)
print(
    f"{len(bench.base):,} words, {len(bench.query)} misspellings, {len(client.nthreads())} workers"
)

# %%
# Fit: one shard per worker
# -------------------------
# ``n_candidates=1.0`` makes every shard refine all its items, so the answers
# must equal an exact search in one process; with the default
# ``n_candidates="auto"`` each shard checks its own recall at fit.
start = time.perf_counter()
search = ShardedFilterRefineNeighbors(
    n_neighbors=3, n_candidates=1.0, check_recall=False, client=client
).fit(bench.base)
print(
    f"{search.n_shards_} shards of {search.shard_sizes_.tolist()} words, "
    f"built in {time.perf_counter() - start:.1f} s; embedder: {search.embedder_}"
)

# %%
# Queries fan out, answers merge
# ------------------------------
start = time.perf_counter()
distances, indices = search.kneighbors(bench.query)
print(f"{len(bench.query)} queries in {time.perf_counter() - start:.2f} s")
for query, row in list(zip(bench.query, indices))[:3]:
    print(f"  {query!r}: {[bench.base[i] for i in row]}")

# %%
# The same answers as one process
# -------------------------------
# One process with the same fitted embedder (``FrozenEstimator`` keeps it
# from being refitted) and every item refined: identical distances and
# indices, ties broken by index in both.
local = FilterRefineNeighbors(
    FrozenEstimator(search.embedder_), n_neighbors=3, n_candidates=1.0, check_recall=False
).fit(bench.base)
local_distances, local_indices = local.kneighbors(bench.query)
print(
    "same distances:",
    np.array_equal(distances, local_distances),
    "| same indices:",
    np.array_equal(indices, local_indices),
)

client.close()
cluster.close()
