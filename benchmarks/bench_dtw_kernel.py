"""DTW kernel speed on one core, side by side with tslearn's numba DTW.

Both compute the same quantity: the square root of the smallest sum of
squared (multivariate: squared Euclidean) differences along a warping path,
optionally inside a Sakoe-Chiba band of radius r (|i - j| <= r). Values are
checked to agree (rtol 1e-9) before timing.

Rows:

- pair kernel   ``sklearn_ed.distances.metrics._dtw_kernels.dtw_pair`` vs tslearn's
                ``_njit_dtw`` (the numba function behind ``tslearn.metrics.dtw``:
                band mask + full accumulated matrix), on one pair, no Python
                validation in either.
- matrix        public APIs on a set of series:
                ``sklearn_ed.distances.pairwise_distances(X, Y, metric, n_jobs=1)``
                vs ``tslearn.metrics.cdist_dtw(X, Y, n_jobs=1)`` (validation,
                packing and the loop over pairs included).

NUMBA_NUM_THREADS=1 and BLAS/OpenMP threads = 1, set before any import.
Wall time (``time.perf_counter``), minimum over the repeats, interleaved;
the ratio is tslearn / sklearn_ed (> 1: sklearn_ed faster). Target: ratio
>= 1/1.2 (within 1.2x of tslearn, or faster).

Usage::

    python -m benchmarks.bench_dtw_kernel
    python -m benchmarks.bench_dtw_kernel --lengths 100,500 --repeats 5
"""

import os

for _name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import argparse  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from benchmarks._common import (  # noqa: E402
    format_table,
    parse_list,
    print_footer,
    print_header,
    progress,
)


def _best(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", default="100,300,1000")
    parser.add_argument("--channels", default="1,3")
    parser.add_argument("--windows", default="none,0.1", help="band as a fraction of the length")
    parser.add_argument("--set-size", type=int, default=40, help="series per side of the matrix")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    import tslearn
    from tslearn.metrics import cdist_dtw
    from tslearn.metrics._dtw import GLOBAL_CONSTRAINT_CODE, _njit_dtw

    from sklearn_ed.distances import make_dtw_metric, pairwise_distances
    from sklearn_ed.distances.metrics._dtw_kernels import dtw_pair

    start_time = time.perf_counter()
    print_header(
        "DTW kernel: sklearn_ed vs tslearn (numba), one core",
        notes=[
            f"tslearn {tslearn.__version__}; NUMBA_NUM_THREADS=1, BLAS/OpenMP threads = 1",
            "random-walk series (seed 0); wall time, min over repeats; ratio = tslearn / "
            "sklearn_ed (> 1 means sklearn_ed is faster); band radius r = ceil(window * length)",
        ],
    )
    rng = np.random.RandomState(0)
    rows = []
    ratios = []
    for length in parse_list(args.lengths):
        for channels in parse_list(args.channels):
            n = args.set_size if length <= 300 else max(4, args.set_size // 4)
            X = np.cumsum(rng.normal(size=(n, length, channels)), axis=1)
            Y = np.cumsum(rng.normal(size=(n, length, channels)), axis=1)
            for window_text in args.windows.split(","):
                window = None if window_text == "none" else float(window_text)
                radius = length if window is None else int(math.ceil(window * length))
                constraint = GLOBAL_CONSTRAINT_CODE[None if window is None else "sakoe_chiba"]
                tsl_radius = None if window is None else radius
                metric = make_dtw_metric(window)
                tsl_kwargs = (
                    {}
                    if window is None
                    else {"global_constraint": "sakoe_chiba", "sakoe_chiba_radius": radius}
                )
                x, y = np.ascontiguousarray(X[0]), np.ascontiguousarray(Y[0])
                ours = dtw_pair(x, y, radius, np.inf)
                theirs = _njit_dtw(x, y, constraint, tsl_radius, None)
                np.testing.assert_allclose(ours, theirs, rtol=1e-9)
                ours_series = [s.T for s in X]  # sklearn_ed: (channels, length)
                ours_y = [s.T for s in Y]
                ours_matrix = pairwise_distances(ours_series, ours_y, metric=metric, n_jobs=1)
                theirs_matrix = cdist_dtw(X, Y, n_jobs=1, **tsl_kwargs)
                np.testing.assert_allclose(ours_matrix, theirs_matrix, rtol=1e-9)
                progress(f"length {length}, channels {channels}, window {window_text}")
                pair_ours = pair_theirs = matrix_ours = matrix_theirs = np.inf
                for _ in range(args.repeats):  # interleaved
                    pair_ours = min(pair_ours, _best(lambda: dtw_pair(x, y, radius, np.inf), 3))
                    pair_theirs = min(
                        pair_theirs, _best(lambda: _njit_dtw(x, y, constraint, tsl_radius, None), 3)
                    )
                    matrix_ours = min(
                        matrix_ours,
                        _best(
                            lambda: pairwise_distances(
                                ours_series, ours_y, metric=metric, n_jobs=1
                            ),
                            1,
                        ),
                    )
                    matrix_theirs = min(
                        matrix_theirs, _best(lambda: cdist_dtw(X, Y, n_jobs=1, **tsl_kwargs), 1)
                    )
                n_pairs = n * n
                for part, t_ours, t_theirs, pairs in (
                    ("pair kernel", pair_ours, pair_theirs, 1),
                    (f"matrix {n}x{n}", matrix_ours, matrix_theirs, n_pairs),
                ):
                    ratio = t_theirs / t_ours
                    ratios.append(ratio)
                    rows.append(
                        [
                            length,
                            channels,
                            window_text,
                            part,
                            f"{1e6 * t_ours / pairs:.1f}",
                            f"{1e6 * t_theirs / pairs:.1f}",
                            f"{ratio:.2f}",
                        ]
                    )
    print(
        format_table(
            [
                "length",
                "channels",
                "window",
                "part",
                "sklearn_ed us/pair",
                "tslearn us/pair",
                "ratio",
            ],
            rows,
            title="Microseconds per DTW distance (one core)",
            align="rrrlrrr",
        )
    )
    worst = min(ratios)
    verdict = "met" if worst >= 1 / 1.2 else "NOT met"
    print(
        f"worst ratio {worst:.2f}; target (sklearn_ed within 1.2x of tslearn, ratio >= 0.83): "
        f"{verdict}"
    )
    print_footer(start_time)


if __name__ == "__main__":
    main()
