"""Joins and deduplication on a LocalCluster, against one process and string_grouper.

Data: ``make_person_records(n, random_state=0)``, one string per record
(name, street and city, about 45 characters, 9 % planted duplicates).
Two settings:

- the recommended one of the dedup page: ``metric="normalized_indel"``,
  ``min_similarity=0.85``, ``processor="default_sort_tokens"``;
- the one of the "a million records" figure: ``normalized_levenshtein``,
  0.85, no processor.

For each setting and size, each in a fresh process, 2 cores in all:

- one process: ``sklearn_ed.similarity_join(n_jobs=2)``;
- ``sklearn_ed.dask.similarity_join`` on a ``LocalCluster`` of 1 worker (1
  thread) and of 2 workers (1 thread each), the cluster started before the
  clock starts; the pairs
  written to Parquet, read back and compared with the one process's;
- ``sklearn_ed.dask.group_duplicates(linkage="connected")`` on 2 workers
  (groups to Parquet), its groups compared with the connected groups of the
  one process's pairs;
- the deduplicators, representative linkage (the default): one process's
  ``StringDeduplicator(n_jobs=2)`` and ``DaskStringDeduplicator`` on 2
  workers, each fitted on all records but the last 1 % (at least 1,000),
  which are then put in the groups by ``predict``; the groups and the
  predictions compared (each group named by its smallest row);
- string_grouper ``match_strings`` at 0.85 (tf-idf of character 3-grams).

Every runner first joins 3,000 of the records, untimed (numba loads its
kernels on the first call of each process). Wall time, peak memory (the
client's process, and the largest of the workers': their ``ru_maxrss``),
pairs, and pair precision, recall and F1
against the planted duplicates. Then a cost model: the number of pairs of
blocks grows as the square of the records (the blocks of one length band
meet each other), each pair's time measured here; what it predicts for
10^7 to 10^9 records on N workers.

Run: ``python -m benchmarks.bench_dask_join --json results/dask_join.json``
"""

import argparse
import hashlib
import json
import resource
import tempfile
import time

import numpy as np

from benchmarks._common import (
    format_table,
    print_footer,
    print_header,
    progress,
    run_worker,
    worker_reply,
)

SETTINGS = {
    "recommended": {
        "min_similarity": 0.85,
        "metric": "normalized_indel",
        "processor": "default_sort_tokens",
    },
    "headline": {"min_similarity": 0.85, "metric": "normalized_levenshtein"},
}
RUNNERS = (
    "one process",
    "dask, 1 worker",
    "dask, 2 workers",
    "dask groups, 2 workers",
    "one process, deduplicator",
    "dask deduplicator, 2 workers",
)
MIB = 1024 * 1024
# Records of an untimed join first, in every runner: numba loads its compiled
# kernels from the cache on the first call of each process.
WARM_UP = 3_000


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def planted_scores(left, right, entity):
    found = len(left)
    hits = int((entity[left] == entity[right]).sum())
    counts = np.bincount(entity)
    planted = int((counts * (counts - 1) // 2).sum())
    precision, recall = hits / max(found, 1), hits / max(planted, 1)
    return precision, recall, 2 * precision * recall / max(precision + recall, 1e-12)


def pair_digest(left, right):
    """An order-free fingerprint of a set of pairs (compared across processes)."""
    keys = np.sort(np.asarray(left, np.int64) * (1 << 32) + np.asarray(right, np.int64))
    return hashlib.sha256(keys.tobytes()).hexdigest()[:16]


def groups_digest(left, right, n):
    """The connected groups of pairs, each named by its smallest row, fingerprinted."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(left)), (left, right)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    smallest = np.full(labels.max() + 1, n)
    np.minimum.at(smallest, labels, np.arange(n))
    return group_fingerprint(smallest[labels])


def group_fingerprint(groups):
    return hashlib.sha256(np.asarray(groups, np.int64).tobytes()).hexdigest()[:16]


def predicted_batch(records):
    """``(fitted, new)``: the records but the last 1 % (at least 1,000), and those."""
    n_new = max(1_000, len(records) // 100)
    return records[:-n_new], records[-n_new:]


def row_named(labels, new_labels, n_groups):
    """StringDeduplicator's labels named as the distributed groups are: a fitted
    group by its smallest row, a new one by the number fitted plus its first
    new string."""
    n_fitted = len(labels)
    smallest = np.full(n_groups, n_fitted)
    np.minimum.at(smallest, labels, np.arange(n_fitted))
    named = np.asarray(new_labels, np.int64).copy()
    fitted = named < n_groups
    named[fitted] = smallest[named[fitted]]
    first_new = {}
    for position, label in enumerate(new_labels):
        if label >= n_groups:
            named[position] = n_fitted + first_new.setdefault(label, position)
    return named


def deduplicator_reply(fit, predict):
    """Time ``fit()`` and ``predict()``; their groups (named by rows) fingerprinted."""
    started = time.perf_counter()
    groups = fit()
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    predicted = predict()
    return {
        "seconds": seconds,
        "predict_seconds": time.perf_counter() - started,
        "n_groups": int(len(np.unique(groups))),
        "groups": group_fingerprint(groups),
        "predicted": group_fingerprint(predicted),
    }


def one_process_deduplicator(records, options):
    from sklearn_ed import StringDeduplicator

    fitted, new = predicted_batch(records)
    StringDeduplicator(n_jobs=2, **options).fit(records[:WARM_UP])
    dedup = StringDeduplicator(n_jobs=2, **options)

    def fit():
        labels = dedup.fit(fitted).labels_
        return row_named(labels, labels, dedup.n_groups_)

    return deduplicator_reply(
        fit, lambda: row_named(dedup.labels_, dedup.predict(new), dedup.n_groups_)
    )


def worker(spec):
    from sklearn_ed.datasets import make_person_records

    data = make_person_records(spec["n"], random_state=0)
    records, options = list(data.data), SETTINGS[spec["setting"]]
    reply = {}
    if spec["runner"] == "string_grouper":
        import pandas as pd
        from string_grouper import match_strings

        started = time.perf_counter()
        matches = match_strings(pd.Series(records), min_similarity=0.85)
        reply["seconds"] = time.perf_counter() - started
        kept = matches[matches["left_index"] < matches["right_index"]]
        left, right = kept["left_index"].to_numpy(), kept["right_index"].to_numpy()
    elif spec["runner"] == "one process":
        from sklearn_ed import similarity_join

        similarity_join(records[:WARM_UP], n_jobs=2, **options)
        started = time.perf_counter()
        left, right, _ = similarity_join(records, n_jobs=2, **options)
        reply["seconds"] = time.perf_counter() - started
        reply["groups"] = groups_digest(left, right, len(records))
    elif spec["runner"] == "one process, deduplicator":
        reply = one_process_deduplicator(records, options)
        left = right = np.empty(0, np.int64)
    else:
        reply, left, right = dask_worker(spec, records, options)
    reply.update(peak_mib=peak_mib(), pairs=len(left), digest=pair_digest(left, right))
    reply["scores"] = planted_scores(np.asarray(left), np.asarray(right), data.entity)
    worker_reply(reply)


def dask_worker(spec, records, options):
    from distributed import Client, LocalCluster

    from sklearn_ed.dask import DaskStringDeduplicator, group_duplicates, similarity_join

    n_workers = 2 if "2 workers" in spec["runner"] else 1
    folder = tempfile.mkdtemp(prefix="bench_dask_join_")
    with (
        LocalCluster(n_workers=n_workers, threads_per_worker=1, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        warm_up = similarity_join(
            records[:WARM_UP], path=f"{folder}/warm-up", client=client, **options
        )
        len(warm_up)
        started = time.perf_counter()
        if spec["runner"].startswith("dask deduplicator"):
            fitted, new = predicted_batch(records)
            dedup = DaskStringDeduplicator(path=f"{folder}/groups", client=client, **options)
            reply = deduplicator_reply(
                lambda: dedup.fit(fitted).groups_["group"].compute().to_numpy(),
                lambda: dedup.predict(new),
            )
            left = right = np.empty(0, np.int64)
            seconds = reply["seconds"]
        elif spec["runner"].startswith("dask groups"):
            frame = group_duplicates(
                records, path=f"{folder}/groups", linkage="connected", client=client, **options
            )
            seconds = time.perf_counter() - started
            groups = frame["group"].compute().to_numpy()
            reply = {"n_groups": int(len(np.unique(groups))), "groups": group_fingerprint(groups)}
            left = right = np.empty(0, np.int64)
        else:
            pairs = similarity_join(records, path=f"{folder}/pairs", client=client, **options)
            seconds = time.perf_counter() - started
            read = pairs.compute()
            left, right = read["left"].to_numpy(), read["right"].to_numpy()
            reply = {"tasks": len(pairs.divisions) - 1}
        reply["seconds"] = seconds
        reply["worker_peak_mib"] = max(client.run(peak_mib).values())
    return reply, left, right


def measured(settings, sizes, one_worker_max):
    rows = []
    for setting in settings:
        for n in sizes[setting]:
            runners = [r for r in RUNNERS if not (r.endswith("1 worker") and n > one_worker_max)]
            for runner in (*runners, "string_grouper"):
                if runner == "string_grouper" and setting != "recommended":
                    continue  # one setting of its own: cosine of tf-idf 3-grams at 0.85
                progress(f"{setting} {n:,} {runner}")
                reply = run_worker(
                    "benchmarks.bench_dask_join", dict(setting=setting, n=n, runner=runner), 2
                )
                rows.append(dict(setting=setting, n=n, runner=runner, **reply))
    return rows


def block_counts(n, setting, block_size):
    """``(blocks, pairs of blocks)`` the join of ``n`` records makes."""
    from sklearn_ed.dask._blocks import block_pairs, length_blocks
    from sklearn_ed.datasets import make_person_records
    from sklearn_ed.distances import get_metric
    from sklearn_ed.join import prepared_join

    records = make_person_records(n, random_state=0).data
    options = SETTINGS[setting]
    spec, limit, strings, _ = prepared_join(
        records, None, None, options["min_similarity"], options["metric"], options.get("processor")
    )
    lengths = np.bincount([len(string) for string in strings])
    plan = length_blocks({i: int(c) for i, c in enumerate(lengths) if c}, block_size)
    return plan.n_blocks, len(block_pairs(plan, None, get_metric(spec.name), limit))


def cost_model(rows, block_size):
    """Seconds per pair of blocks on one worker, from the largest run on 2
    workers, and the hours it predicts at 10^7 to 10^9 records."""
    model = []
    for setting in SETTINGS:
        runs = [r for r in rows if r["setting"] == setting and r["runner"] == "dask, 2 workers"]
        if not runs:
            continue
        largest = max(runs, key=lambda r: r["n"])
        n_blocks, n_pairs = block_counts(largest["n"], setting, block_size)
        per_pair = largest["seconds"] * 2 / n_pairs
        growth = n_pairs / largest["n"] ** 2
        for n in (10**7, 10**8, 10**9):
            for workers in (2, 100, 1000):
                hours = growth * n**2 * per_pair / workers / 3600
                model.append(
                    dict(
                        setting=setting,
                        n=n,
                        workers=workers,
                        hours=hours,
                        measured_n=largest["n"],
                        blocks=n_blocks,
                        block_pairs=n_pairs,
                        seconds_per_pair=per_pair,
                    )
                )
    return model


def report(rows, model):
    for setting in SETTINGS:
        table = []
        for row in (r for r in rows if r["setting"] == setting):
            base_runner = "one process"
            if row["runner"].endswith("deduplicator, 2 workers"):
                base_runner = "one process, deduplicator"
            base = next(
                r
                for r in rows
                if r["setting"] == setting and r["n"] == row["n"] and r["runner"] == base_runner
            )
            same = "-"
            if base_runner != "one process":
                same = str((row["groups"], row["predicted"]) == (base["groups"], base["predicted"]))
            elif row["runner"].startswith("dask groups"):
                same = str(row["groups"] == base["groups"])
            elif row["runner"].startswith("dask"):
                same = str(row["digest"] == base["digest"] and row["pairs"] == base["pairs"])
            table.append(
                [
                    f"{row['n']:,}",
                    row["runner"],
                    f"{row['seconds']:.1f}",
                    f"{row['seconds'] / base['seconds']:.2f}",
                    f"{row['peak_mib']:.0f}",
                    f"{row['worker_peak_mib']:.0f}" if "worker_peak_mib" in row else "-",
                    f"{row['pairs']:,}" if row["pairs"] else f"{row.get('n_groups', 0):,} groups",
                    same,
                    f"{row['scores'][2]:.3f}" if row["pairs"] else "-",
                    f"{row['predict_seconds']:.1f}" if "predict_seconds" in row else "-",
                ]
            )
        headers = [
            "records",
            "runner",
            "seconds",
            "vs one process",
            "client MiB",
            "worker MiB (largest)",
            "pairs",
            "same as one process",
            "F1 planted",
            "predict 1 % (s)",
        ]
        print(format_table(headers, table, title=f"{setting}: {SETTINGS[setting]}"))
    table = [[m["setting"], f"{m['n']:.0e}", m["workers"], f"{m['hours']:,.1f}"] for m in model]
    if model:
        first = {m["setting"]: m for m in model}
        notes = "; ".join(
            f"{s}: {m['block_pairs']:,} pairs of {m['blocks']} blocks at "
            f"{m['measured_n']:,} records, {m['seconds_per_pair']:.2f} s each"
            for s, m in first.items()
        )
        print(
            format_table(
                ["setting", "records", "workers", "hours (predicted)"],
                table,
                title=f"Cost model ({notes})",
            )
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recommended-sizes", default="20000,100000")
    parser.add_argument("--headline-sizes", default="100000,1000000")
    parser.add_argument("--one-worker-max", type=int, default=300_000)
    parser.add_argument("--json")
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        return worker(json.loads(args.worker))
    from sklearn_ed.dask._join import MAX_BLOCK_SIZE

    start = time.perf_counter()
    print_header("Joins and deduplication on a LocalCluster (2 cores)")
    sizes = {
        "recommended": [int(s) for s in args.recommended_sizes.split(",") if s],
        "headline": [int(s) for s in args.headline_sizes.split(",") if s],
    }
    rows = measured(SETTINGS, sizes, args.one_worker_max)
    model = cost_model(rows, MAX_BLOCK_SIZE)
    report(rows, model)
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"rows": rows, "model": model, "block_size": MAX_BLOCK_SIZE}, file, indent=1)
    print_footer(start)


if __name__ == "__main__":
    main()
