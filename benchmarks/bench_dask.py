"""The sharded index on a LocalCluster against one process, and a projection.

Data: ``--n-base`` reads (default 1,000,000) and 1,000 query reads simulated
by ``make_genome_reads`` from the whole bundled genome (2.4 Mbp), lengths
900-1,100, seed 0. Both sides use ``CGKEmbedder(random_state=0)`` with the
exact faiss scan (``filter_algorithm="auto"``) and ``n_candidates`` fixed
(no recall check): the same work, split in two.

- one process: ``FilterRefineNeighbors`` with the embedder the shards share
  (fitted on the sample, frozen), fit, then 1,000 queries, with ``n_jobs``
  threads; peak memory above the loaded strings (kernel VmHWM);
- ``ShardedFilterRefineNeighbors`` on a ``LocalCluster`` of ``--workers``
  single-threaded worker processes, one shard per worker: fit (scatter of
  the base included), 1,000 queries, peak memory of each worker (its
  ``ru_maxrss``), bytes that crossed the loopback interface per query batch
  of 1,000 (every client, scheduler and worker message crosses it once);
- the share of queries answered with the same distances, and with distances
  no larger at every rank (each shard refines its own top-C candidates, so
  the shards refine a superset of the single process's candidates);
- a projection to ``--project-workers`` workers holding ``--project-per-shard``
  reads each, from the measured per-shard costs (linear in the shard size).

Run: ``python -m benchmarks.bench_dask --json results/dask.json``
"""

import argparse
import json
import resource
import time

import numpy as np
from sklearn.frozen import FrozenEstimator

from benchmarks._common import PeakRSS, format_table, print_header, progress
from sklearn_ed import CGKEmbedder, FilterRefineNeighbors  # noqa: E402
from sklearn_ed.datasets import make_genome_reads  # noqa: E402

MIB = 1024 * 1024


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def loopback_bytes():
    with open("/proc/net/dev") as file:
        for line in file:
            name, _, fields = line.partition(":")
            if name.strip() == "lo":
                return int(fields.split()[0])
    return 0


def worker_peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-base", type=int, default=1_000_000)
    parser.add_argument("--n-candidates", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--project-workers", type=int, default=100)
    parser.add_argument("--project-per-shard", type=int, default=1_000_000)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    print_header(
        f"Sharded index on a LocalCluster: {args.n_base:,} reads",
        [
            f"CGKEmbedder(random_state=0), C = {args.n_candidates}, exact scan; "
            f"{args.workers} worker processes x 1 thread vs one process with "
            f"{args.workers} threads"
        ],
    )
    import distributed

    from sklearn_ed.dask import ShardedFilterRefineNeighbors

    reads = list(
        make_genome_reads(args.n_base + 1000, genome_length=2_400_000, random_state=0).data
    )
    queries, base = reads[:1000], reads[1000:]
    reads = None
    query_bytes = sum(map(len, queries))
    params = dict(
        n_neighbors=10, n_candidates=args.n_candidates, check_recall=False, random_state=0
    )

    progress("LocalCluster")
    with (
        distributed.LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=0,
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.run(__import__, "sklearn_ed.dask")
        sharded = ShardedFilterRefineNeighbors(CGKEmbedder(random_state=0), client=client, **params)
        _, sharded_fit = timed(lambda: sharded.fit(base))
        before = loopback_bytes()
        (sharded_dist, sharded_ind), sharded_query = timed(lambda: sharded.kneighbors(queries))
        moved = loopback_bytes() - before
        peaks = sorted(client.run(worker_peak_mib).values())
        shard_sizes = sharded.shard_sizes_.tolist()
        embedder = sharded.embedder_

    progress("one process, with the embedder the shards share")
    with PeakRSS() as memory:
        single = FilterRefineNeighbors(FrozenEstimator(embedder), n_jobs=args.workers, **params)
        _, single_fit = timed(lambda: single.fit(base))
        (single_dist, single_ind), single_query = timed(lambda: single.kneighbors(queries))
    single_mib = memory.extra
    # Each shard refines its own top-C: the union holds the single process's
    # top-C, so the shards' answer is as good or better, row by row.
    same = float(np.mean((sharded_dist == single_dist).all(axis=1)))
    better_or_same = float(np.mean((sharded_dist <= single_dist).all(axis=1)))

    rows = [
        [
            "one process",
            f"{single_fit:.1f}",
            f"{single_query:.1f}",
            f"{single_mib:,.0f} above the strings",
            "-",
        ],
        [
            f"{args.workers} workers",
            f"{sharded_fit:.1f}",
            f"{sharded_query:.1f}",
            " / ".join(f"{peak:,.0f}" for peak in peaks) + " (each worker, in all)",
            f"{moved / 1e6:.2f} MB ({moved / query_bytes:.2f}x the batch)",
        ],
    ]
    print(
        format_table(
            ["side", "fit s", "1,000 queries s", "peak memory MiB", "moved per batch"],
            rows,
            title=f"{args.n_base:,} reads, shards of {shard_sizes}",
        )
    )
    print(
        f"queries with the same 10 distances as one process: {same:.3f}; with "
        f"distances no larger at every rank: {better_or_same:.3f}"
    )

    # Projection: every shard works in parallel, its costs linear in its size.
    per_item_fit = sharded_fit / max(shard_sizes)
    per_item_query = sharded_query / max(shard_sizes)
    shard = args.project_per_shard
    n_total = shard * args.project_workers
    batch_fanout = args.project_workers * query_bytes
    projected = {
        "workers": args.project_workers,
        "reads": n_total,
        "fit_s": per_item_fit * shard,
        "query_s": per_item_query * shard,
        "worker_peak_mib": max(peaks) * shard / max(shard_sizes),
        "bytes_per_batch": batch_fanout,
    }
    print(
        format_table(
            [
                "workers",
                "reads",
                "fit s",
                "1,000 queries s",
                "peak MiB per worker",
                "bytes per batch of 1,000",
            ],
            [
                [
                    f"{args.project_workers}",
                    f"{n_total:,}",
                    f"{projected['fit_s']:.0f}",
                    f"{projected['query_s']:.0f}",
                    f"{projected['worker_peak_mib']:,.0f}",
                    f"{batch_fanout / 1e6:.0f} MB",
                ]
            ],
            title="Projection from the measured per-shard costs (linear in the shard size)",
        )
    )
    results = {
        "n_base": args.n_base,
        "n_candidates": args.n_candidates,
        "workers": args.workers,
        "query_bytes": query_bytes,
        "shard_sizes": shard_sizes,
        "same_answers": same,
        "no_worse": better_or_same,
        "single": {"fit_s": single_fit, "query_s": single_query, "peak_extra_mib": single_mib},
        "sharded": {
            "fit_s": sharded_fit,
            "query_s": sharded_query,
            "worker_peak_mib": peaks,
            "bytes_per_batch": moved,
        },
        "projection": projected,
    }
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=2)


if __name__ == "__main__":
    main()
