"""Encoding strings for CNN-ED: the byte encoding against the code-point encoding it replaced.

Side by side in one process, on the same simulated ~1 kbp reads
(``make_genome_reads``, as ``bench_gpu``), repetitions alternating which side
runs first:

- encode: ``sklearn_ed.io.encode_symbols`` (chunks of Latin-1 bytes through a
  256-entry table, uint8 symbols) against the reference ``Alphabet.encode``
  (one join, one encode, int32 symbols), copied below from commit 43a30ee,
  in one call over every read; and ``character_codes``, the only encoding
  pass ``transform`` makes now (its kernels map codes to symbols as they read
  them), in one call and in the batches of 8,192 strings ``transform`` takes;
- the CPU work of a CUDA ``transform`` before anything crosses to the device:
  the reference encodes and builds int64 (symbol, position) indices with
  NumPy (``bag_indices``, 43a30ee); now it makes the codes only, the device
  builds the indices;
- ``CNNEDEmbedder.transform`` on the CPU (numba lookup kernel) against the
  43a30ee transform rebuilt from its reference encode and kernel.

Outputs are checked equal (encodings) or close (embeddings) before timing.

Run: python -m benchmarks.bench_cnned_encode [--n-reads 200000] [--repeats 3]
"""

import argparse
import os
import time
import warnings

import numpy as np
from numba import njit, prange

from benchmarks._common import format_table, print_footer, print_header, progress

# ---------------------------------------------------------------------------
# Reference: sklearn_ed at commit 43a30ee, copied verbatim (names prefixed), so
# the comparison stays possible after the library changes further.
REFERENCE_COMMIT = "43a30ee"
REFERENCE_UNKNOWN_SYMBOL = 1
REFERENCE_TRANSFORM_BATCH_SIZE = 8192


def reference_to_code_points(strings):
    """``sklearn_ed.utils._strings.to_code_points`` at 43a30ee."""
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    joined = "".join(strings)
    if joined.isascii():
        return np.frombuffer(joined.encode("ascii"), dtype=np.uint8), offsets
    return np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32), offsets


@njit(cache=True, nogil=True)
def reference_map_code_points(code_points, lookup):
    """``sklearn_ed.utils._strings.map_code_points`` at 43a30ee."""
    symbols = np.empty(code_points.shape[0], dtype=np.int32)
    for i in range(code_points.shape[0]):
        point = code_points[i]
        symbols[i] = lookup[point] if point < lookup.shape[0] else REFERENCE_UNKNOWN_SYMBOL
    return symbols


def reference_encode(alphabet, strings):
    """``Alphabet.encode`` at 43a30ee."""
    code_points, offsets = reference_to_code_points(strings)
    return reference_map_code_points(code_points, alphabet.lookup), offsets


@njit(parallel=True, cache=True, nogil=True, fastmath=True)
def reference_lookup_sum(symbols, offsets, table, bias, out):
    """``sklearn_ed.nn._kernels.lookup_sum`` at 43a30ee."""
    n = offsets.shape[0] - 1
    max_length = table.shape[1]
    d = table.shape[2]
    for i in prange(n):
        start = offsets[i]
        length = min(offsets[i + 1] - start, max_length)
        acc = bias.copy()
        for t in range(length):
            row = table[symbols[start + t], t]
            for j in range(d):
                acc[j] += row[j]
        for j in range(d):
            out[i, j] = acc[j]
    return out


def reference_bag_indices(symbols, offsets, max_length):
    """``sklearn_ed.nn._embedding_bag.bag_indices`` at 43a30ee."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    positions = np.arange(offsets[-1] - offsets[0], dtype=np.int64) - np.repeat(
        offsets[:-1] - offsets[0], lengths
    )
    kept = positions < max_length
    indices = symbols[offsets[0] : offsets[-1]][kept].astype(np.int64) * max_length
    indices += positions[kept]
    kept_lengths = np.minimum(lengths, max_length)
    bag_offsets = np.concatenate([[0], np.cumsum(kept_lengths)[:-1]]).astype(np.int64)
    return indices, bag_offsets


def reference_transform(embedder, X):
    """``CNNEDEmbedder.transform`` on the CPU at 43a30ee (affine network)."""
    from sklearn_ed.utils import check_string_lengths, check_strings

    strings = check_strings(X)
    check_string_lengths(strings, embedder.max_length_, embedder.on_long_string, "CNNEDEmbedder")
    table, bias = embedder._lookup_table()
    out = np.empty((len(strings), table.shape[2]), dtype=np.float32)
    for start in range(0, len(strings), REFERENCE_TRANSFORM_BATCH_SIZE):
        batch = strings[start : start + REFERENCE_TRANSFORM_BATCH_SIZE]
        symbols, offsets = reference_encode(embedder.alphabet_, batch)
        block = np.empty((len(batch), table.shape[2]), dtype=np.float32)
        out[start : start + len(batch)] = reference_lookup_sum(symbols, offsets, table, bias, block)
    return out


# ---------------------------------------------------------------------------
def _in_batches(function, strings):
    """``function`` on the batches ``transform`` embeds (the 43a30ee batch size)."""
    for start in range(0, len(strings), REFERENCE_TRANSFORM_BATCH_SIZE):
        function(strings[start : start + REFERENCE_TRANSFORM_BATCH_SIZE])


def _side_by_side(old, new, repeats):
    """Seconds of each side per repetition, alternating which runs first."""
    times = {"old": [], "new": []}
    for repeat in range(repeats):
        order = [("old", old), ("new", new)]
        for side, function in order if repeat % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            function()
            times[side].append(time.perf_counter() - start)
    return {side: np.array(values) for side, values in times.items()}


def _row(label, times, n_characters):
    old, new = np.median(times["old"]), np.median(times["new"])
    ratios = times["old"] / times["new"]
    return [
        label,
        f"{old:.3f}",
        f"{new:.3f}",
        f"{old / new:.2f}x",
        f"{ratios.min():.2f}-{ratios.max():.2f}x",
        f"{n_characters / new / 1e6:,.0f}",
    ]


def _parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n-reads", type=int, default=200_000, help="reads encoded")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each side")
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    start_time = time.perf_counter()
    from numba import get_num_threads

    from sklearn_ed import CNNEDEmbedder
    from sklearn_ed.datasets import make_genome_reads
    from sklearn_ed.io import character_codes, encode_symbols
    from sklearn_ed.utils import UNKNOWN_SYMBOL

    print_header(
        "Encoding strings for CNN-ED: byte codes against the 43a30ee code points",
        notes=[
            f"{args.n_reads} simulated reads (make_genome_reads, random_state=0); "
            f"medians of {args.repeats} runs per side, alternating which runs first, "
            "after an untimed call of each",
            f"numba threads: {get_num_threads()} "
            f"(NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'default')}); "
            f"reference: sklearn_ed at {REFERENCE_COMMIT}, copied into this script",
        ],
    )
    progress("simulating reads")
    reads = make_genome_reads(args.n_reads, random_state=0).data
    n_characters = sum(map(len, reads))
    progress("fitting a CNN-ED (1 epoch: the speed does not depend on the weights)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        embedder = CNNEDEmbedder(max_epochs=1, n_train=50, n_neighbors=10, random_state=0)
        embedder.fit(reads[:2000])
    alphabet, max_length = embedder.alphabet_, embedder.max_length_

    def old_encode():
        return reference_encode(alphabet, reads)

    def new_encode():
        return encode_symbols(reads, alphabet.lookup, UNKNOWN_SYMBOL)

    def new_codes():
        return character_codes(reads)

    progress("checking that the outputs agree")
    (old_symbols, old_offsets), (symbols, offsets) = old_encode(), new_encode()
    assert np.array_equal(old_symbols, symbols) and np.array_equal(old_offsets, offsets)
    del old_symbols, symbols
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reads beyond max_length are truncated alike
        old_out, new_out = reference_transform(embedder, reads), embedder.transform(reads)
    difference = float(np.abs(old_out - new_out).max() / np.abs(old_out).max())
    del old_out, new_out

    def old_device_work(batch):
        symbols, offsets = reference_encode(alphabet, batch)
        reference_bag_indices(symbols, offsets, max_length)

    rows = []
    progress("encode")
    encode_times = _side_by_side(old_encode, new_encode, args.repeats)
    rows.append(_row("encode (str -> symbols)", encode_times, n_characters))
    codes_times = _side_by_side(old_encode, new_codes, args.repeats)
    rows.append(_row("  now: character codes only", codes_times, n_characters))
    batch_times = _side_by_side(
        lambda: _in_batches(lambda batch: reference_encode(alphabet, batch), reads),
        lambda: _in_batches(character_codes, reads),
        args.repeats,
    )
    rows.append(_row("encode in transform's batches (8192 reads)", batch_times, n_characters))
    progress("CPU work of a CUDA transform")
    rows.append(
        _row(
            "CPU work of a cuda transform, in batches",
            _side_by_side(
                lambda: _in_batches(old_device_work, reads),
                lambda: _in_batches(character_codes, reads),
                args.repeats,
            ),
            n_characters,
        )
    )
    progress("CNNEDEmbedder.transform on the CPU")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows.append(
            _row(
                "CNNEDEmbedder.transform, CPU",
                _side_by_side(
                    lambda: reference_transform(embedder, reads),
                    lambda: embedder.transform(reads),
                    args.repeats,
                ),
                n_characters,
            )
        )
    print(
        format_table(
            [
                "what",
                f"{REFERENCE_COMMIT} s",
                "now s",
                "speedup",
                "per run",
                "M chars/s now",
            ],
            rows,
            align="lrrrrr",
            title=(
                f"{len(reads):,} reads, {n_characters / 1e6:.1f}M characters, "
                f"CNN-ED d={embedder.n_features_out_}, max_length {max_length}"
            ),
        )
    )
    print(
        f"{REFERENCE_COMMIT}: one join and one ASCII encode of all the strings, then int32 "
        "symbols: 6 bytes written per character (for cuda, then int64 indices built with "
        "NumPy); now: the strings joined and encoded as Latin-1 256K characters at a time, "
        "1 byte per character written beyond the cached chunk"
    )
    print(
        "speedup: of the medians; per run: the range of the ratios of the runs; "
        f"encodings equal; embeddings of the two transforms: max relative difference "
        f"{difference:.1e}"
    )
    print()
    print_footer(start_time)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
