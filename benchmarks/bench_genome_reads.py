"""genome-reads-50k: exact brute force vs FilterRefineNeighbors + CGK.

Sides, each run in a fresh Python process (``--worker``) so that its peak
RSS is its own:

(a) brute force: ``rapidfuzz.process.cdist(queries, base,
    scorer=Levenshtein.distance, workers=n_jobs)`` plus the top-k selection
    (ties broken by base index);
(b) ``FilterRefineNeighbors(CGKEmbedder(variant, n_repetitions,
    random_state=0), n_neighbors=k, n_candidates=C, n_jobs=n_jobs)``: one
    process per (variant, n_repetitions) fits once (embeds and indexes the
    base), then runs ``kneighbors`` once per C; the kernel's RSS high-water
    mark is reset before each phase.

Schedule (interleaved, so both sides of every ratio see the same load):
FR pass, then ``--repeats`` times [brute, FR pass]. Reported times are the
median over passes; ratio = brute total / FR total (fit + query).

From the exact matrix of the brute-force side and the CGK embedding
distances (``pairwise_embedding_distances(emb.transform_symbols(q),
emb.transform_symbols(base), "hamming")``) the script also prints the
recall-item table and the exact-distance speedups (Lary (2022), Tables 5.1).

Brute force costs ~50-80 us per pair per core on ~1,000 bp reads; the full
1,000 x 50,000 takes ~20 min on 2 cores, so ``--n-query`` selects the first
N of the standard 1,000 queries.

Usage::

    python -m benchmarks.bench_genome_reads --n-query 100
"""

import argparse
import os
import pickle
import shutil
import tempfile
import time
import warnings

import numpy as np

from benchmarks._common import (
    distances_at,
    fmt_mib,
    fmt_ratio,
    fmt_seconds,
    format_table,
    kth_exact,
    parse_list,
    print_footer,
    print_header,
    progress,
    recall_and_needed,
    recall_item_table,
    returned_recall,
    run_worker,
    side_worker,
    speedup_table,
)

STANDARD_N_QUERY = 1000


# ------------------------------------------------------------------ parent
def _embedding_rows(variant, n_repetitions, queries, base):
    """CGK embedding (Hamming) distances, as FilterRefineNeighbors would fit it."""
    from sklearn_ed import CGKEmbedder
    from sklearn_ed.index import pairwise_embedding_distances

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        embedder = CGKEmbedder(variant=variant, n_repetitions=n_repetitions, random_state=0).fit(
            base
        )
        query_symbols = embedder.transform_symbols(queries)
        base_symbols = embedder.transform_symbols(base)

    def rows(start, stop):
        return pairwise_embedding_distances(query_symbols[start:stop], base_symbols, "hamming")

    return rows


def _parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n-base", type=int, default=50_000)
    parser.add_argument(
        "--n-train",
        type=int,
        default=1_000,
        help="train reads of the split (CGK needs no training)",
    )
    parser.add_argument(
        "--n-query", type=int, default=1_000, help="queries used: the first N of the standard 1,000"
    )
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--k", type=int, default=10, help="n_neighbors")
    parser.add_argument(
        "--candidates",
        default="100,500,1000,2500",
        help="n_candidates values C of FilterRefineNeighbors",
    )
    parser.add_argument("--variants", default="cgk,cgk_prime")
    parser.add_argument("--n-repetitions", default="1,3")
    parser.add_argument("--filter-algorithm", default="auto")
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="brute-force runs; FR passes = repeats + 1, one before and "
        "one after each brute-force run",
    )
    parser.add_argument("--recall-candidates", default="10,100,500,1000,5000")
    parser.add_argument("--recall-k", default="1,10,50")
    parser.add_argument("--p", default="0.90,0.95,0.99")
    parser.add_argument("--random-state", type=int, default=0)
    parser.add_argument(
        "--keep-workdir", action="store_true", help="keep the temporary folder of worker outputs"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    return parser


def _run_sides(args, configs, candidates, workdir, n_queries, n_base):
    """An FR pass, then ``repeats`` x [brute force, FR pass], each side in a fresh process."""
    script = __spec__.name  # the worker runs as python -m <this module>
    common = {"data": os.path.join(workdir, "data.pkl"), "n_jobs": args.n_jobs, "k": args.k}

    fr_runs = {config: [] for config in configs}
    brute_runs = []

    def fr_pass(index):
        order = configs if index % 2 == 0 else configs[::-1]
        for variant, n_rep in order:
            progress(f"FR pass {index}: {variant} x{n_rep}, C={candidates}")
            out = os.path.join(workdir, f"fr_{variant}_{n_rep}")
            spec = dict(
                common,
                side="fr",
                variant=variant,
                n_repetitions=n_rep,
                candidates=candidates,
                filter_algorithm=args.filter_algorithm,
                out=out,
            )
            reply = run_worker(script, spec, args.n_jobs)
            reply["out"] = out
            fr_runs[variant, n_rep].append(reply)

    fr_pass(0)
    for repeat in range(args.repeats):
        progress(f"brute force {repeat + 1}/{args.repeats}: {n_queries} x {n_base}")
        out = os.path.join(workdir, "brute")
        brute_runs.append(run_worker(script, dict(common, side="brute", out=out), args.n_jobs))
        progress(f"brute force took {brute_runs[-1]['total_s']:.1f} s")
        fr_pass(repeat + 1)

    return brute_runs, fr_runs


def _wall_time_report(args, configs, candidates, queries, base, exact, brute_runs, fr_runs):
    """Exact-distance facts, then wall time, recall and memory per side.

    Returns the top-k recall of each (configuration, C).
    """
    brute_time = float(np.median([run["total_s"] for run in brute_runs]))
    brute_memory = brute_runs[-1]["memory"]
    print(
        f"exact distances: min {exact.min()}, median {np.median(exact):.0f}, max "
        f"{exact.max()}; per query, median true 1st / {args.k}th / 50th distance: "
        f"{np.median(kth_exact(exact, 1)):.0f} / {np.median(kth_exact(exact, args.k)):.0f}"
        f" / {np.median(kth_exact(exact, min(50, exact.shape[1]))):.0f}"
    )
    n_pairs = exact.size
    print(
        f"brute force: {n_pairs} pairs in {brute_time:.1f} s = "
        f"{brute_time / n_pairs * 1e6 * args.n_jobs:.1f} us per pair per core "
        "(runs: " + ", ".join(f"{run['total_s']:.1f}" for run in brute_runs) + " s)"
    )
    print()

    headers = [
        "side",
        "C",
        "C/n_base",
        "fit s",
        "query s",
        "total s",
        "brute/FR",
        "top-1 recall",
        f"top-{args.k} recall",
        "peak RSS MiB",
        "+RSS MiB",
    ]
    rows = [
        [
            "brute force (rapidfuzz cdist)",
            "-",
            "-",
            "-",
            fmt_seconds(brute_time),
            fmt_seconds(brute_time),
            "1.00x",
            "1.000",
            "1.000",
            fmt_mib(brute_memory["peak_mib"]),
            fmt_mib(brute_memory["extra_mib"]),
        ]
    ]
    returned = {}
    wrong_distances = 0
    for variant, n_rep in configs:
        runs = fr_runs[variant, n_rep]
        fit_s = float(np.median([run["fit_s"] for run in runs]))
        for n_candidates in candidates:
            key = str(n_candidates)
            query_s = float(np.median([run["queries"][key]["query_s"] for run in runs]))
            out = runs[-1]["out"]
            distances = np.load(f"{out}_C{n_candidates}_dist.npy")
            indices = np.load(f"{out}_C{n_candidates}_ind.npy")
            true = np.take_along_axis(exact, indices, axis=1)
            wrong_distances += int((true != distances).sum())
            top1 = returned_recall(distances, exact, 1)
            topk = returned_recall(distances, exact, args.k)
            returned[variant, n_rep, n_candidates] = topk
            memory = runs[-1]["queries"][key]["memory"]
            peak = max(memory["peak_mib"], runs[-1]["fit_memory"]["peak_mib"])
            extra = peak - runs[-1]["fit_memory"]["baseline_mib"]
            total = fit_s + query_s
            rows.append(
                [
                    f"FR {variant} x{n_rep} (dim {runs[-1]['embedding_dim']})",
                    n_candidates,
                    f"{n_candidates / len(base):.1%}",
                    fmt_seconds(fit_s),
                    fmt_seconds(query_s),
                    fmt_seconds(total),
                    fmt_ratio(brute_time / total),
                    f"{top1:.3f}",
                    f"{topk:.3f}",
                    fmt_mib(peak),
                    fmt_mib(extra),
                ]
            )
    print(
        format_table(
            headers,
            rows,
            align="lrrrrrrrrrr",
            title=f"Wall time, recall and peak memory ({len(queries)} queries, "
            f"{len(base)} base reads, n_jobs={args.n_jobs})",
        )
    )
    filters = sorted({run["filter"] for runs in fr_runs.values() for run in runs})
    print(
        f"FR filter: {', '.join(filters)} (filter_algorithm={args.filter_algorithm!r}). "
        "FR total = fit (embed + index the base, same for every C) + kneighbors. "
        f"Recall is tie-aware: a returned neighbor counts if its exact distance <= the "
        f"query's true k-th distance. Returned distances checked against the exact "
        f"matrix: {wrong_distances} mismatches."
    )
    print(
        "FR peak RSS = max over the fit phase and this C's kneighbors phase; +RSS = that "
        "peak minus the RSS before fit."
    )
    for config, runs in fr_runs.items():
        fits = ", ".join(fmt_seconds(run["fit_s"]) for run in runs)
        print(
            f"  passes of FR {config[0]} x{config[1]}: fit {fits} s; query at "
            f"C={candidates[-1]}: "
            + ", ".join(fmt_seconds(run["queries"][str(candidates[-1])]["query_s"]) for run in runs)
            + " s"
        )
    print()

    return returned


def _recall_report(args, configs, candidates, queries, base, exact, returned):
    """Recall-item and exact-distance speedup tables of the CGK embeddings."""
    recall_candidates = parse_list(args.recall_candidates)
    recall_ks = parse_list(args.recall_k)
    ps = parse_list(args.p, float)
    progress("recall-item and speedup tables")
    from sklearn_ed.metrics import exact_distance_speedup

    recall, needed = {}, {}
    mismatched = []
    checked_speedup = False
    for variant, n_rep in configs:
        name = f"{variant} x{n_rep}"
        rows_of = _embedding_rows(variant, n_rep, queries, base)
        all_ks = sorted(set(recall_ks) | {args.k})
        all_candidates = recall_candidates + candidates
        values, by_k = recall_and_needed(exact, rows_of, all_ks, all_candidates)
        recall[name] = {k: values[k][: len(recall_candidates)] for k in recall_ks}
        needed[name] = {k: by_k[k] for k in recall_ks}
        for c, value in zip(candidates, values[args.k][len(recall_candidates) :]):
            if abs(value - returned[variant, n_rep, c]) > 1e-9:
                mismatched.append((name, f"C={c}", value, returned[variant, n_rep, c]))
        if exact.size <= 2 * 10**7:  # cross-check with the package's one-call metric
            full = rows_of(0, exact.shape[0])
            for k in recall_ks:
                direct = exact_distance_speedup(exact.astype(np.float64), full, k=k, p=ps[-1])
                chunked = len(base) / distances_at(needed[name][k], ps[-1])
                if abs(direct - chunked) > 1e-9:
                    mismatched.append((name, f"speedup k={k}", direct, chunked))
            checked_speedup = True
    print(
        recall_item_table(
            recall,
            recall_candidates,
            title=f"Recall-item: top-k recall at C candidates by CGK Hamming "
            f"distance ({len(queries)} queries x {len(base)} base)",
        )
    )
    if mismatched:
        print(
            "Cross-check differences (package metric vs FilterRefineNeighbors / chunked "
            "computation):"
        )
        for name, what, metric_value, got in mismatched:
            print(f"  {name} {what}: package {metric_value:.4f}, measured {got:.4f}")
    else:
        print(
            f"Check: FilterRefineNeighbors' top-{args.k} recall equals recall_curve at every "
            f"C in {candidates}"
            + (
                " and the chunked speedups equal exact_distance_speedup on the full matrices."
                if checked_speedup
                else "."
            )
        )
    print()
    print(
        speedup_table(
            needed,
            len(base),
            recall_ks,
            ps,
            title="Exact distances needed for a share p of queries to get all k "
            "true neighbors, and speedup = n_base / that number",
        )
    )
    print(
        f"Speedup counts exact distances only (Lary 2022, s5.3); the wall-time ratio above "
        f"also pays for embedding and the Hamming scan. n_base = {len(base)}."
    )
    print()


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.worker:
        import json

        return side_worker(json.loads(args.worker))

    from sklearn_ed.datasets import load_genome_reads_benchmark

    start_time = time.perf_counter()
    candidates = parse_list(args.candidates)
    configs = [
        (variant, n_rep)
        for n_rep in parse_list(args.n_repetitions)
        for variant in parse_list(args.variants, str)
    ]
    print_header(
        "genome-reads-50k: brute force vs FilterRefineNeighbors + CGK",
        notes=[
            "each side runs in a fresh subprocess; NUMBA_NUM_THREADS = OMP threads = "
            f"n_jobs = {args.n_jobs} in every worker; wall time = time.perf_counter",
            "peak memory = kernel RSS high-water mark (VmHWM, reset through "
            "/proc/self/clear_refs right before the measured phase); '+RSS' = peak "
            "minus the RSS at the start of the phase (data and imports already loaded)",
            f"schedule: FR pass, then {args.repeats} x [brute force, FR pass]; times are "
            "medians over passes; ratio = brute-force time / FR time, both measured in "
            "this run",
        ],
    )
    progress("loading the benchmark")
    bench = load_genome_reads_benchmark(
        n_base=args.n_base,
        n_train=args.n_train,
        n_query=max(STANDARD_N_QUERY, args.n_query),
        random_state=args.random_state,
    )
    queries, base = bench.query[: args.n_query], bench.base
    lengths = np.array([len(read) for read in base])
    print(
        f"data    : {len(base)} base reads (length {lengths.min()}-{lengths.max()}, mean "
        f"{lengths.mean():.0f}), {len(queries)} queries = the first {len(queries)} of the "
        f"{len(bench.query)} standard queries; k = {args.k}; n_jobs = {args.n_jobs}"
    )
    print()

    workdir = tempfile.mkdtemp(prefix="bench_genome_")
    data_path = os.path.join(workdir, "data.pkl")
    with open(data_path, "wb") as file:
        pickle.dump({"query": queries, "base": base}, file, protocol=pickle.HIGHEST_PROTOCOL)
    brute_runs, fr_runs = _run_sides(args, configs, candidates, workdir, len(queries), len(base))
    exact = np.load(os.path.join(workdir, "brute_exact.npy"))
    returned = _wall_time_report(
        args, configs, candidates, queries, base, exact, brute_runs, fr_runs
    )
    _recall_report(args, configs, candidates, queries, base, exact, returned)
    if args.keep_workdir:
        print(f"worker outputs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    print_footer(start_time)


if __name__ == "__main__":
    main()
