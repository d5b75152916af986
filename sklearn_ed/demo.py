"""Quickstart: the defaults against exact brute force on simulated genome reads.

Run ``python -m sklearn_ed.demo`` (needs the ``datasets`` extra). It builds a
base of sequencing reads with 1-8 % errors from the GCF_001457455 genome
shipped with pyrodigal and finds the 10 nearest reads of each query under
edit distance with ``FilterRefineNeighbors(n_neighbors=10)`` at its defaults
(the embedder and the candidate count chosen at fit, with a recall
estimate). Its answer comes first; then exact brute force
(``rapidfuzz.process.cdist``) runs on a sample of the queries, which gives
the measured recall and, projected to every query, the speed-up.

Everything is seeded: the candidate count and the recall are the same on
every run; only the times vary with the machine.
"""

import argparse
import time

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein
from tqdm.auto import tqdm

from sklearn_ed import FilterRefineNeighbors
from sklearn_ed.datasets import load_genome_reads_benchmark

QUERY_BATCH = 5


def brute_force(queries, base, n_jobs):
    """Exact distances of every query to every base read, with a progress bar."""
    starts = range(0, len(queries), QUERY_BATCH)
    batches = [queries[start : start + QUERY_BATCH] for start in starts]
    blocks = [
        process.cdist(batch, base, scorer=Levenshtein.distance, workers=n_jobs)
        for batch in tqdm(batches, desc="brute force (rapidfuzz)", unit="batch", leave=False)
    ]
    return np.vstack(blocks)


def recall_of(indices, exact, k):
    """Share of returned neighbors within the true k-th distance (tie-aware)."""
    kth = np.partition(exact, k - 1, axis=1)[:, k - 1]
    return float((np.take_along_axis(exact, indices, axis=1) <= kth[:, None]).mean())


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-base", type=int, default=10_000)
    parser.add_argument("--n-query", type=int, default=500)
    parser.add_argument(
        "--n-checked", type=int, default=25, help="queries also answered by brute force"
    )
    parser.add_argument(
        "--genome-length",
        type=int,
        default=100_000,
        help="reads come from this many bp (10,000 reads: ~100x coverage)",
    )
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--n-jobs", type=int, default=2)
    return parser.parse_args(argv)


def main(argv=None):
    args = _parse(argv)
    data = load_genome_reads_benchmark(
        n_base=args.n_base, n_query=args.n_query, n_train=10, genome_length=args.genome_length
    )
    lengths = [len(read) for read in data.base]
    print(
        f"The {args.k} nearest reads (edit distance) of {len(data.query)} queries among "
        f"{len(data.base):,} reads of {min(lengths)}-{max(lengths)} bp, {args.n_jobs} jobs.\n"
    )

    search = FilterRefineNeighbors(n_neighbors=args.k, n_jobs=args.n_jobs, random_state=0)
    start = time.perf_counter()
    search.fit(data.base)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    indices = search.kneighbors(data.query, return_distance=False)
    query_seconds = time.perf_counter() - start
    print(f"sklearn-ed, FilterRefineNeighbors(n_neighbors={args.k}) with its defaults:")
    chosen = type(search.embedder_).__name__ if search.embedder_ is not None else "brute force"
    print(
        f"  fit      {fit_seconds:6.2f} s  chose {chosen} and "
        f"n_candidates_={search.n_candidates_}; estimated recall "
        f"{search.estimated_recall_:.3f} +/- {search.estimated_recall_se_:.3f}"
    )
    print(f"  queries  {query_seconds:6.2f} s  {len(data.query)} queries, exact distances\n")

    checked = data.query[: args.n_checked]
    start = time.perf_counter()
    exact = brute_force(checked, data.base, args.n_jobs)
    brute_seconds = time.perf_counter() - start
    projected = brute_seconds * len(data.query) / len(checked)
    print(f"Exact brute force (rapidfuzz.process.cdist) on the first {len(checked)} queries:")
    print(
        f"  {brute_seconds:.2f} s, projected {projected:.1f} s for all {len(data.query)}; "
        f"sklearn-ed's top-{args.k} recall on them: "
        f"{recall_of(indices[: len(checked)], exact, args.k):.3f}"
    )
    print(
        f"  speed-up: {projected / query_seconds:.0f}x for the queries, "
        f"{projected / (fit_seconds + query_seconds):.1f}x including the fit"
    )


if __name__ == "__main__":
    main()
