"""CNN-ED inference speed and streaming memory (CPU).

Compares, side by side in one process on the same weights:
- lookup: ``CNNEDEmbedder.transform`` (affine network as a table, numba
  gather-and-add per character, no one-hot tensor, no convolution);
- torch table: ``module.forward_table`` (the same table form with torch's
  ``embedding_bag``, the training path);
- dense: the straightforward path, a dense one-hot tensor (N, |A|, M) through
  the Conv1d/AvgPool1d stack (``module.forward_one_hot``), batches of 512.
Then ``transform`` of ``--n-stream`` strings in a fresh process, with the
kernel's peak-RSS high-water mark.

Run: python -m benchmarks.bench_cnned_speed [--n-stream 1000000]
"""

import argparse
import os
import sys
import time

import numpy as np

from benchmarks._common import PeakRSS, format_table, print_footer, print_header, progress


def reads(n, rng, genome, length=(900, 1100)):
    lengths = rng.integers(length[0], length[1] + 1, size=n)
    starts = rng.integers(0, len(genome) - length[1], size=n)
    return [genome[start : start + size] for start, size in zip(starts, lengths)]


def fitted_embedder(strings):
    import warnings

    from sklearn_ed import CNNEDEmbedder

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # Speed does not depend on the weights: a short fit gives real shapes.
        return CNNEDEmbedder(max_epochs=1, n_train=50, n_neighbors=10, random_state=0).fit(strings)


def timed(function, repeats=3):
    function()  # warm-up (numba load, table build, torch init)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-strings", type=int, default=20_000)
    parser.add_argument("--n-dense", type=int, default=2_048)
    parser.add_argument("--n-stream", type=int, default=1_000_000)
    args = parser.parse_args()
    start_time = time.perf_counter()
    import torch

    from sklearn_ed.datasets import load_genome
    from sklearn_ed.nn import torch_threads

    print_header(
        "CNN-ED inference speed (CPU) and streaming memory",
        notes=[
            f"torch {torch.__version__}, {torch.get_num_threads()} torch threads, "
            f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'default')}",
            "DNA reads: random substrings of length 900-1100 of the GCF_001457455 genome",
            "default CNNEDEmbedder (d=128, 8 layers, 8 channels, avg pooling, no activation, "
            "per-character input); times are medians of 3 runs after a warm-up",
        ],
    )
    rng = np.random.default_rng(0)
    genome = load_genome()[:500_000]
    data = reads(args.n_strings, rng, genome)
    embedder = fitted_embedder(data[:2000])
    module = embedder.module_
    progress("lookup")
    lookup_s = timed(lambda: embedder.transform(data))
    dense_data = data[: args.n_dense]
    padded = torch.from_numpy(embedder._pad(dense_data))

    def torch_path(method):
        def run():
            with torch_threads(), torch.inference_mode():
                for start in range(0, len(padded), 512):
                    batch = padded[start : start + 512]
                    if method == "dense":
                        module.forward_one_hot(module.one_hot(batch))
                    else:
                        module.forward_table(batch)

        return run

    progress("dense")
    dense_s = timed(torch_path("dense"))
    progress("torch table")
    table_s = timed(torch_path("table"))
    check = embedder.transform(dense_data[:256])
    with torch.inference_mode():
        reference = module.forward_one_hot(module.one_hot(padded[:256])).numpy()
    error = float(np.abs(check - reference).max() / np.abs(reference).max())
    rows = [
        [
            "lookup (transform, numba)",
            len(data),
            f"{lookup_s:.3f}",
            f"{len(data) / lookup_s:,.0f}",
            f"{(dense_s / len(dense_data)) / (lookup_s / len(data)):.1f}x",
        ],
        [
            "torch table (embedding_bag)",
            len(dense_data),
            f"{table_s:.3f}",
            f"{len(dense_data) / table_s:,.0f}",
            f"{dense_s / table_s:.1f}x",
        ],
        [
            "dense one-hot + Conv1d stack",
            len(dense_data),
            f"{dense_s:.3f}",
            f"{len(dense_data) / dense_s:,.0f}",
            "1.0x",
        ],
    ]
    print(
        format_table(
            ["path", "strings", "seconds", "strings/s", "vs dense"],
            rows,
            title=f"Inference, max_length {embedder.max_length_}",
        )
    )
    print(f"max relative difference lookup vs dense on 256 strings: {error:.2e}")
    print()
    progress(f"streaming {args.n_stream} strings")
    stream = reads(args.n_stream, rng, genome)
    input_mib = sum(map(sys.getsizeof, stream)) / 2**20
    with PeakRSS() as memory:
        start = time.perf_counter()
        out = embedder.transform(stream)
        stream_s = time.perf_counter() - start
    output_mib = out.nbytes / 2**20
    print(
        format_table(
            [
                "strings",
                "seconds",
                "strings/s",
                "input MiB",
                "output MiB",
                "+RSS MiB",
                "+RSS - output MiB",
            ],
            [
                [
                    len(stream),
                    f"{stream_s:.1f}",
                    f"{len(stream) / stream_s:,.0f}",
                    f"{input_mib:.0f}",
                    f"{output_mib:.0f}",
                    f"{memory.extra:.0f}",
                    f"{memory.extra - output_mib:.0f}",
                ]
            ],
            title="transform of many strings (streams in batches of 8192 into one output array)",
        )
    )
    print(
        f"peak memory: {memory.method}; +RSS = peak during transform minus RSS before it "
        "(the input strings already exist)."
    )
    print()
    print_footer(start_time)


if __name__ == "__main__":
    main()
