"""spell-100k: exact brute force vs FilterRefineNeighbors + CGK on short words.

Queries are 1,000 codespell misspellings, the base the 100,000 most frequent
alphabetic English words of wordfreq (most frequent first). Sides, each in a
fresh Python process (``--worker``) so that its peak RSS is its own:

(a) brute force: ``rapidfuzz.process.cdist(queries, base,
    scorer=Levenshtein.distance, workers=n_jobs)`` plus the top-k selection
    (ties broken by base index = by frequency). Its nearest word is the
    spelling correction.
(b) ``FilterRefineNeighbors(CGKEmbedder(variant, n_repetitions,
    random_state=0), n_neighbors=k, n_candidates=C, filter_algorithm=...,
    n_jobs=n_jobs)``: one process per (variant, n_repetitions, filter) fits
    once, then runs ``kneighbors`` once per C; the kernel's RSS high-water
    mark is reset before each phase; no recall check at fit (C is fixed).
    ``filter_algorithm="brute"`` scans all embeddings (faiss flat index),
    ``"nndescent"`` searches a pynndescent graph.

Schedule (interleaved): brute force runs before every FR worker and once at
the end (it takes seconds); FR workers run ``--passes`` times, the order
reversed on odd passes. Times are medians; ratio = brute total / FR total.

Correction accuracy: the nearest base word (ties broken by frequency) equals
codespell's first correction.

Usage::

    python -m benchmarks.bench_spell
"""

import argparse
import json
import os
import pickle
import shutil
import tempfile
import time
import warnings

import numpy as np

from benchmarks._common import (
    INDEX_NAMES,
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
    parser.add_argument("--n-base", type=int, default=100_000)
    parser.add_argument("--n-query", type=int, default=1_000)
    parser.add_argument(
        "--n-train",
        type=int,
        default=1_000,
        help="train words of the benchmark (CGK needs no training)",
    )
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--k", type=int, default=10, help="n_neighbors")
    parser.add_argument("--candidates", default="100,1000,5000")
    parser.add_argument("--variants", default="cgk,cgk_prime")
    parser.add_argument("--n-repetitions", default="1,3")
    parser.add_argument("--filter-algorithm", default="brute", help="filter of the main FR sides")
    parser.add_argument(
        "--nndescent",
        default="cgk",
        help="variants (n_repetitions=1) also run once with "
        "filter_algorithm='nndescent'; "
        "empty to skip",
    )
    parser.add_argument("--passes", type=int, default=2, help="FR passes")
    parser.add_argument("--recall-candidates", default="10,100,500,1000,5000")
    parser.add_argument("--recall-k", default="1,10,50")
    parser.add_argument("--p", default="0.90,0.95,0.99")
    parser.add_argument("--random-state", type=int, default=0)
    parser.add_argument(
        "--keep-workdir", action="store_true", help="keep the temporary folder of worker outputs"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    return parser


def _describe(queries, base, args):
    """One line about the words and the queries."""
    base_lengths = np.array([len(word) for word in base])
    query_lengths = np.array([len(word) for word in queries])
    n_long = int((query_lengths > base_lengths.max()).sum())
    print(
        f"data    : {len(base)} base words (length {base_lengths.min()}-"
        f"{base_lengths.max()}, mean {base_lengths.mean():.1f}), {len(queries)} misspelled "
        f"queries (length {query_lengths.min()}-{query_lengths.max()}, mean "
        f"{query_lengths.mean():.1f}; {n_long} longer than the longest base word, which "
        f"CGK truncates); k = {args.k}; n_jobs = {args.n_jobs}"
    )
    print()


def _run_sides(args, configs, extra_configs, candidates, workdir):
    """Brute force and every FR configuration, interleaved, each in a fresh process."""
    script = __spec__.name  # the worker runs as python -m <this module>
    common = {"data": os.path.join(workdir, "data.pkl"), "n_jobs": args.n_jobs, "k": args.k}
    fr_runs = {config: [] for config in configs + extra_configs}
    brute_runs = []
    n_queries, n_base = args.n_query, args.n_base

    def brute():
        progress(f"brute force {len(brute_runs) + 1}: {n_queries} x {n_base}")
        out = os.path.join(workdir, "brute")
        brute_runs.append(run_worker(script, dict(common, side="brute", out=out), args.n_jobs))

    def fr(config, index):
        variant, n_rep, algorithm = config
        progress(f"FR pass {index}: {variant} x{n_rep} filter={algorithm}, C={candidates}")
        out = os.path.join(workdir, f"fr_{variant}_{n_rep}_{algorithm}")
        spec = dict(
            common,
            side="fr",
            variant=variant,
            n_repetitions=n_rep,
            candidates=candidates,
            filter_algorithm=algorithm,
            out=out,
        )
        reply = run_worker(script, spec, args.n_jobs)
        reply["out"] = out
        fr_runs[config].append(reply)

    for index in range(args.passes):
        for config in configs if index % 2 == 0 else configs[::-1]:
            brute()
            fr(config, index)
        if index == 0:
            for config in extra_configs:
                brute()
                fr(config, index)
    brute()

    return brute_runs, fr_runs


def _wall_time_report(args, bench, candidates, brute_runs, fr_runs, workdir):
    """Exact-distance facts, then wall time, recall, accuracy and memory per side.

    Returns the top-k recall of each (configuration, C) and the exact matrix.
    """
    queries, base = bench.query, bench.base
    exact = np.load(os.path.join(workdir, "brute_exact.npy"))
    brute_top = np.load(os.path.join(workdir, "brute_ind.npy"))
    brute_time = float(np.median([run["total_s"] for run in brute_runs]))
    brute_memory = brute_runs[-1]["memory"]
    correction = np.array(bench.query_correction, dtype=object)
    base_array = np.array(base, dtype=object)
    brute_accuracy = float(np.mean(base_array[brute_top[:, 0]] == correction))
    n_pairs = exact.size
    print(
        f"exact distances: per query, median true 1st / {args.k}th / 50th distance: "
        f"{np.median(kth_exact(exact, 1)):.0f} / {np.median(kth_exact(exact, args.k)):.0f}"
        f" / {np.median(kth_exact(exact, 50)):.0f}; queries whose minimal distance is "
        "shared by several words: "
        f"{int(((exact == kth_exact(exact, 1)[:, None]).sum(1) > 1).sum())}"
    )
    brute_list = ", ".join(f"{run['total_s']:.2f}" for run in brute_runs)
    print(
        f"brute force: {n_pairs} pairs in {brute_time:.2f} s (median of {len(brute_runs)} "
        f"runs: {brute_list} s) = {brute_time / n_pairs * 1e9 * args.n_jobs:.0f} ns per "
        f"pair per core"
    )
    print()

    headers = [
        "side",
        "C",
        "fit s",
        "query s",
        "total s",
        "brute/FR",
        "top-1 recall",
        f"top-{args.k} recall",
        "accuracy",
        "peak RSS MiB",
        "+RSS MiB",
    ]
    rows = [
        [
            "brute force (rapidfuzz cdist)",
            "-",
            "-",
            fmt_seconds(brute_time),
            fmt_seconds(brute_time),
            "1.00x",
            "1.000",
            "1.000",
            f"{brute_accuracy:.3f}",
            fmt_mib(brute_memory["peak_mib"]),
            fmt_mib(brute_memory["extra_mib"]),
        ]
    ]
    returned = {}
    wrong_distances = 0
    for config, runs in fr_runs.items():
        variant, n_rep, algorithm = config
        fit_s = float(np.median([run["fit_s"] for run in runs]))
        for n_candidates in candidates:
            key = str(n_candidates)
            query_s = float(np.median([run["queries"][key]["query_s"] for run in runs]))
            out = runs[-1]["out"]
            distances = np.load(f"{out}_C{n_candidates}_dist.npy")
            indices = np.load(f"{out}_C{n_candidates}_ind.npy")
            wrong_distances += int((np.take_along_axis(exact, indices, axis=1) != distances).sum())
            returned[config, n_candidates] = returned_recall(distances, exact, args.k)
            accuracy = float(np.mean(base_array[indices[:, 0]] == correction))
            memory = runs[-1]["queries"][key]["memory"]
            peak = max(memory["peak_mib"], runs[-1]["fit_memory"]["peak_mib"])
            extra = peak - runs[-1]["fit_memory"]["baseline_mib"]
            total = fit_s + query_s
            filter_name = INDEX_NAMES.get(runs[-1]["filter"], runs[-1]["filter"])
            label = f"FR {variant} x{n_rep} {filter_name} filter"
            rows.append(
                [
                    f"{label} (dim {runs[-1]['embedding_dim']})",
                    n_candidates,
                    fmt_seconds(fit_s),
                    fmt_seconds(query_s),
                    fmt_seconds(total),
                    fmt_ratio(brute_time / total),
                    f"{returned_recall(distances, exact, 1):.3f}",
                    f"{returned[config, n_candidates]:.3f}",
                    f"{accuracy:.3f}",
                    fmt_mib(peak),
                    fmt_mib(extra),
                ]
            )
    print(
        format_table(
            headers,
            rows,
            align="lrrrrrrrrrr",
            title=f"Wall time, recall, correction accuracy and peak memory "
            f"({len(queries)} queries, {len(base)} base words, "
            f"n_jobs={args.n_jobs})",
        )
    )
    print(
        "accuracy = the returned nearest word equals codespell's correction (brute force: "
        "ties broken by frequency; FR: ties broken by base index = frequency, among the "
        "candidates)."
    )
    print(
        "Recall is tie-aware: a returned neighbor counts if its exact distance <= the "
        f"query's true k-th distance. Returned distances vs the exact matrix: "
        f"{wrong_distances} mismatches. FR total = fit + kneighbors; FR peak RSS = max "
        "over fit and this C's kneighbors; +RSS = that peak minus the RSS before fit."
    )
    for config, runs in fr_runs.items():
        fits = ", ".join(fmt_seconds(run["fit_s"]) for run in runs)
        last = str(candidates[-1])
        queries_s = ", ".join(fmt_seconds(run["queries"][last]["query_s"]) for run in runs)
        warm = ", ".join(fmt_seconds(run["warmup_s"]) for run in runs)
        print(
            f"  runs of FR {config[0]} x{config[1]} filter={config[2]}: fit {fits} s; "
            f"query at C={last}: {queries_s} s; untimed warm-up {warm} s"
        )
    notes = sorted({w for runs in fr_runs.values() for run in runs for w in run["warnings"]})
    for note in notes:
        print(f"  warning seen in FR: {note}")
    print()

    return returned, exact


def _recall_report(args, configs, candidates, queries, base, exact, returned):
    """Recall-item and exact-distance speedup tables of the CGK embeddings."""
    from sklearn_ed.metrics import exact_distance_speedup

    recall_candidates = parse_list(args.recall_candidates)
    recall_ks = parse_list(args.recall_k)
    ps = parse_list(args.p, float)
    progress("recall-item and speedup tables")
    recall, needed, mismatched = {}, {}, []
    for variant, n_rep, algorithm in configs:
        name = f"{variant} x{n_rep}"
        if name in recall:
            continue
        rows_of = _embedding_rows(variant, n_rep, queries, base)
        all_ks = sorted(set(recall_ks) | {args.k})
        values, by_k = recall_and_needed(exact, rows_of, all_ks, recall_candidates + candidates)
        recall[name] = {k: values[k][: len(recall_candidates)] for k in recall_ks}
        needed[name] = {k: by_k[k] for k in recall_ks}
        if algorithm == "brute":
            for c, value in zip(candidates, values[args.k][len(recall_candidates) :]):
                got = returned[(variant, n_rep, algorithm), c]
                if abs(value - got) > 1e-9:
                    mismatched.append((name, f"C={c}", value, got))
        if exact.size <= 2 * 10**7:
            full = rows_of(0, exact.shape[0])
            for k in recall_ks:
                direct = exact_distance_speedup(exact.astype(np.float64), full, k=k, p=ps[-1])
                chunked = len(base) / distances_at(needed[name][k], ps[-1])
                if abs(direct - chunked) > 1e-9:
                    mismatched.append((name, f"speedup k={k}", direct, chunked))
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
            f"Check: FilterRefineNeighbors' top-{args.k} recall (brute filter) equals "
            "recall_curve at every C."
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
        "Speedup counts exact distances only (Lary 2022, s5.3); the wall-time ratio above "
        f"also pays for embedding and the Hamming scan. n_base = {len(base)}."
    )
    print()


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.worker:
        return side_worker(json.loads(args.worker))

    from sklearn_ed.datasets import load_spell_benchmark

    start_time = time.perf_counter()
    candidates = parse_list(args.candidates)
    configs = [
        (variant, n_rep, args.filter_algorithm)
        for n_rep in parse_list(args.n_repetitions)
        for variant in parse_list(args.variants, str)
    ]
    extra_configs = [(variant, 1, "nndescent") for variant in parse_list(args.nndescent, str)]
    print_header(
        "spell-100k: brute force vs FilterRefineNeighbors + CGK",
        notes=[
            "each side runs in a fresh subprocess; NUMBA_NUM_THREADS = OMP threads = "
            f"n_jobs = {args.n_jobs} in every worker; wall time = time.perf_counter",
            "peak memory = kernel RSS high-water mark (VmHWM, reset through "
            "/proc/self/clear_refs right before the measured phase); '+RSS' = peak "
            "minus the RSS at the start of the phase (data and imports already loaded)",
            f"schedule: brute force before every FR worker and at the end; {args.passes} "
            "FR passes (order reversed on odd passes); NNDescent workers once, in the "
            "middle; times are medians; ratio = brute-force time / FR time, both "
            "measured in this run",
        ],
    )
    progress("loading the benchmark")
    bench = load_spell_benchmark(
        n_base=args.n_base,
        n_query=args.n_query,
        n_train=args.n_train,
        random_state=args.random_state,
    )
    _describe(bench.query, bench.base, args)
    workdir = tempfile.mkdtemp(prefix="bench_spell_")
    data_path = os.path.join(workdir, "data.pkl")
    with open(data_path, "wb") as file:
        pickle.dump(
            {"query": list(bench.query), "base": list(bench.base)},
            file,
            protocol=pickle.HIGHEST_PROTOCOL,
        )
    brute_runs, fr_runs = _run_sides(args, configs, extra_configs, candidates, workdir)
    returned, exact = _wall_time_report(args, bench, candidates, brute_runs, fr_runs, workdir)
    _recall_report(args, configs, candidates, bench.query, bench.base, exact, returned)
    if args.keep_workdir:
        print(f"worker outputs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    print_footer(start_time)


if __name__ == "__main__":
    main()
