"""All-vs-all top-10 of 100,000 DNA reads: sklearn-ed against minimap2.

Base: 100,000 reads simulated from the whole bundled genome
(``make_genome_reads(100_000, genome_length=2_463_666, random_state=0)``:
900-1,100 bp, 1-8 % errors, about 40x coverage). Every read is a query;
its neighbours are the other reads (each excluded from its own list), the
overlap search an assembler runs first. ``--n-reads`` smaller keeps the
coverage: the reads come from the first ``n_reads * 1,000 / 40`` bp.

Each method runs in a process of its own, with 2 workers:

- exact brute force, ``rapidfuzz.process.cdist``: timed on the first 5
  reads against the whole base and projected to every read; the exact
  top-10 of 200 judged reads (spread over the base) is the reference of
  recall: each one's 10th distance is bounded by the reads of nearest
  simulated start (50 of them, itself left out), then every read within
  that bound is found by ``cdist`` with ``score_cutoff`` over the whole
  base (an exact scan; the bound only lets rapidfuzz stop early);
- ``FilterRefineNeighbors(n_neighbors=10)`` with every default
  (``target_recall=0.95``), then with ``target_recall`` 0.99 and 0.998
  (the recall check picks C for it): fit, then ``kneighbors()`` over the
  fitted reads. A fit that gives way to brute force is not searched: its
  search is brute force's, projected;
- mappy (minimap2 ``ava-ont`` preset, its all-vs-all overlap setting),
  every read mapped against the base, each read's own hit dropped, then
  the exact distance to every other hit, the 10 nearest kept.

A second table splits the judged reads by their exact top-10: those it can
fill with reads that overlap them in the genome, and those with neighbours
elsewhere (a repeat's copies, or unrelated reads when fewer than 10
overlapping ones come within reach), each group's recall apart. For a fit
that gives way to brute force, the report names the check's pseudo-queries
that miss part of their top-10 at its largest C: their 10th distance over
their length, and the overlapping reads within it.

Run: ``python -m benchmarks.bench_reads_all_vs_all --json
benchmarks/results/reads_all_vs_all.json`` (about 30 minutes on 2 cores).
"""

import argparse
import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from benchmarks._common import (
    PeakRSS,
    format_table,
    print_footer,
    print_header,
    progress,
    run_worker,
    worker_reply,
)
from benchmarks.bench_reads_1m import ExactScan, top_k_recall

N_JOBS = 2
K = 10
N_TIMED = 5  # reads brute force is timed on
N_JUDGED = 200  # reads recall is judged on
COVERAGE = 40
READ_LENGTH = 1_000  # mean, before errors
TARGET_RECALL = 0.99
# The recall the issue puts minimap2 at. The check's estimate stops at about
# 0.997 up to a tenth of the base (the reads with unrelated neighbours in their
# exact top-10 are found by no filter), and a filter whose check reaches its
# target at no C gives way to brute force.
MINIMAP2_RECALL = 0.998
REFINE_BATCH = 5_000  # reads whose mappy hits are refined at once
METHODS = (
    "brute force",
    "sklearn-ed defaults",
    f"sklearn-ed, target_recall={TARGET_RECALL}",
    f"sklearn-ed, target_recall={MINIMAP2_RECALL}",
    "mappy ava-ont + exact refine",
)
UNREPORTED = ("kth", "related", "lengths", "distances", "indices")


def data(n_reads):
    from sklearn_ed.datasets import load_genome, make_genome_reads

    genome_length = min(len(load_genome()), n_reads * READ_LENGTH // COVERAGE)
    return make_genome_reads(n_reads, genome_length=genome_length, random_state=0)


def judged_rows(n_reads):
    """Reads recall is judged on, spread evenly over the base."""
    return np.linspace(0, n_reads - 1, min(N_JUDGED, n_reads)).astype(np.int64)


def exact_kth_of_others(reads, rows):
    """Per judged read, the exact 10th-nearest distance to the other reads, and
    the reads within it that overlap it in the genome (its related neighbours)."""
    scan = ExactScan(reads)
    kth, related = [], []
    for row in rows:
        distance, within = scan.within_kth(reads.data[row], reads.start[row], exclude=row)
        kth.append(distance)
        neighbours = np.flatnonzero(within <= distance)
        overlapping = (reads.start[neighbours] < reads.start[row] + reads.length[row]) & (
            reads.start[row] < reads.start[neighbours] + reads.length[neighbours]
        )
        related.append(neighbours[overlapping].tolist())
    return kth, related


def judged_groups(brute):
    """The judged reads split by whether their exact top-10 can be filled with
    reads that overlap them in the genome: the row mask of each group."""
    overlapping = np.array([len(true) >= K for true in brute["related"]])
    return {"all overlapping": overlapping, "some elsewhere": ~overlapping}


def group_summary(brute, groups):
    """Per group: its reads and the range of their 10th distance over their length."""
    share = np.asarray(brute["kth"]) / np.asarray(brute["lengths"])
    return {
        name: {
            "reads": int(mask.sum()),
            "kth_share": [
                float(share[mask].min()),
                float(np.median(share[mask])),
                float(share[mask].max()),
            ]
            if mask.any()
            else [],
        }  # fmt: skip
        for name, mask in groups.items()
    }


def recall_by_group(distances, kth, groups):
    """Top-10 recall of a method's judged answers within each group (None if empty)."""
    distances, kth = np.asarray(distances), np.asarray(kth)
    return {
        name: top_k_recall(distances[mask], kth[mask]) if mask.any() else None
        for name, mask in groups.items()
    }


def related_recall(indices, related):
    """Share of the judged reads' related neighbours among the true top-10
    (those overlapping the read in the genome) that a method returned."""
    found = wanted = 0
    for returned, true in zip(indices, related):
        wanted += min(len(true), K)
        found += min(len(set(returned) & set(true)), K)
    return found / max(wanted, 1)


def brute_worker(spec):
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    reads = data(spec["n_reads"])
    start = time.perf_counter()
    process.cdist(
        reads.data[:N_TIMED], reads.data, scorer=Levenshtein.distance, workers=N_JOBS,
        dtype=np.int32,
    )  # fmt: skip
    projected_s = (time.perf_counter() - start) / N_TIMED * len(reads.data)
    judged = judged_rows(len(reads.data))
    kth, related = exact_kth_of_others(reads, judged)
    lengths = [len(reads.data[row]) for row in judged]
    worker_reply(
        {"fit_s": 0.0, "search_s": projected_s, "kth": kth, "related": related, "lengths": lengths}
    )


def judged_reply(fit_s, search_s, distances, indices, peak_mib, detail, **extra):
    """A worker's reply: its times and the judged reads' answers."""
    judged = judged_rows(len(distances))
    worker_reply(
        {
            "fit_s": fit_s,
            "search_s": search_s,
            "distances": distances[judged].tolist(),
            "indices": indices[judged].tolist(),
            "peak_gib": peak_mib / 1024,
            "method_detail": detail,
            **extra,
        }
    )


def check_misses(search, sampled, reads):
    """The pseudo-queries of the fit's last recall check that miss part of their
    top-10 at its largest C: how many, and for them and for all, the 10th
    distance over the length and the overlapping reads within it."""
    from sklearn_ed.search._recall_check import _kth_smallest

    queries, _, _, _, (rows, columns, distances) = sampled[-1]
    kth = _kth_smallest((rows, columns, distances), len(queries), K)
    missing = search._recall_check.per_query[:, -1] < 1
    share = kth / np.array([len(reads.data[query]) for query in queries])
    within = distances <= kth[rows]
    query_reads, neighbours = queries[rows[within]], columns[within]
    overlapping = (
        reads.start[neighbours] < reads.start[query_reads] + reads.length[query_reads]
    ) & (reads.start[query_reads] < reads.start[neighbours] + reads.length[neighbours])
    related = np.bincount(rows[within][overlapping], minlength=len(queries))
    return {
        "queries": len(queries),
        "largest_c": int(search._recall_check.grid[-1]),
        "missing": int(missing.sum()),
        "share_all": [float(np.min(share)), float(np.median(share)), float(np.max(share))],
        "share_missing": share[missing].tolist(),
        "related_missing": related[missing].tolist(),
    }


def sklearn_ed_worker(spec):
    from sklearn_ed import FilterRefineNeighbors
    from sklearn_ed.search import BRUTE_FORCE

    reads = data(spec["n_reads"])
    # numba's kernels loaded (or compiled on a cold cache) outside the timing.
    FilterRefineNeighbors(n_neighbors=K).fit(reads.data[:2_000]).kneighbors(reads.data[:5])
    search = FilterRefineNeighbors(
        n_neighbors=K, target_recall=spec["target_recall"], n_jobs=N_JOBS, random_state=0
    )
    import sklearn_ed.search._recall_check as recall_check

    curves, misses, sampled = [], [], []
    give_way, sample = search._brute_force_instead, recall_check._sampled_pairs

    def recorded(reason):  # the recall curve of a filter that gives way, and its misses
        curves.append(search.recall_curve_.tolist())
        misses.append(check_misses(search, sampled, reads))
        return give_way(reason)

    def kept(*args, **kwargs):  # the check's pseudo-queries and their exact pairs
        sampled.append(sample(*args, **kwargs))
        return sampled[-1]

    search._brute_force_instead, recall_check._sampled_pairs = recorded, kept
    with PeakRSS() as memory:
        start = time.perf_counter()
        search.fit(reads.data)
        fit_s = time.perf_counter() - start
        if search.search_method_ == BRUTE_FORCE:
            # Its search is brute force's, projected by that worker: hours at 100,000 reads.
            curve, missed = (curves[-1], misses[-1]) if curves else ([], None)
            return worker_reply(
                {"fit_s": fit_s, "gave_way": True, "recall_curve": curve, "check_misses": missed}
            )
        start = time.perf_counter()
        distances, indices = search.kneighbors()
        search_s = time.perf_counter() - start
    detail = (
        f"{type(search.embedder_).__name__}, C={search.n_candidates_}, "
        f"estimated {search.estimated_recall_:.4f}"
    )
    judged_reply(
        fit_s, search_s, distances, indices, memory.peak, detail,
        recall_curve=search.recall_curve_.tolist(),
    )  # fmt: skip


def mappy_worker(spec):
    import mappy

    reads = data(spec["n_reads"])
    with PeakRSS() as memory:
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "reads.fa")
            with open(path, "w") as file:
                file.writelines(f">{i}\n{read}\n" for i, read in enumerate(reads.data))
            start = time.perf_counter()
            aligner = mappy.Aligner(path, preset="ava-ont", n_threads=N_JOBS)
            fit_s = time.perf_counter() - start

        def others(row):
            buffer = mappy.ThreadBuffer()
            hits = {int(hit.ctg) for hit in aligner.map(reads.data[row], buf=buffer)}
            hits.discard(row)
            return sorted(hits)

        start = time.perf_counter()
        with ThreadPoolExecutor(N_JOBS) as pool:
            found = list(pool.map(others, range(len(reads.data)), chunksize=256))
        distances, indices = _refined(reads.data, found)
        search_s = time.perf_counter() - start
    detail = f"{np.mean(list(map(len, found))):.0f} hits/read"
    judged_reply(fit_s, search_s, distances, indices, memory.peak, detail)


def _refined(reads, found):
    """The 10 nearest of each read's hits by exact distance: distances (inf
    where fewer) and indices (-1 there)."""
    from sklearn_ed.distances import candidate_distances

    nearest = np.full((len(reads), K), np.inf)
    nearest_indices = np.full((len(reads), K), -1, dtype=np.int64)
    for start in range(0, len(reads), REFINE_BATCH):
        batch = found[start : start + REFINE_BATCH]
        width = max(K, max(map(len, batch)))
        candidates = np.full((len(batch), width), -1, dtype=np.int64)
        for row, hits in enumerate(batch):
            candidates[row, : len(hits)] = hits
        exact = candidate_distances(
            reads[start : start + len(batch)], reads, candidates, n_jobs=N_JOBS
        )
        order = np.argsort(exact, axis=1, kind="stable")[:, :K]
        rows = slice(start, start + len(batch))
        nearest[rows] = np.take_along_axis(exact, order, axis=1)
        nearest_indices[rows] = np.where(
            np.isfinite(nearest[rows]), np.take_along_axis(candidates, order, axis=1), -1
        )
    return nearest, nearest_indices


WORKERS = {
    "brute force": brute_worker,
    "sklearn-ed": sklearn_ed_worker,
    "mappy": mappy_worker,
}


def run(n_reads):
    specs = {
        METHODS[0]: {"method": "brute force"},
        METHODS[1]: {"method": "sklearn-ed", "target_recall": 0.95},
        METHODS[2]: {"method": "sklearn-ed", "target_recall": TARGET_RECALL},
        METHODS[3]: {"method": "sklearn-ed", "target_recall": MINIMAP2_RECALL},
        METHODS[4]: {"method": "mappy"},
    }
    replies = {}
    for name, spec in specs.items():
        progress(f"{n_reads:,} reads: {name}")
        replies[name] = run_worker(
            "benchmarks.bench_reads_all_vs_all", {**spec, "n_reads": n_reads}, N_JOBS
        )
    brute = replies[METHODS[0]]
    groups = judged_groups(brute)
    mappy_total = replies[METHODS[4]]["fit_s"] + replies[METHODS[4]]["search_s"]
    rows = []
    for name, reply in replies.items():
        if reply.get("gave_way"):
            reply["search_s"] = brute["search_s"]
            reply["method_detail"] = "gave way to brute force; its search projected"
        total_s = reply["fit_s"] + reply["search_s"]
        found = "distances" in reply and not reply.get("gave_way")
        rows.append(
            {
                "method": name,
                **{key: value for key, value in reply.items() if key not in UNREPORTED},
                "total_s": total_s,
                "speedup": (brute["fit_s"] + brute["search_s"]) / total_s,
                "vs_mappy": mappy_total / total_s,
                "recall": top_k_recall(reply["distances"], brute["kth"]) if found else 1.0,
                "related_recall": (
                    related_recall(reply["indices"], brute["related"]) if found else 1.0
                ),
                "recall_by_group": (
                    recall_by_group(reply["distances"], brute["kth"], groups) if found else {}
                ),
            }
        )
    ceiling = sum(min(len(true), K) for true in brute["related"]) / (K * len(brute["related"]))
    return {"rows": rows, "related_share": ceiling, "groups": group_summary(brute, groups)}


def report(result, n_reads):
    rows = result["rows"]
    table = [
        [
            row["method"] + (f" ({row['method_detail']})" if "method_detail" in row else ""),
            f"{row['fit_s']:.1f}" if row["fit_s"] else "-",
            f"{row['search_s']:.1f}",
            f"{row['total_s']:.1f}",
            f"{row['speedup']:.0f}x",
            f"{row['vs_mappy']:.2f}x",
            f"{row['recall']:.4f}",
            f"{row['related_recall']:.4f}",
            f"{row['peak_gib']:.2f}" if "peak_gib" in row else "-",
        ]
        for row in rows
    ]
    print(
        format_table(
            ["method", "fit s", "search s", "total s", "vs brute", "vs mappy",
             "top-10 recall", "overlap recall", "peak GiB"],
            table,
            title=f"Top-10 of every read among the other {n_reads - 1:,}, 2 workers",
            align="lrrrrrrrr",
        )
    )  # fmt: skip
    print(
        f"\nof the exact top-10 of the {N_JUDGED} judged reads, {result['related_share']:.4f} "
        "overlap the read in the genome (overlap recall counts those); the others lie "
        "elsewhere: copies of a repeat, or reads unrelated to it"
    )
    report_groups(result)
    for row in rows:
        if row.get("recall_curve"):
            curve = ", ".join(f"C={c:.0f}: {r:.4f}" for c, r, _ in row["recall_curve"])
            print(f"\n{row['method']}, the fit's recall check: {curve}")
        if row.get("check_misses"):
            report_check_misses(row["method"], row["check_misses"])


def report_check_misses(method, misses):
    """Which pseudo-queries kept a check from its target at every C."""
    low, middle, high = misses["share_all"]
    shares = ", ".join(f"{share:.2f}" for share in misses["share_missing"])
    related = ", ".join(map(str, misses["related_missing"]))
    print(
        f"\n{method}: {misses['missing']} of the check's {misses['queries']} items of the base "
        f"miss part of their top-10 at C={misses['largest_c']:,}; their 10th distance over "
        f"their length: {shares} (all {misses['queries']}: {low:.2f} / {middle:.2f} / {high:.2f}, "
        f"min / median / max); overlapping reads within it: {related}"
    )


def report_groups(result):
    """Top-10 recall of each method on the judged reads whose exact top-10 are
    all overlapping reads, and on those with neighbours elsewhere."""
    groups = result["groups"]
    found = [row for row in result["rows"] if row["recall_by_group"]]
    header = ["judged reads' exact top-10", "reads", "10th distance / length"]
    table = []
    for name, summary in groups.items():
        low, middle, high = summary["kth_share"] or (np.nan,) * 3
        recalls = [row["recall_by_group"][name] for row in found]
        table.append(
            [name, str(summary["reads"]), f"{low:.2f} / {middle:.2f} / {high:.2f}"]
            + ["n/a" if recall is None else f"{recall:.4f}" for recall in recalls]
        )
    print(
        format_table(
            header + [f"recall: {row['method']}" for row in found],
            table,
            title="\nTop-10 recall by kind of judged read (distance share: min / median / max)",
            align="lrr" + "r" * len(found),
        )
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-reads", type=int, default=100_000)
    parser.add_argument("--json", default=None)
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        spec = json.loads(args.worker)
        return WORKERS[spec["method"]](spec)
    start = time.perf_counter()
    print_header(
        "All-vs-all top-10 of reads",
        notes=[
            f"reads: {args.n_reads:,} simulated from the genome at about {COVERAGE}x "
            "coverage (seed 0); every read a query, itself excluded",
            f"brute force timed on {N_TIMED} reads (projected to all); exact top-10 of "
            f"{N_JUDGED} reads spread over the base judges recall (ties counted)",
            "total: fit (index build) and the search of every read; peak: the worker's "
            "resident high-water mark",
        ],
    )
    result = run(args.n_reads)
    report(result, args.n_reads)
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"n_reads": args.n_reads, **result}, file, indent=1)
    print_footer(start)


if __name__ == "__main__":
    main()
