"""GPU against CPU on the same machine: CNN-ED inference and fit, GRU and triplet fits.

Every row runs the same estimator twice, ``device="cpu"`` and the device under
test (``cuda``), on the same data and seeds:

- CNN-ED ``transform`` of ``--n-reads`` simulated ~1 kbp reads
  (``make_genome_reads``): strings per second after a warm-up, and the peak
  GPU memory of the call; the CPU runs the numba lookup kernel, CUDA the
  ``embedding_bag`` form of the same affine network;
- CNN-ED ``fit`` with defaults on ``--fit-reads`` reads: wall time split into
  the training epochs (skorch's epoch durations) and everything else
  (training sample, exact distances, distance map), and the top-10 recall at
  C = 1 % of held-out reads against the fitted reads, so a faster fit is
  seen at the same recall;
- ``GRUEmbedder.fit``, three phases of one epoch, and
  ``TripletMinedEmbedder.fit`` on DTW random walks (MLP and 1-D conv);
- the search users run: ``FilterRefineNeighbors`` with a ``CNNEDEmbedder`` on
  each device, and with the defaults (q-gram filter, no network), fitted on
  ``--search-reads`` reads and asked the top 10 of ``--search-queries`` other
  reads: fit and query seconds, and the top-10 recall of the first
  ``--recall-queries`` queries against brute force (rapidfuzz, every core).

It also reports the encoding rate on its own (``sklearn_ed.io.
character_codes``: strings to one code per character), the CPU work both
transforms share.

Without a CUDA device it prints that no GPU is present and exits 0.

Run: python -m benchmarks.bench_gpu [--n-reads 200000] [--fit-reads 5000]
     [--search-reads 100000]
"""

import argparse
import time
import warnings

import numpy as np

from benchmarks._common import (
    format_table,
    print_footer,
    print_header,
    progress,
    returned_recall,
)


def _parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n-reads", type=int, default=200_000, help="reads embedded")
    parser.add_argument("--fit-reads", type=int, default=5_000, help="reads CNN-ED is fitted on")
    parser.add_argument("--n-queries", type=int, default=200, help="held-out reads for recall")
    parser.add_argument("--n-series", type=int, default=2_000, help="DTW series of the triplet fit")
    parser.add_argument("--gru-reads", type=int, default=1_000, help="reads the GRU is fitted on")
    parser.add_argument("--search-reads", type=int, default=100_000, help="base of the search")
    parser.add_argument("--search-queries", type=int, default=1_000, help="queries of the search")
    parser.add_argument(
        "--recall-queries", type=int, default=50, help="search queries checked by brute force"
    )
    parser.add_argument("--n-jobs", type=int, default=-1)
    # A smoke test on a machine without a GPU measures "cpu" against "cpu".
    parser.add_argument("--device", default="cuda", help=argparse.SUPPRESS)
    return parser


def _timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def _inference(args, device, reads, fitted):
    import torch

    embedder = fitted.set_params(device=device)
    embedder.transform(reads[:2_000])  # warm-up: kernels, table on the device
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    _, seconds = _timed(lambda: embedder.transform(reads))
    peak = torch.cuda.max_memory_allocated() / 2**20 if device.startswith("cuda") else None
    return len(reads) / seconds, peak


def _encoding_rate(reads):
    from sklearn_ed.io import character_codes

    character_codes(reads[:2_000])
    _, seconds = _timed(lambda: character_codes(reads))
    return len(reads) / seconds


def _searches(args, reads):
    """Fit and query seconds and top-10 recall of the search on each device and the defaults."""
    from sklearn_ed import CNNEDEmbedder, FilterRefineNeighbors
    from sklearn_ed.distances import pairwise_distances

    base, queries = reads[: args.search_reads], reads[-args.search_queries :]
    progress(f"brute force: {args.recall_queries} queries x {len(base)} reads")
    exact = pairwise_distances(queries[: args.recall_queries], base, n_jobs=args.n_jobs)
    embedders = {
        "cpu": lambda: CNNEDEmbedder(device="cpu", n_jobs=args.n_jobs, random_state=0),
        "gpu": lambda: CNNEDEmbedder(device=args.device, n_jobs=args.n_jobs, random_state=0),
        "defaults": lambda: "auto",
    }
    results = {}
    for side, embedder in embedders.items():
        progress(f"search with {side}")
        search = FilterRefineNeighbors(
            embedder(), n_neighbors=10, n_jobs=args.n_jobs, random_state=0
        )
        _, fit_seconds = _timed(lambda: search.fit(base))
        (distances, _), query_seconds = _timed(lambda: search.kneighbors(queries))
        recall = returned_recall(distances[: args.recall_queries], exact, 10)
        results[side] = (fit_seconds, query_seconds, recall)
        progress(f"{side}: fit {fit_seconds:.1f} s, queries {query_seconds:.2f} s, {recall=:.3f}")
    return results


def _search_rows(args, searches):
    rows = []
    for side, label in (("gpu", args.device), ("cpu", "cpu"), ("defaults", "defaults")):
        fit_seconds, query_seconds, recall = searches[side]
        rows.append([label, f"{fit_seconds:.1f}", f"{query_seconds:.2f}", f"{recall:.3f}"])
    return format_table(
        ["embedder", "fit s", "queries s", "top-10 recall"],
        rows,
        align="lrrr",
        title=(
            f"FilterRefineNeighbors(n_neighbors=10): {args.search_reads:,} reads, "
            f"{args.search_queries:,} queries, recall on {args.recall_queries} "
            "(CNNEDEmbedder on each device, and the defaults)"
        ),
    )


def _cnned_fit(args, device, train, queries, exact):
    from scipy.spatial.distance import cdist

    from sklearn_ed import CNNEDEmbedder
    from sklearn_ed.metrics import top_k_recall

    embedder = CNNEDEmbedder(device=device, n_jobs=args.n_jobs, random_state=0)
    _, seconds = _timed(lambda: embedder.fit(train))
    training = sum(entry["dur"] for entry in embedder.history_)
    embedded = cdist(embedder.transform(queries), embedder.transform(train))
    recall = top_k_recall(exact, embedded, k=10, n_candidates=max(10, len(train) // 100))
    return embedder, seconds, training, recall


def _other_fits(args, device, reads):
    from sklearn_ed import GRUEmbedder, TripletMinedEmbedder

    series = np.cumsum(np.random.default_rng(0).normal(size=(args.n_series, 100)), axis=1)
    gru = GRUEmbedder(device=device, epochs_per_phase=1, n_jobs=args.n_jobs, random_state=0)
    label = f"GRUEmbedder.fit, {args.gru_reads} reads, 3 phases x 1 epoch"
    times = {label: _timed(lambda: gru.fit(reads[: args.gru_reads]))[1]}
    for network in ("mlp", "conv1d"):
        triplet = TripletMinedEmbedder(
            metric="dtw", network=network, device=device, n_jobs=args.n_jobs, random_state=0
        )
        name = f"TripletMinedEmbedder.fit, {args.n_series} DTW series, {network}"
        times[name] = _timed(lambda: triplet.fit(series))[1]
    return times


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.search_reads + args.search_queries > args.n_reads:
        raise SystemExit("--search-reads plus --search-queries must not exceed --n-reads")
    start_time = time.perf_counter()
    import torch

    from sklearn_ed.datasets import make_genome_reads
    from sklearn_ed.distances import pairwise_distances

    present = torch.cuda.is_available() if args.device.startswith("cuda") else True
    name = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    print_header(
        f"GPU ({args.device}) against CPU on the same machine",
        notes=[f"CUDA device: {name}; torch {torch.__version__}; n_jobs={args.n_jobs}"],
    )
    if not present:
        print("No CUDA device is present on this machine: nothing to measure.")
        print_footer(start_time)
        return 0
    progress("simulating reads")
    reads = make_genome_reads(args.n_reads + args.n_queries, random_state=0).data
    queries, reads = reads[: args.n_queries], reads[args.n_queries :]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # over-long reads are truncated
        # Keyed by side, not by device name: a smoke test runs "cpu" against "cpu".
        sides = {"cpu": "cpu", "gpu": args.device}
        fits, speed, other = {}, {}, {}
        train = reads[: args.fit_reads]
        # The exact query-train distances the recall of both fits is measured on.
        exact = pairwise_distances(queries, train, n_jobs=args.n_jobs)
        for side, device in sides.items():
            progress(f"CNN-ED fit on {device}")
            fits[side] = _cnned_fit(args, device, train, queries, exact)
        for side, device in sides.items():
            progress(f"CNN-ED transform on {device}")
            speed[side] = _inference(args, device, reads, fits["cpu"][0])
        for side, device in sides.items():
            progress(f"GRU and triplet fits on {device}")
            other[side] = _other_fits(args, device, reads)
        encoding = _encoding_rate(reads)
    gpu, cpu = "gpu", "cpu"
    rows.append(
        [
            f"CNNEDEmbedder.transform, {len(reads)} reads (strings/s)",
            f"{speed[gpu][0]:,.0f}",
            f"{speed[cpu][0]:,.0f}",
            f"{speed[gpu][0] / speed[cpu][0]:.2f}x",
        ]
    )
    for label, index in (("total s", 1), ("training epochs s", 2)):
        rows.append(
            [
                f"CNNEDEmbedder.fit, {args.fit_reads} reads: {label}",
                f"{fits[gpu][index]:.1f}",
                f"{fits[cpu][index]:.1f}",
                f"{fits[cpu][index] / fits[gpu][index]:.2f}x",
            ]
        )
    rows.append(
        [
            f"CNNEDEmbedder.fit, {args.fit_reads} reads: outside the epochs s",
            f"{fits[gpu][1] - fits[gpu][2]:.1f}",
            f"{fits[cpu][1] - fits[cpu][2]:.1f}",
            "",
        ]
    )
    rows.append(
        [
            "CNN-ED top-10 recall at C = 1 % (held-out reads)",
            f"{fits[gpu][3]:.3f}",
            f"{fits[cpu][3]:.3f}",
            "",
        ]
    )
    for label in other[cpu]:
        rows.append(
            [
                f"{label} s",
                f"{other[gpu][label]:.1f}",
                f"{other[cpu][label]:.1f}",
                f"{other[cpu][label] / other[gpu][label]:.2f}x",
            ]
        )
    print(
        format_table(
            ["what", args.device, "cpu", "gain"],
            rows,
            align="lrrr",
            title="Same machine, same data and seeds (gain > 1: the GPU is faster)",
        )
    )
    if speed[gpu][1] is not None:
        print(f"peak GPU memory of the transform: {speed[gpu][1]:.0f} MiB")
    print(f"encoding alone (character_codes): {encoding:,.0f} strings/s")
    print()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        print(_search_rows(args, _searches(args, reads)))
    print()
    print_footer(start_time)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
