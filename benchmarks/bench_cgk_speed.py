"""Per-string cost of CGKEmbedder on one core: transform vs the numba kernel.

Random DNA strings (uniform over ACGT, all of the same length). For every
length and variant, one repeat measures, back to back and interleaved
across variants:

- encode          ``embedder.alphabet_.encode(strings)`` (str -> int32 symbols)
- kernel          ``sklearn_ed.embedding._cgk_kernels.cgk_embed`` on the pre-encoded
                  symbols, writing into a preallocated, already-touched
                  output (pure compute, no allocation)
- transform_symbols  the public uint8 output (what FilterRefineNeighbors uses)
- transform       the public float32 output (sklearn transformer contract)

NUMBA_NUM_THREADS=1 (and the BLAS/OpenMP thread counts) are set before any
import, so everything runs on one core. Times are wall time
(``time.perf_counter``); the table gives the minimum and the median over the
repeats in microseconds per string.

Usage::

    python -m benchmarks.bench_cgk_speed
    python -m benchmarks.bench_cgk_speed --lengths 1000 --n-strings 20000 --repeats 7
"""

import os

for _name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import argparse  # noqa: E402
import resource  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from benchmarks._common import (  # noqa: E402
    format_table,
    parse_list,
    print_footer,
    print_header,
    progress,
)

TARGET_US = 15.0
TARGET_LENGTH = 1000


def random_dna(n_strings, length, seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, size=(n_strings, length), dtype=np.uint8)
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)[codes]
    return [row.tobytes().decode("ascii") for row in letters]


def measure(function, n_strings):
    """Wall time and this thread's CPU time, in microseconds per string."""
    cpu_start, start = time.thread_time(), time.perf_counter()
    function()
    wall, cpu = time.perf_counter() - start, time.thread_time() - cpu_start
    return wall / n_strings * 1e6, cpu / n_strings * 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--lengths", default="100,1000,5000", help="string lengths (comma-separated)"
    )
    parser.add_argument(
        "--n-strings",
        default="20000,20000,4000",
        help="strings per length (comma-separated, one per length or one "
        "for all); 4,000 at length 5,000 keeps the float32 output at "
        "240 MB",
    )
    parser.add_argument("--variants", default="cgk,cgk_prime")
    parser.add_argument("--n-repetitions", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats per cell")
    parser.add_argument("--random-state", type=int, default=0)
    args = parser.parse_args(argv)

    lengths = parse_list(args.lengths)
    counts = parse_list(args.n_strings)
    if len(counts) == 1:
        counts = counts * len(lengths)
    if len(counts) != len(lengths):
        parser.error("--n-strings needs one value, or one per length")
    variants = parse_list(args.variants, str)

    from numba import config as numba_config

    from sklearn_ed import CGKEmbedder
    from sklearn_ed.embedding._cgk_kernels import cgk_embed, pack_walk_bits

    start_time = time.perf_counter()
    print_header(
        "CGKEmbedder per-string cost (one core)",
        notes=[
            f"NUMBA_NUM_THREADS={os.environ['NUMBA_NUM_THREADS']} set before import "
            f"(numba reports {numba_config.NUMBA_NUM_THREADS} thread(s)); "
            "OMP/OpenBLAS/MKL threads = 1",
            "random DNA strings (uniform ACGT), all of the given length; wall time "
            "(time.perf_counter) and thread CPU time (time.thread_time); min and median over "
            f"{args.repeats} repeats, variants interleaved within each repeat",
            "kernel = cgk_embed on pre-encoded symbols into a preallocated, touched "
            "output; transform_symbols = uint8 output; transform = float32 output",
        ],
    )

    rows = []
    summary = {}
    for length, n_strings in zip(lengths, counts):
        progress(f"length {length}: generating {n_strings} strings")
        strings = random_dna(n_strings, length, args.random_state)
        embedders, encoded, outputs, masks = {}, {}, {}, {}
        for variant in variants:
            embedder = CGKEmbedder(
                variant=variant, n_repetitions=args.n_repetitions, random_state=args.random_state
            ).fit(strings[:1000])
            embedder.transform(strings[:10])  # load the cached numba kernels
            embedders[variant] = embedder
            encoded[variant] = embedder.alphabet_.encode(strings)
            masks[variant] = pack_walk_bits(embedder.walk_bits_)
            outputs[variant] = np.zeros(
                (n_strings, embedder.n_features_out_), dtype=embedder._symbol_dtype()
            )
        times = {
            (variant, part): []
            for variant in variants
            for part in ("encode", "kernel", "transform_symbols", "transform")
        }
        for repeat in range(args.repeats):
            progress(f"length {length}: repeat {repeat + 1}/{args.repeats}")
            for variant in variants if repeat % 2 == 0 else variants[::-1]:
                embedder = embedders[variant]
                symbols, offsets = encoded[variant]
                out = outputs[variant]
                out.fill(0)
                truncated = variant == "cgk_prime"
                times[variant, "encode"].append(
                    measure(lambda: embedder.alphabet_.encode(strings), n_strings)
                )
                times[variant, "kernel"].append(
                    measure(
                        lambda: cgk_embed(
                            symbols, offsets, masks[variant], embedder.max_length_, truncated, out
                        ),
                        n_strings,
                    )
                )
                times[variant, "transform_symbols"].append(
                    measure(lambda: embedder.transform_symbols(strings), n_strings)
                )
                times[variant, "transform"].append(
                    measure(lambda: embedder.transform(strings), n_strings)
                )
        for variant in variants:
            embedder = embedders[variant]
            for part in ("encode", "kernel", "transform_symbols", "transform"):
                values = np.array(times[variant, part])  # (repeats, [wall, cpu])
                wall, cpu = values[:, 0], values[:, 1]
                summary[length, variant, part] = (wall.min(), np.median(wall), np.median(cpu))
                rows.append(
                    [
                        length,
                        n_strings,
                        variant,
                        embedder.n_features_out_,
                        part,
                        f"{wall.min():.2f}",
                        f"{np.median(wall):.2f}",
                        f"{np.median(cpu):.2f}",
                    ]
                )
        # Free this length's strings and outputs before the next length is drawn.
        strings = encoded = outputs = None

    headers = [
        "length",
        "n strings",
        "variant",
        "output dim",
        "part",
        "wall min",
        "wall median",
        "CPU median",
    ]
    print(format_table(headers, rows, align="rrlrlrrr", title="Microseconds per string (one core)"))
    print("wall = time.perf_counter; CPU = time.thread_time of the (only) working thread,")
    print("which excludes time the thread waited for a core on the shared machine.")
    print()
    if TARGET_LENGTH in lengths:
        print(
            f"Target: <= {TARGET_US:.0f} us per string of length {TARGET_LENGTH} "
            "(judged on the minimum wall time, the least disturbed by other jobs):"
        )
        for variant in variants:
            for part in ("kernel", "transform_symbols", "transform"):
                best, median, cpu = summary[TARGET_LENGTH, variant, part]
                verdict = "met" if best <= TARGET_US else "NOT met"
                print(
                    f"  {variant:<10} {part:<18} wall min {best:6.2f} us, median "
                    f"{median:6.2f}, CPU median {cpu:6.2f}  -> {verdict}"
                )
        print()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the whole run (ru_maxrss): {peak:.0f} MiB")
    print_footer(start_time)


if __name__ == "__main__":
    main()
