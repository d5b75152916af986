"""Linking two tables of generated person records: sklearn_ed.records against splink,
recordlinkage and one glued string.

Data: ``_records_link.link_tables(n_left)`` (``n_left`` records a table, one per
entity, half of each table's entities in the other, the right one's record
a corrupted duplicate: typos, swapped first and last names, dropped cities,
changed or missing dates); the links found are scored against the true ones
(precision, recall, F1); wall time of one run, after an untimed warm-up on
2,000 records a table (the join's numba kernels compile there).

- ``RecordLinker`` unsupervised, its default blocking, columns as
  ``bench_records.PERSON_COLUMNS`` (a full name with sorted words, the street,
  the city, the date of birth), ``one_to_one=True`` (neither table holds an
  entity twice) and without;
- the supervised path: the linker's candidate pairs, ``ComparisonLevels`` +
  one-hot + ``LogisticRegression`` under stratified 5-fold cross-validation
  over the candidates, held-out predictions kept;
- ``similarity_join`` of each record's fields glued into one string at the
  setting the dedup page recommends (``normalized_indel``,
  ``default_sort_tokens``, similarity 0.85);
- splink 5 as its FEBRL4 linking tutorial, recordlinkage's ECM and its logistic
  regression under the same 5 folds (``_records_link``).

Run: ``python -m benchmarks.bench_records_link [--sizes 10000] [--json PATH]``
"""

import argparse
import json
import time

import numpy as np

from benchmarks import _records_link as peers
from benchmarks._common import format_table, parse_list, print_footer, print_header, progress
from benchmarks.bench_records import ONE_STRING, person_columns, timed

N_SPLITS = 5
WARM_UP_RECORDS = 2000


def with_full_name(table):
    """The table indexed by ``rec_id``, with the full-name column ``name``."""
    table = table.set_index("rec_id")
    table.insert(0, "name", table.first_name.fillna("") + " " + table.last_name.fillna(""))
    return table


def ours_unsupervised(left, right, one_to_one):
    from sklearn_ed.records import RecordLinker

    linker, seconds = timed(
        lambda: RecordLinker(person_columns(), one_to_one=one_to_one).fit(left, right)
    )
    pairs = linker.pairs_frame()
    matched = pairs[pairs["match"]]
    details = (
        f"{len(pairs):,} candidate pairs; rules: {'; '.join(linker.blocking_report_['rule'])}; "
        f"threshold {linker.model_.threshold_:.3f}"
    )
    found = set(zip(matched["left"], matched["right"]))
    return dict(pairs=found, seconds=seconds, details=details), linker


def ours_supervised(left, right, true_links, fitted):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from sklearn_ed.records import ComparisonLevels, candidate_pairs, pairs_frame

    def run():
        rows, columns, _ = candidate_pairs(left, fitted.blocking_, right)
        pairs = pairs_frame(left, rows, columns, other=right)
        labels = np.array([pair in true_links for pair in pairs.index], dtype=bool)
        model = make_pipeline(
            ComparisonLevels(person_columns()),
            OneHotEncoder(handle_unknown="ignore"),
            LogisticRegression(max_iter=1000),
        )
        found = np.zeros(len(pairs), dtype=bool)
        folds = StratifiedKFold(N_SPLITS, shuffle=True, random_state=0)
        for train, test in folds.split(pairs, labels):
            model.fit(pairs.iloc[train], labels[train])
            found[test] = model.predict(pairs.iloc[test]) == 1
        return set(pairs.index[found])

    predicted, seconds = timed(run)
    return dict(pairs=predicted, seconds=seconds, details=f"{N_SPLITS}-fold, held out")


def one_string(left, right):
    from sklearn_ed import similarity_join

    def glued(table):
        fields = table.drop(columns="name").fillna("").astype(str)
        return fields.agg(" ".join, axis=1).to_numpy(dtype=object)

    (rows, columns, _), seconds = timed(
        lambda: similarity_join(glued(left), glued(right), **ONE_STRING)
    )
    found = set(zip(left.index[rows], right.index[columns]))
    return dict(pairs=found, seconds=seconds, details="pairs within the similarity")


def size_rows(n_left):
    """Every method's result on the tables of ``n_left`` records."""
    left, right, true_links = peers.link_tables(n_left)
    ours_left, ours_right = with_full_name(left), with_full_name(right)
    results = {}
    for one_to_one in (True, False):
        name = f"sklearn-ed RecordLinker (unsupervised{', one to one' if one_to_one else ''})"
        progress(f"{n_left:,}: {name}")
        results[name], fitted = ours_unsupervised(ours_left, ours_right, one_to_one)
    progress(f"{n_left:,}: supervised")
    results["sklearn-ed levels + LogisticRegression"] = ours_supervised(
        ours_left, ours_right, true_links, fitted
    )
    results["sklearn-ed similarity_join (one string, 0.85)"] = one_string(ours_left, ours_right)
    for name, run in (
        ("splink (FEBRL4 tutorial settings, EM)", lambda: peers.splink_link(left, right)),
        ("recordlinkage ECM", lambda: peers.recordlinkage_link(left, right)),
        (
            "recordlinkage LogisticRegression",
            lambda: peers.recordlinkage_link_logistic_cv(left, right, true_links),
        ),
    ):
        progress(f"{n_left:,}: {name}")
        results[name] = run()
    rows = []
    for method, result in results.items():
        scores = peers.link_scores(result["pairs"], true_links)
        progress(f"{n_left:,}: {method}: {result['details']}")
        rows.append({"method": method, **scores, "seconds": result["seconds"]})
    return rows, len(true_links)


def warm_up():
    left, right, _ = peers.link_tables(WARM_UP_RECORDS)
    ours_unsupervised(with_full_name(left), with_full_name(right), one_to_one=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--json", default=None, help="write the results here as JSON")
    args = parser.parse_args()
    start = time.perf_counter()
    print_header("Linking two tables of generated person records")
    warm_up()
    results = []
    for n_left in parse_list(args.sizes):
        rows, n_links = size_rows(n_left)
        results.append({"n_left": n_left, "true_links": n_links, "rows": rows})
        title = f"{n_left:,} + {n_left:,} records, {n_links:,} true links"
        table = [
            [row["method"], *(f"{row[key]:.4f}" for key in ("precision", "recall", "f1"))]
            + [f"{row['seconds']:.2f}"]
            for row in rows
        ]
        print(format_table(["method", "precision", "recall", "F1", "seconds"], table, title=title))
        print()
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1, default=float)
    print_footer(start)


if __name__ == "__main__":
    main()
