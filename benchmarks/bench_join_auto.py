"""``method="auto"`` against the faster exact join method, timed side by side.

The matrix (``bench_matrix.py --part join``) runs each method in a process of
its own, one after the other: on a shared machine the load moves between
them, and the ratio of two methods' times there moves by 20-30 % from run to
run on joins of 0.05-0.5 s. This script times the methods of one cell in one
process, interleaved: ``similarity_join`` with ``method="auto"``,
``"partition"`` and ``"brute"``, and ``StringDeduplicator`` (``method="auto"``),
each ``--repeats`` times in a shuffled order per round, after an untimed
warm-up; the median of each is kept.

For every cell (base x metric x processor x threshold, the cells of the
suite's ``matrix_joins`` run) it prints auto's time over the faster of the
partition filter and brute force (``auto/best``), the milliseconds auto
spends beyond it, which method auto chose in each round, and the
deduplicator's time over auto's join (``dedup/join``). The partition filter
is timed once only where it is over ``SLOW_PARTITION`` times brute force
(several seconds on records under normalized Indel).

Run: python -m benchmarks.bench_join_auto [--n 10000] [--repeats 3]
"""

import argparse
import json
import logging
import time

import numpy as np

from benchmarks._common import format_table, print_footer, print_header, progress

METHODS = ("auto", "partition", "brute", "dedup")
# The partition filter this many times slower than brute force after one
# round is not timed again: one time shows it is not the best.
SLOW_PARTITION = 3.0


class _Choices(logging.Handler):
    """The methods ``method="auto"`` logged it chose."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.chosen = []

    def emit(self, record):
        message = record.getMessage()
        if "chose '" in message:
            self.chosen.append(message.split("chose '")[1].split("'")[0])


def _parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--bases", default="records,names,words")
    parser.add_argument("--n", type=int, default=10_000, help="strings per base")
    parser.add_argument("--metrics", default="levenshtein,normalized_levenshtein,normalized_indel")
    parser.add_argument("--processors", default="none,sort_tokens")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="write the cells here")
    return parser


def _timed_methods(strings, threshold, keywords, repeats, choices):
    from sklearn_ed import StringDeduplicator, similarity_join

    def run(method):
        if method == "dedup":
            return StringDeduplicator(threshold, **keywords).fit_predict(strings)
        return similarity_join(strings, threshold=threshold, method=method, **keywords)

    times = {method: [] for method in METHODS}
    chosen = []
    for round_ in range(repeats):
        for method in np.random.default_rng(round_).permutation(METHODS):
            if method == "partition" and round_ and _slow_partition(times):
                continue
            choices.chosen.clear()
            start = time.perf_counter()
            run(method)
            times[method].append(time.perf_counter() - start)
            if method == "auto":
                chosen += choices.chosen
    return {method: float(np.median(values)) for method, values in times.items()}, chosen


def _slow_partition(times):
    return times["partition"][0] > SLOW_PARTITION * min(times["brute"])


def _cells(args):
    from benchmarks._matrix_data import load_base
    from benchmarks._matrix_metrics import PROCESSORS, thresholds
    from sklearn_ed import similarity_join

    choices = _Choices()
    logger = logging.getLogger("sklearn_ed.join")
    logger.setLevel(logging.INFO)
    logger.addHandler(choices)
    for base in args.bases.split(","):
        strings = load_base(base, args.n)
        for metric in args.metrics.split(","):
            for processor in args.processors.split(","):
                keywords = dict(metric=metric, processor=PROCESSORS[processor], n_jobs=2)
                chosen_thresholds = thresholds(metric, strings)
                # Untimed: kernels compiled or loaded, modules imported.
                for method in ("partition", "brute"):
                    similarity_join(
                        strings[:1000], threshold=chosen_thresholds[0], method=method, **keywords
                    )
                progress(f"{base} {metric} {processor}")
                for threshold in chosen_thresholds:
                    seconds, chosen = _timed_methods(
                        strings, threshold, keywords, args.repeats, choices
                    )
                    yield dict(
                        base=base,
                        metric=metric,
                        processor=processor,
                        threshold=threshold,
                        seconds=seconds,
                        chosen=chosen,
                    )


def _row(cell):
    seconds = cell["seconds"]
    best = min(seconds["partition"], seconds["brute"])
    return [
        cell["base"],
        cell["metric"],
        cell["processor"],
        f"{cell['threshold']:g}",
        *(f"{seconds[method]:.3f}" for method in METHODS),
        f"{seconds['auto'] / best:.2f}" + ("!" if seconds["auto"] > 1.1 * best else ""),
        f"{1000 * (seconds['auto'] - best):.0f}",
        "".join(name[0] for name in cell["chosen"]),
        f"{seconds['dedup'] / seconds['auto']:.2f}",
    ]


def _summary(cells):
    ratios = [
        c["seconds"]["auto"] / min(c["seconds"]["partition"], c["seconds"]["brute"]) for c in cells
    ]
    dedup = [c["seconds"]["dedup"] / c["seconds"]["auto"] for c in cells]
    return [
        f"auto/best: median {np.median(ratios):.2f}, worst {max(ratios):.2f}; "
        f"above 1.1 in {sum(r > 1.1 for r in ratios)} of {len(cells)} cells, "
        f"above 1.2 in {sum(r > 1.2 for r in ratios)}",
        f"dedup/join: median {np.median(dedup):.2f}, worst {max(dedup):.2f}; "
        f"above 1.2 in {sum(r > 1.2 for r in dedup)} of {len(cells)} cells",
    ]


def main(argv=None):
    args = _parser().parse_args(argv)
    start_time = time.perf_counter()
    print_header(
        "method='auto' against the faster exact method, timed side by side",
        notes=[
            f"{args.n:,} strings per base; 2 threads; each method {args.repeats} times "
            "in one process, interleaved (median)",
            "auto/best: auto's time over the faster of partition and brute (!: over 1.1); "
            "chose: auto's choice in each round (p: partition, b: brute)",
        ],
    )
    cells = list(_cells(args))
    print(
        format_table(
            [
                "data",
                "metric",
                "proc",
                "threshold",
                *(f"{m} s" for m in METHODS),
                "auto/best",
                "+ms",
                "chose",
                "dedup/join",
            ],  # fmt: skip
            [_row(cell) for cell in cells],
            align="llll" + "r" * 8,
            title=f"Joins of {args.n:,} strings: auto, the two exact methods and the deduplicator",
        )
    )
    print()
    for line in _summary(cells):
        print(line)
    print()
    if args.json:
        with open(args.json, "w") as out:
            json.dump(cells, out, indent=1)
    print_footer(start_time)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
