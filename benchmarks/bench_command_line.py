"""All-vs-all top-10 of simulated 1 kbp reads from a gzipped FASTQ: the
``sklearn-ed`` command line beside minimap2 (mappy) with an exact refine.

The reads: ``make_genome_reads`` over the whole bundled genome (2.46 Mbp;
lengths 900-1100 bp, 1-8 % errors), written as a gzipped FASTQ named
``read0``, ``read1``, ... (100,000 reads: about 40x coverage).

1. ``sklearn-ed knn reads.fq.gz -k 10 -t 2 -o ava.tsv``, every other option
   at its default, run as a user runs it (a child process; wall time and its
   peak resident memory from ``wait4``).
2. minimap2 through mappy: ``mappy.Aligner(reads.fq.gz, preset="ava-ont")``
   maps every read (2 threads); an overlap found in either direction makes
   each read a candidate of the other (minimap2 reports a pair once); the
   candidates are refined with the exact edit distance (rapidfuzz) to a
   top-10. Run in a child process of its own (peak memory: its ``VmHWM``).
3. Recall: on 200 reads drawn at random, rapidfuzz ``process.cdist`` gives
   the exact distances to every other read; a returned neighbor counts when
   its distance is at most the true 10th (ties counted), a missing one
   (fewer than 10 candidates) does not. Brute force for all reads is
   projected from the sample's time.
4. The TSV is read back with pandas into a sparse kNN graph (one row per
   read, 10 edges each) and checked against the file.

Run: ``python -m benchmarks.bench_command_line``
"""

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from benchmarks._common import (
    format_table,
    print_footer,
    print_header,
    progress,
    returned_recall,
    run_worker,
    worker_reply,
)
from benchmarks._suite import CACHE

K = 10


def make_reads(path, n_reads, seed):
    from sklearn_ed.datasets import load_genome, make_genome_reads
    from sklearn_ed.io import Records, write_sequences

    reads = make_genome_reads(n_reads, genome_length=len(load_genome()), random_state=seed).data
    names = [f"read{i}" for i in range(n_reads)]
    write_sequences(path, Records(names, reads, ["I" * len(read) for read in reads]))


def run_command(arguments):
    """Wall seconds and peak resident MiB of a child process."""
    started = time.perf_counter()
    child = subprocess.Popen(arguments, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(arguments)} failed")
    return time.perf_counter() - started, usage.ru_maxrss / 1024


def mappy_all_vs_all(spec):
    """The worker: minimap2 ava-ont candidates refined by exact edit distance."""
    import mappy
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cdist

    from sklearn_ed.io import read_sequences

    reads = read_sequences(spec["reads"]).sequences
    started = time.perf_counter()
    aligner = mappy.Aligner(spec["reads"], preset="ava-ont", n_threads=spec["threads"])
    indexed = time.perf_counter()

    def overlaps(rows):
        buffer = mappy.ThreadBuffer()
        return [[int(hit.ctg[4:]) for hit in aligner.map(reads[i], buf=buffer)] for i in rows]

    halves = np.array_split(np.arange(len(reads)), 64)
    with ThreadPoolExecutor(spec["threads"]) as pool:
        found = [hits for part in pool.map(overlaps, halves) for hits in part]
    candidates = [set() for _ in reads]
    for i, hits in enumerate(found):
        for j in hits:
            if j != i:
                candidates[i].add(j)
                candidates[j].add(i)
    mapped = time.perf_counter()

    def refine(i):
        ids = np.array(sorted(candidates[i]), dtype=np.int64)
        row = np.full(K, np.inf)
        if ids.size:
            exact = cdist([reads[i]], reads[ids], scorer=Levenshtein.distance)[0]
            order = np.lexsort((ids, exact))[:K]
            row[: order.size] = exact[order]
        return row

    with ThreadPoolExecutor(spec["threads"]) as pool:
        distances = np.array(list(pool.map(refine, range(len(reads)))))
    refined = time.perf_counter()
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
    worker_reply(
        {
            "index_s": indexed - started,
            "map_s": mapped - indexed,
            "refine_s": refined - mapped,
            "total_s": refined - started,
            "peak_mib": peak / 1024,
            "mean_candidates": float(np.mean([len(c) for c in candidates])),
            "sample_distances": distances[spec["sample"]].tolist(),
            "with_k": int(np.isfinite(distances).all(axis=1).sum()),
        }
    )


def read_graph(path, n_reads):
    """The TSV as a CSR kNN graph (rows: queries; values: distances)."""
    import pandas as pd
    from scipy.sparse import csr_matrix

    table = pd.read_csv(path, sep="\t")
    rows = table["query"].str.slice(4).astype(np.int64).to_numpy()
    columns = table["target"].str.slice(4).astype(np.int64).to_numpy()
    graph = csr_matrix((table["distance"].to_numpy(float), (rows, columns)), (n_reads,) * 2)
    return table, graph


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-reads", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        return mappy_all_vs_all(json.loads(args.worker))
    start = time.perf_counter()
    print_header(
        "The command line: all-vs-all top-10 of simulated reads from a gzipped FASTQ",
        notes=[f"{args.n_reads:,} reads, {args.threads} threads for every method"],
    )
    folder = CACHE / "command_line"
    folder.mkdir(parents=True, exist_ok=True)
    reads_path = folder / f"reads_{args.n_reads}_{args.seed}.fq.gz"
    if not reads_path.exists():
        progress(f"simulating {args.n_reads:,} reads")
        make_reads(reads_path, args.n_reads, args.seed)
    output = folder / "ava.tsv"
    script = os.path.join(os.path.dirname(sys.executable), "sklearn-ed")
    command = [script, "knn", str(reads_path), "-k", str(K), "-t", str(args.threads)]
    progress("sklearn-ed knn (all-vs-all)")
    ours_s, ours_mib = run_command([*command, "-o", str(output), "--force", "-q"])
    progress("minimap2 (mappy) all-vs-all + exact refine")
    rng = np.random.default_rng(args.seed)
    sample = np.sort(rng.choice(args.n_reads, args.sample, replace=False))
    spec = {"reads": str(reads_path), "threads": args.threads, "sample": sample.tolist()}
    theirs = run_worker("benchmarks.bench_command_line", spec, args.threads)

    progress(f"brute force on {args.sample} reads")
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cdist

    from sklearn_ed.io import read_sequences

    reads = read_sequences(reads_path).sequences
    brute_started = time.perf_counter()
    exact = cdist(reads[sample], reads, scorer=Levenshtein.distance, workers=args.threads)
    brute_s = (time.perf_counter() - brute_started) * args.n_reads / args.sample
    exact = exact.astype(np.float64)
    exact[np.arange(args.sample), sample] = np.inf

    table, graph = read_graph(output, args.n_reads)
    in_order = table["query"].to_numpy() == np.repeat([f"read{i}" for i in range(len(reads))], K)
    ours_distances = table["distance"].to_numpy(float).reshape(-1, K)[sample]
    theirs_distances = np.array(theirs["sample_distances"])
    rows = [
        [
            "sklearn-ed knn, every default",
            f"{ours_s:.0f}",
            f"{ours_mib:,.0f}",
            f"{returned_recall(ours_distances, exact, K):.3f}",
            f"{brute_s / ours_s:.1f}x",
        ],
        [
            "minimap2 ava-ont (mappy) + exact refine",
            f"{theirs['total_s']:.0f}",
            f"{theirs['peak_mib']:,.0f}",
            f"{returned_recall(theirs_distances, exact, K):.3f}",
            f"{brute_s / theirs['total_s']:.1f}x",
        ],
        ["rapidfuzz cdist brute force (projected)", f"{brute_s:.0f}", "", "1.000", "1.0x"],
    ]
    headers = ["method", "wall s", "peak MiB", f"top-{K} recall", "speed-up"]
    print(format_table(headers, rows, title=f"all-vs-all top-{K}, {args.n_reads:,} reads"))
    print()
    detail = [
        ["minimap2: index", f"{theirs['index_s']:.1f}"],
        ["minimap2: map every read", f"{theirs['map_s']:.1f}"],
        ["minimap2: exact refine", f"{theirs['refine_s']:.1f}"],
        ["minimap2: candidates per read (mean)", f"{theirs['mean_candidates']:.1f}"],
        ["minimap2: reads with >= 10 candidates", f"{theirs['with_k']:,}"],
    ]
    print(format_table(["minimap2 step", "value"], detail, title="where minimap2's time goes"))
    print()
    read_back = [
        ["rows in the TSV", f"{len(table):,}"],
        ["graph shape, edges", f"{graph.shape[0]:,} x {graph.shape[1]:,}, {graph.nnz:,}"],
        ["rows in read order, 10 per read", str(bool(in_order.all()))],
        ["reads with 10 neighbors", f"{int((table.groupby('query').size() == K).sum()):,}"],
        ["self pairs", f"{int((table['query'] == table['target']).sum())}"],
    ]
    print(format_table(["kNN graph read back", "value"], read_back, title="the TSV read back"))
    print()
    print_footer(start)


if __name__ == "__main__":
    main()
