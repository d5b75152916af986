"""CNN-ED fit on 5,000 genome reads with defaults: where the time goes, and the
recall of the two ways of finding the training neighbors.

Fits ``CNNEDEmbedder(random_state=seed, train_neighbors=mode)``, every other
parameter at its default (1,000 training reads drawn by neighborhoods, 50
epochs), on the 5,000 base reads of ``load_genome_reads_benchmark`` (the 5k
version of genome-reads-50k), for ``mode`` in ``"exact"`` (the paper: the
whole 1,000 x 1,000 exact matrix) and ``"auto"`` (here: top-k lists ranked
among q-gram candidates, exact distances only for the pairs used), and
``"auto"`` with ``batch_size=128`` (the paper's 64 triplets per step
doubled: the same triplets per epoch in half the steps), over several
seeds, since one seed's recall varies by several points. Each fit is split
into its phases: training sample, exact distances and top-k lists, training
epochs (skorch's epoch durations), net set-up, distance map, other.
Recall: top-10 of the held-out queries among the base reads at C = 1, 2 and
5 % of the base, against brute force.

The same fits run with the code of 0.1.0 (commit 7088c9d, the default when
the defaults issue was filed: the paper's lists, neighborhoods drawn by the
former sampler), extracted by ``git archive`` and run in a subprocess with
the same data, seeds and cores; this is the baseline of "halve the default
fit time". Outside a git checkout that row is skipped with a message.

Torch is imported and a small fit runs before any timing, so one-time import
and compilation costs (3.7 s measured in a first fit) are not counted.

Run: python -m benchmarks.bench_cnned_fit_time [--seeds 0,1,2,3,4,5 --n-query 100]
"""

import argparse
import functools
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time

import numpy as np

from benchmarks._common import (
    REPOSITORY,
    format_table,
    parse_list,
    print_footer,
    print_header,
    progress,
)

PERCENT = [1, 2, 5]
# Fits compared: the paper's lists, the default, and the default with batches
# of 128 triplets instead of 64 (the paper's), a candidate for a faster fit.
VARIANTS = {
    "exact": {"train_neighbors": "exact"},
    "auto": {"train_neighbors": "auto"},
    "auto, batch 128": {"train_neighbors": "auto", "batch_size": 128},
}
RELEASE = "0.1.0 default"
RELEASE_COMMIT = "7088c9d"
# Run inside the extracted 0.1.0 tree: a warm-up fit, then the timed fit; the
# embeddings come back in an .npz so the recall is computed as for the others.
RELEASE_FIT = """
import sys, time, numpy as np
tree, data, seed, out = sys.argv[1:]
sys.path.insert(0, tree)
import sklearn_ed
assert sklearn_ed.__file__.startswith(tree), sklearn_ed.__file__
from sklearn_ed import CNNEDEmbedder
arrays = np.load(data, allow_pickle=True)
base, query = list(arrays["base"]), list(arrays["query"])
CNNEDEmbedder(max_epochs=1, n_train=30, n_neighbors=5, random_state=0).fit(list(arrays["warm"]))
start = time.perf_counter()
embedder = CNNEDEmbedder(random_state=int(seed)).fit(base)
total = time.perf_counter() - start
epochs = sum(entry["dur"] for entry in embedder.history_)
np.savez(out, total=total, epochs=epochs, base=embedder.transform(base),
         query=embedder.transform(query))
"""
PHASES = ["sample", "distances and lists", "epochs", "net set-up", "distance map", "other"]


def _timed_phases(embedder):
    """Wrap the embedder's fit phases (instance attributes) to record their time."""
    seconds = {}

    def record(name, method):
        @functools.wraps(method)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - start

        return wrapper

    embedder._training_strings = record("sample", embedder._training_strings)
    embedder._top_k_triplets = record("sample+distances", embedder._top_k_triplets)
    embedder._fit_net = record("net", embedder._fit_net)
    embedder._fit_distance_map = record("distance map", embedder._fit_distance_map)
    return seconds


def _fit(train, params, seed):
    from sklearn_ed import CNNEDEmbedder

    embedder = CNNEDEmbedder(random_state=seed, **params)
    seconds = _timed_phases(embedder)
    start = time.perf_counter()
    embedder.fit(train)
    total = time.perf_counter() - start
    epochs = sum(entry["dur"] for entry in embedder.history_)
    phases = {
        "sample": seconds["sample"],
        "distances and lists": seconds["sample+distances"] - seconds["sample"],
        "epochs": epochs,
        "net set-up": seconds["net"] - epochs,
        "distance map": seconds["distance map"],
    }
    phases["other"] = total - sum(phases.values())
    return embedder, total, phases


def _release_tree(directory):
    """Extract the 0.1.0 sources into ``directory``; None outside a git checkout."""
    try:
        archive = subprocess.run(
            ["git", "archive", RELEASE_COMMIT, "sklearn_ed"],
            cwd=REPOSITORY,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"skipped {RELEASE}: git archive {RELEASE_COMMIT} failed ({error})")
        return None
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(directory, filter="data")
    return directory


def _release_fit(tree, data, seed):
    """Fit 0.1.0's default CNN-ED in a subprocess; its time and embeddings."""
    out = os.path.join(tree, f"fit_{seed}.npz")
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    subprocess.run(
        [sys.executable, "-c", RELEASE_FIT, tree, data, str(seed), out],
        cwd=tree,
        env=env,
        check=True,
    )
    with np.load(out) as fit:
        return float(fit["total"]), float(fit["epochs"]), fit["query"], fit["base"]


def _pairs_computed(embedder):
    known = ~np.isnan(np.asarray(embedder.train_distances_, dtype=np.float64))
    return int(np.triu(known, 1).sum())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="0,1,2,3,4,5")
    parser.add_argument("--n-query", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    seeds = parse_list(args.seeds)
    start_time = time.perf_counter()
    from scipy.spatial.distance import cdist

    from sklearn_ed import CNNEDEmbedder
    from sklearn_ed.datasets import load_genome_reads_benchmark, make_genome_reads
    from sklearn_ed.distances import pairwise_distances
    from sklearn_ed.metrics import recall_curve

    n_base = 5_000
    genome_length = 10 * (n_base + args.n_query + 1000)
    print_header(
        "CNN-ED fit time on 5,000 genome reads: phases and training neighbors",
        notes=[
            f"load_genome_reads_benchmark(n_base={n_base}, n_query={args.n_query}, "
            f"n_train=1000, genome_length={genome_length}, random_state=0); "
            "fitted on the base reads",
            "CNNEDEmbedder(random_state=seed, **variant), other parameters "
            f"default (n_jobs=None: every core); seeds {seeds}",
            "variants: " + "; ".join(f"{name}: {params}" for name, params in VARIANTS.items()),
            "torch imported and a small fit run before timing (one-time costs excluded)",
            f"{RELEASE}: CNNEDEmbedder(random_state=seed) of 0.1.0 (commit {RELEASE_COMMIT}, "
            "the default when the defaults issue was filed), same data, in a subprocess "
            "after its own warm-up fit",
        ],
    )
    bench = load_genome_reads_benchmark(
        n_base=n_base,
        n_query=args.n_query,
        n_train=1000,
        genome_length=genome_length,
        random_state=0,
    )
    base = np.asarray(bench.base, dtype=object)
    progress("warm-up fit")
    warm = make_genome_reads(60, read_length=(100, 120), genome_length=600, random_state=0).data
    CNNEDEmbedder(max_epochs=1, n_train=30, n_neighbors=5, random_state=0).fit(warm)
    progress("brute force")
    exact = pairwise_distances(bench.query, base, n_jobs=args.n_jobs)
    counts = [int(round(p / 100 * n_base)) for p in PERCENT]

    results = {mode: [] for mode in VARIANTS}
    for mode, params in VARIANTS.items():
        for seed in seeds:
            progress(f"fit {params}, seed {seed}")
            embedder, total, phases = _fit(base, params, seed)
            embedded = cdist(embedder.transform(bench.query), embedder.transform(base))
            recall = recall_curve(exact, embedded, k=10, n_candidates=counts)[1]
            results[mode].append(
                {
                    "seed": seed,
                    "resolved": embedder.train_neighbors_,
                    "total": total,
                    "phases": phases,
                    "pairs": _pairs_computed(embedder),
                    "recall": recall,
                }
            )
    with tempfile.TemporaryDirectory() as directory:
        tree = _release_tree(directory)
        if tree is not None:
            data = os.path.join(directory, "reads.npz")
            np.savez(
                data,
                base=base,
                query=np.asarray(bench.query, dtype=object),
                warm=np.asarray(warm, dtype=object),
            )
            results[RELEASE] = []
            for seed in seeds:
                progress(f"fit {RELEASE} ({RELEASE_COMMIT}), seed {seed}")
                total, epochs, query_rows, base_rows = _release_fit(tree, data, seed)
                recall = recall_curve(
                    exact, cdist(query_rows, base_rows), k=10, n_candidates=counts
                )[1]
                results[RELEASE].append(
                    {
                        "seed": seed,
                        "resolved": "exact",
                        "total": total,
                        "phases": {"epochs": epochs},
                        "pairs": None,
                        "recall": recall,
                    }
                )

    rows = []
    for mode in results:
        for run in results[mode]:
            pairs = "-" if run["pairs"] is None else f"{run['pairs']:,}"
            rows.append(
                [f"{mode} ({run['resolved']})", run["seed"], pairs]
                + [f"{value:.3f}" for value in run["recall"]]
            )
    print(
        format_table(
            ["variant (train_neighbors)", "seed", "exact pairs"]
            + [f"top-10 @{p}% (C={c})" for p, c in zip(PERCENT, counts)],
            rows,
            title="Recall of each fit",
        )
    )
    print()
    summary = []
    paper_total = np.mean([run["total"] for run in results["exact"]])
    release_total = np.mean([run["total"] for run in results.get(RELEASE, [{"total": np.nan}])])
    for mode in results:
        recalls = np.array([run["recall"] for run in results[mode]])
        totals = np.array([run["total"] for run in results[mode]])
        epochs = np.array([run["phases"]["epochs"] for run in results[mode]])
        outside = totals - epochs
        summary.append(
            [
                f"{mode} ({results[mode][0]['resolved']})",
                len(seeds),
                f"{np.mean(totals):.1f}",
                f"{np.mean(epochs):.1f}",
                f"{np.mean(outside):.1f}",
                f"{np.mean(outside / totals):.0%}",
                f"{paper_total / np.mean(totals):.2f}x",
                f"{release_total / np.mean(totals):.2f}x",
            ]
            + [
                f"{m:.3f} +/- {s:.3f}"
                for m, s in zip(recalls.mean(0), recalls.std(0, ddof=1) / np.sqrt(len(seeds)))
            ]
        )
    print(
        format_table(
            [
                "variant (train_neighbors)",
                "seeds",
                "fit s",
                "epochs s",
                "outside s",
                "outside share",
                "fit speed-up vs exact",
                f"fit speed-up vs {RELEASE}",
            ]
            + [f"top-10 @{p}%" for p in PERCENT],
            summary,
            title="Means over the seeds (recall: mean +/- standard error)",
        )
    )
    print()
    phase_rows = [
        [f"{mode} ({results[mode][0]['resolved']})"]
        + [f"{np.mean([run['phases'][p] for run in results[mode]]):.2f}" for p in PHASES]
        for mode in VARIANTS
    ]
    print(
        format_table(
            ["variant (train_neighbors)"] + [f"{p} s" for p in PHASES],
            phase_rows,
            title="Where a fit's time goes (means over the seeds)",
        )
    )
    print(
        "sample: neighborhood sampling of 1,000 of the 5,000 reads (q-gram profiles, "
        "exact refine); distances and lists: the exact training distances, the top-k "
        "lists and the triplets' pairs; net set-up: skorch/torch initialisation outside "
        "the epochs; other: validation, alphabet, padding, lookup table."
    )
    print()
    print_footer(start_time)


if __name__ == "__main__":
    main()
