"""CNN-ED vs CGK per dataset: recall-item, approximation error, speedup.

Datasets (``--dataset``), the standard configurations of DESIGN.md:

- ``genome``: ``load_genome_reads_benchmark(n_base, n_query, n_train=1000,
  genome_length)`` (default: genome-reads-50k, 500,000 bp; with a smaller
  ``--n-base`` the genome is scaled to keep the ~100x coverage).
- ``proteins``: ``load_protein_benchmark()`` (200 train / 200 queries /
  1,700 base); CNN-ED ``max_length`` = 99th percentile of the base lengths
  (longer strings are truncated by the embedder, the exact metric always
  sees the full strings).
- ``words``: ``load_spell_benchmark()`` (100,000 wordfreq words, 1,000
  codespell misspellings as queries, 1,000 base words to train on).

Queries are subsampled to ``--n-query`` (seeded) where the loader gives more.
Exact query-base distances by rapidfuzz brute force (timed; ``--cache DIR``
stores them with their time and reuses them on the next run). CNN-ED
(defaults, ``random_state=0``) is fitted on the base, as a user fits it on
the data they index (``--fit-on train``: on the loader's train set, the
setting of the earlier reports): it draws its ``n_train=1000`` training
strings from it with the default ``train_sampling="neighborhoods"``;
"CNN-ED uniform" is the same with ``train_sampling="uniform"`` (the paper's
uniform sample); "CNN-ED untrained" is the network with 0 epochs; CGK is
``CGKEmbedder(random_state=0)`` fitted on the base. Fit times include the
exact training matrix of the drawn strings.

Approximation error (Dai et al. 2020, Table 2): mean |g(d_emb) - d_E| / d_E, g fitted
on the pairs of the loader's train set, a uniform sample held out from the
base (linear for CNN-ED, quadratic for CGK), evaluated (a) on
all query-base pairs and (b) on each query's exact top-100 base items only
(near pairs, the ones a search cares about).

``--filter-refine``: also ``FilterRefineNeighbors(CNNEDEmbedder(n_train=1000,
...), n_neighbors=10, filter_algorithm="brute")`` fitted on the base (it
clones and trains its embedder on 1,000 base strings drawn as neighborhoods:
fit timed), the
smallest C of a grid whose top-10 recall of the returned neighbors is
>= 0.95, and ``kneighbors`` timed at that C against the brute force.

Run: python -m benchmarks.bench_cnned_recall --dataset genome [--n-base 50000 --n-query 100]
"""

import argparse
import os
import time
import warnings

import numpy as np

from benchmarks._common import (
    distances_at,
    format_table,
    print_footer,
    print_header,
    progress,
    recall_and_needed,
    returned_recall,
)

CANDIDATES_PERCENT = [0.1, 0.2, 0.5, 1, 2, 5, 10]
NEAR = 100


def load_dataset(args):
    from sklearn_ed import datasets

    if args.dataset == "genome":
        n_base = args.n_base or 50_000
        genome_length = 500_000 if n_base == 50_000 else 10 * (n_base + args.n_query + 1000)
        bench = datasets.load_genome_reads_benchmark(
            n_base=n_base,
            n_query=args.n_query,
            n_train=1000,
            genome_length=genome_length,
            random_state=0,
        )
        call = (
            f"load_genome_reads_benchmark(n_base={n_base}, n_query={args.n_query}, "
            f"n_train=1000, genome_length={genome_length}, random_state=0)"
        )
    elif args.dataset == "proteins":
        bench = datasets.load_protein_benchmark()
        call = "load_protein_benchmark() (200 train / 200 queries / rest base)"
    else:
        bench = datasets.load_spell_benchmark(**({"n_base": args.n_base} if args.n_base else {}))
        call = f"load_spell_benchmark({f'n_base={args.n_base}' if args.n_base else ''})"
    train = np.array(bench.train, dtype=object)
    base = np.array(bench.base, dtype=object)
    query = np.array(bench.query, dtype=object)
    if len(query) > args.n_query:
        keep = np.sort(np.random.default_rng(0).choice(len(query), args.n_query, replace=False))
        query = query[keep]
        call += f", {args.n_query} of its queries (numpy default_rng(0))"
    return train, query, base, call


def _parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", choices=["genome", "proteins", "words"], default="genome")
    parser.add_argument("--n-base", type=int, default=None)
    parser.add_argument("--n-query", type=int, default=100)
    parser.add_argument("--max-epochs", type=int, default=50)
    parser.add_argument(
        "--max-length",
        type=int,
        default=None,
        help="CNN-ED padding length (default: genome 1120, proteins 99th "
        "percentile of base lengths, words longest string)",
    )
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--filter-refine", action="store_true")
    parser.add_argument(
        "--fit-on",
        choices=["base", "train"],
        default="base",
        help="strings CNN-ED is fitted on (default: the base)",
    )
    parser.add_argument(
        "--cache", default=None, help="directory caching the exact query-base distances"
    )
    parser.add_argument("--curves", default=None, help="save recall curves to this .npz")
    return parser


def _max_length(args, train, query, base):
    """CNN-ED's padding length, why it was chosen, and how many strings exceed it."""
    lengths = np.array([len(s) for s in base])
    every = np.concatenate([lengths, [len(s) for s in query], [len(s) for s in train]])
    if args.max_length is not None:
        max_length, why = args.max_length, "given"
    elif args.dataset == "proteins":
        max_length = int(np.ceil(np.percentile(lengths, 99)))
        why = "99th percentile of base lengths"
    else:
        max_length, why = int(every.max()), "longest string"
    n_truncated = int((every > max_length).sum())
    return max_length, why, n_truncated


def _fit_embedders(args, train, base, max_length):
    """The CNN-ED variants (untrained, uniform sample, neighborhoods) and their fit costs."""
    from sklearn_ed import CNNEDEmbedder

    fit_set = base if args.fit_on == "base" else train
    models = (
        ("CNN-ED untrained", 0, "neighborhoods"),
        ("CNN-ED uniform", args.max_epochs, "uniform"),
        ("CNN-ED", args.max_epochs, "neighborhoods"),
    )
    embedders, timings = {}, {}
    for name, epochs, sampling in models:
        progress(f"fit {name}")
        embedder = CNNEDEmbedder(
            max_epochs=epochs,
            max_length=max_length,
            n_jobs=args.n_jobs,
            train_sampling=sampling,
            random_state=0,
        )
        start, cpu = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # truncation, reported below
            embedder.fit(fit_set)
        distances = embedder.train_distances_.astype(np.float64)
        np.fill_diagonal(distances, np.inf)
        timings[name] = (
            time.perf_counter() - start,
            time.process_time() - cpu,
            sum(entry["dur"] for entry in embedder.history_),
            np.sort(distances, axis=1)[:, :10].mean(),
        )
        embedders[name] = embedder
    return embedders, timings


def _evaluate(args, embedders, cgk, train, query, base, exact, brute_s, train_distances):
    """Recall, approximation error and filter + refine time of every embedding."""
    from scipy.spatial.distance import cdist

    from sklearn_ed.distances import candidate_distances
    from sklearn_ed.metrics import approximation_error

    progress("embed and evaluate")
    n_base = len(base)
    counts = sorted({max(1, int(round(p / 100 * n_base))) for p in CANDIDATES_PERCENT})
    near = np.argsort(exact, axis=1, kind="stable")[:, :NEAR]
    near_exact = np.take_along_axis(exact, near, axis=1)
    recall_rows, error_rows, speed_rows, curves = [], [], [], {}
    left, right = np.triu_indices(len(train), 1)
    with warnings.catch_warnings():
        # Over-long strings are truncated by design (reported above).
        warnings.simplefilter("ignore", UserWarning)
        for name in ("CGK", "CNN-ED untrained", "CNN-ED uniform", "CNN-ED"):
            if name == "CGK":

                def embed(strings):
                    return cgk.transform_symbols(strings)

                metric, degree = "hamming", 2
            else:
                embed = embedders[name].transform
                metric, degree = "euclidean", 1
            start = time.perf_counter()
            base_vectors = embed(base)
            embed_s = time.perf_counter() - start
            query_vectors, train_vectors = embed(query), embed(train)
            scale = base_vectors.shape[1] if metric == "hamming" else 1.0

            def rows(a, b, qv=query_vectors, bv=base_vectors, m=metric, s=scale):
                return cdist(qv[a:b], bv, m) * s

            recall, needed = recall_and_needed(exact, rows, (1, 10, 50), counts)
            if metric == "euclidean":
                fit_embedding = np.linalg.norm(
                    train_vectors[left].astype(np.float64) - train_vectors[right], axis=1
                )
            else:
                fit_embedding = (train_vectors[left] != train_vectors[right]).sum(1)
            fit = dict(
                degree=degree, fit_exact=train_distances[left, right], fit_embedding=fit_embedding
            )
            all_error = []
            for a in range(0, len(query), 200):
                block = rows(a, a + 200)
                all_error.append(approximation_error(exact[a : a + 200], block, **fit) * len(block))
            embedded_near = np.stack([rows(i, i + 1)[0, near[i]] for i in range(len(query))])
            error_rows.append(
                [
                    name,
                    "quadratic" if degree == 2 else "linear",
                    f"{sum(all_error) / len(query):.3f}",
                    f"{approximation_error(near_exact, embedded_near, **fit):.3f}",
                ]
            )
            for k in (1, 10, 50):
                curves[f"{name}|{k}"] = recall[k]
                recall_rows.append([name, k] + [f"{value:.3f}" for value in recall[k]])
            n_p = distances_at(needed[10], 0.95)
            start = time.perf_counter()
            scan = cdist(embed(query), base_vectors, metric)
            candidates = np.argsort(scan, axis=1, kind="stable")[:, :n_p]
            candidate_distances(query, base, candidates, n_jobs=args.n_jobs)
            fr_s = time.perf_counter() - start
            speed_rows.append(
                [
                    name,
                    n_p,
                    f"{n_base / n_p:.1f}x",
                    f"{embed_s:.2f}",
                    f"{fr_s:.2f}",
                    f"{brute_s:.1f}",
                    f"{brute_s / fr_s:.1f}x",
                ]
            )

    return counts, near, recall_rows, error_rows, speed_rows, curves


def main():
    args = _parser().parse_args()
    start_time = time.perf_counter()
    from sklearn_ed import CGKEmbedder
    from sklearn_ed.distances import symmetric_pairwise_distances

    train, query, base, call = load_dataset(args)
    max_length, why, n_truncated = _max_length(args, train, query, base)
    print_header(
        f"{args.dataset}: CNN-ED vs CGK",
        notes=[
            call,
            f"CNNEDEmbedder defaults (d=128, 8 layers, avg, no activation, per-character), "
            f"max_epochs={args.max_epochs}, max_length={max_length} ({why}), random_state=0; "
            "CGKEmbedder(random_state=0), x1, fitted on the base",
            f"CNN-ED fitted on the {args.fit_on} "
            + ("(n_train=1000 drawn from it)" if args.fit_on == "base" else "set"),
            "wall times on a shared 2-core machine; CPU s = process CPU time",
        ],
    )
    exact, brute_s, brute_note = exact_distances(args, query, base)
    progress("training distances")
    start = time.perf_counter()
    train_distances = symmetric_pairwise_distances(train, n_jobs=args.n_jobs)
    train_d_s = time.perf_counter() - start
    embedders, timings = _fit_embedders(args, train, base, max_length)
    cgk = CGKEmbedder(random_state=0).fit(base)
    counts, near, recall_rows, error_rows, speed_rows, curves = _evaluate(
        args, embedders, cgk, train, query, base, exact, brute_s, train_distances
    )
    _report(
        args,
        train,
        query,
        base,
        exact,
        brute_note,
        train_d_s,
        max_length,
        n_truncated,
        timings,
        counts,
        near,
        recall_rows,
        error_rows,
        speed_rows,
    )
    if args.curves:
        np.savez(args.curves, counts=np.array(counts), **curves)
    if args.filter_refine:
        filter_refine(args, query, base, exact, brute_s, max_length)
    print_footer(start_time)


def _report(
    args,
    train,
    query,
    base,
    exact,
    brute_note,
    train_d_s,
    max_length,
    n_truncated,
    timings,
    counts,
    near,
    recall_rows,
    error_rows,
    speed_rows,
):
    """The data, the fit costs, recall-item, approximation error and speed tables."""
    n_base = len(base)
    lengths = np.array([len(s) for s in base])
    left = np.triu_indices(len(train), 1)[0]
    fit_set = base if args.fit_on == "base" else train
    print(
        f"data: {n_base} base, {len(query)} queries, {len(train)} training strings; "
        f"base lengths {lengths.min()}-{lengths.max()} (median {np.median(lengths):.0f}, "
        f"99th percentile {np.percentile(lengths, 99):.0f}); {n_truncated} strings longer "
        f"than max_length={max_length} (truncated for CNN-ED only)"
    )
    print(f"brute force: {exact.size} pairs {brute_note}")
    print(
        f"exact distances of the train set's pairs (to fit g): {len(left)} pairs in "
        f"{train_d_s:.1f} s"
    )
    print()
    print(
        format_table(
            [
                "model",
                "fit wall s",
                "fit CPU s",
                "sum of epoch durations s",
                "mean d to 10 nearest training strings",
            ],
            [
                [name, f"{w:.1f}", f"{c:.1f}", f"{d:.1f}", f"{k:.1f}"]
                for name, (w, c, d, k) in timings.items()
            ],
            title=f"CNN-ED fit on the {args.fit_on} set ({len(fit_set)} strings; "
            f"{args.max_epochs} epochs of n_train_ triplets, batch 64; "
            "fit includes drawing the sample and its exact matrix)",
        )
    )
    print()
    print(
        format_table(
            ["embedding", "k"] + [f"C={c} ({100 * c / n_base:g}%)" for c in counts],
            recall_rows,
            title="Recall-item: top-k recall at C candidates",
        )
    )
    print()
    print(
        format_table(
            ["embedding", "g", "all query-base pairs", f"near pairs (top-{NEAR})"],
            error_rows,
            title="Approximation error mean |g(d_emb) - d_E| / d_E, g fitted on "
            "training pairs (Dai et al. 2020, Table 2)",
        )
    )
    print(
        f"all pairs: every query-base pair ({exact.size}); near pairs: each query's exact "
        f"top-{NEAR} base items ({near.size} pairs); pairs with d_E = 0 are skipped."
    )
    print()
    print(
        format_table(
            [
                "embedding",
                "N_0.95 (k=10)",
                "count speedup",
                "embed base s",
                "filter+refine s",
                "brute s",
                "wall speedup",
            ],
            speed_rows,
            title="Exact distances for 95% of queries to get all top-10, and "
            "measured filter + refine wall time at C = N_0.95",
        )
    )
    print(
        "wall speedup = brute-force time / (embed queries + vector scan + exact distances "
        "to C candidates); the base embedding (embed base s) is paid once per index."
    )
    print()


def exact_distances(args, query, base):
    """Brute-force query-base distances, timed, optionally cached in --cache."""
    import hashlib
    import json

    from sklearn_ed.distances import pairwise_distances

    path = None
    if args.cache:
        digest = hashlib.sha1()
        for string in list(query) + ["\x00"] + list(base):
            digest.update(string.encode("utf-8", "surrogatepass") + b"\x00\xff")
        path = os.path.join(args.cache, f"exact_{args.dataset}_{digest.hexdigest()[:16]}")
        if os.path.exists(path + ".npy"):
            with open(path + ".json") as file:
                meta = json.load(file)
            return (
                np.load(path + ".npy").astype(np.float64),
                meta["seconds"],
                f"loaded from {path}.npy (computed by rapidfuzz brute force, "
                f"n_jobs={meta['n_jobs']}, in {meta['seconds']:.1f} s on {meta['date']})",
            )
    progress("brute force")
    start = time.perf_counter()
    exact = pairwise_distances(query, base, n_jobs=args.n_jobs)
    seconds = time.perf_counter() - start
    if path is not None:
        os.makedirs(args.cache, exist_ok=True)
        np.save(path + ".npy", exact.astype(np.int32))
        with open(path + ".json", "w") as file:
            json.dump(
                {
                    "seconds": seconds,
                    "n_jobs": args.n_jobs,
                    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                },
                file,
            )
    return exact, seconds, (f"by rapidfuzz brute force (n_jobs={args.n_jobs}) in {seconds:.1f} s")


def filter_refine(args, query, base, exact, brute_s, max_length):
    from scipy.spatial.distance import cdist

    from sklearn_ed import CNNEDEmbedder, FilterRefineNeighbors

    progress("FilterRefineNeighbors fit")
    estimator = FilterRefineNeighbors(
        CNNEDEmbedder(
            n_train=1000,
            max_epochs=args.max_epochs,
            max_length=max_length,
            n_jobs=args.n_jobs,
            random_state=0,
        ),
        n_neighbors=10,
        n_candidates=10,
        filter_algorithm="brute",
        n_jobs=args.n_jobs,
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # truncation, reported above
        estimator.fit(base)
    fit_s = time.perf_counter() - start
    base_vectors = estimator.embedder_.transform(base)  # untimed: the scan below ranks C
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        scan = cdist(estimator.embedder_.transform(query), base_vectors)
    order = np.argsort(scan, axis=1, kind="stable")
    grid = sorted(
        {
            int(round(f * len(base)))
            for f in (0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.07, 0.1, 0.15, 0.2)
        }
    )
    predicted = []
    for c in grid:
        cand = np.take_along_axis(exact, order[:, :c], axis=1)
        predicted.append(returned_recall(np.sort(cand, axis=1), exact, 10))
    ok = [c for c, r in zip(grid, predicted) if r >= 0.95]
    c = ok[0] if ok else grid[-1]
    progress(f"kneighbors at C={c}")
    estimator.set_params(n_candidates=c)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        distances, _ = estimator.kneighbors(query)
    query_s = time.perf_counter() - start
    recall = returned_recall(distances, exact, 10)
    print(
        format_table(
            ["C", "C %", "top-10 recall (predicted from the filter ranking)"],
            [[g, f"{100 * g / len(base):.3g}", f"{r:.3f}"] for g, r in zip(grid, predicted)],
            title="FilterRefineNeighbors(CNNEDEmbedder(n_train=1000), "
            "n_neighbors=10): top-10 recall vs C",
        )
    )
    print(
        format_table(
            [
                "fit s (train 1,000 base strings + embed base)",
                "C",
                "kneighbors s",
                "top-10 recall",
                "brute s",
                "speedup (queries)",
                "speedup incl. fit",
            ],
            [
                [
                    f"{fit_s:.1f}",
                    c,
                    f"{query_s:.2f}",
                    f"{recall:.3f}",
                    f"{brute_s:.1f}",
                    f"{brute_s / query_s:.1f}x",
                    f"{brute_s / (fit_s + query_s):.2f}x",
                ]
            ],
            title=f"FilterRefineNeighbors at the smallest C with top-10 recall >= 0.95 "
            f"({len(query)} queries)",
        )
    )
    print(
        "top-10 recall = share of the returned 10 neighbors whose exact distance is at "
        "most the query's true 10th distance (ties count). fit is paid once per index; "
        f"brute force cost grows with the queries (here {len(query)})."
    )
    print()


if __name__ == "__main__":
    main()
