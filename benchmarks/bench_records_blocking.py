"""Blocking of person records: our exact fuzzy rules against splink's recommended
equality rules, on the same data; candidate pairs and the true pairs they hold.

Data: ``make_person_records(n, duplicate_share=0.10, random_state=0,
as_frame=True)`` with a ``name`` column (first name, a space, last name) as in
``bench_records``; the true pairs are every two rows of one entity. Each size
runs in a process of its own; the peak memory is that process's.

1. ours: ``candidate_pairs`` with five ``BlockingRule`` s: name equal; name
   within 1 edit; street_address equal; street_address within 2 edits;
   date_of_birth equal (levenshtein; processor ``default_sort_tokens`` for
   name, ``default`` otherwise, as ``bench_records.PERSON_COLUMNS``). Seconds:
   the pairs made, and the report's recall of each rule's union so far.
2. splink's recommended rules: the prediction blocking rules of splink's own
   person-data example, ``docs/demos/examples/duckdb/deduplicate_50k_synthetic``
   (the ``historical_50k`` demo), https://github.com/moj-analytical-services/
   splink/blob/master/docs/demos/examples/duckdb/deduplicate_50k_synthetic.ipynb
   (``SPLINK_50K_RULES`` below, verbatim). Its columns map to ours: first_name ->
   first_name, surname -> last_name, dob -> date_of_birth (both begin with the
   year, so ``substr(dob,1,4)`` is the year in both), birth_place -> city and
   postcode_fake -> city; a second row maps postcode_fake -> street_address
   instead (a UK postcode covers a street more than a town; its 3-character
   prefix, the postcode area, becomes the house number's first digits). The
   rules see the raw values (no lower-casing), as splink would. The pairs of
   their union are counted by splink itself (splink 5 ``blocking_analysis.
   count_comparisons_from_blocking_rules``, DuckDB, ``link_type="dedupe_only"``,
   ``record_sample_proportion=1.0``: exact); seconds are that count's. Their
   recall is computed here: a true pair is held when, for some rule, every
   expression is equal and present on both rows (a missing value never matches,
   as in SQL).
3. equality rules to our recall: from ``EQUALITY_POOL`` (single columns and
   column pairs, with substr prefixes), greedily the rule that adds the most
   not-yet-held true pairs per pair it makes on its own, until the union holds
   our recall or no rule adds a true pair; its union counted by splink as in 2.
   The seconds are splink's count; the greedy choice's own are printed below.

Run: ``python -m benchmarks.bench_records_blocking [--sizes 100000,1000000]
[--json PATH]``
"""

import argparse
import json
import re
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

DUPLICATE_SHARE = 0.10
# (key, threshold in edits), in this order: bench_records' default blocking at 1M records.
OUR_RULES = [
    ("name", None),
    ("name", 1),
    ("street_address", None),
    ("street_address", 2),
    ("date_of_birth", None),
]
# splink's deduplicate_50k_synthetic example, blocking_rules_to_generate_predictions.
SPLINK_50K_RULES = [
    ("substr(first_name,1,3)", "substr(surname,1,4)"),
    ("surname", "dob"),
    ("first_name", "dob"),
    ("postcode_fake", "first_name"),
    ("postcode_fake", "surname"),
    ("dob", "birth_place"),
    ("substr(postcode_fake,1,3)", "dob"),
    ("substr(postcode_fake,1,3)", "first_name"),
    ("substr(postcode_fake,1,3)", "surname"),
    ("substr(first_name,1,2)", "substr(surname,1,2)", "substr(dob,1,4)"),
]
SPLINK_TO_OURS = {
    "surname": "last_name",
    "dob": "date_of_birth",
    "postcode_fake": "city",
    "birth_place": "city",
}
# A UK postcode is nearer a street than a town: the same rules with it as our street.
SPLINK_TO_OURS_STREET = {**SPLINK_TO_OURS, "postcode_fake": "street_address"}
EQUALITY_POOL = [
    ("street_address",),
    ("date_of_birth",),
    ("first_name", "last_name"),
    ("first_name", "date_of_birth"),
    ("last_name", "date_of_birth"),
    ("first_name", "city"),
    ("last_name", "city"),
    ("city", "date_of_birth"),
    ("substr(first_name,1,3)", "substr(last_name,1,4)"),
    ("substr(street_address,1,8)",),
    ("first_name", "substr(street_address,1,5)"),
    ("last_name", "substr(street_address,1,5)"),
]
SUBSTR = re.compile(r"substr\((\w+),1,(\d+)\)")


def person_frame(n_records):
    """The generated records with a full-name column, and each row's entity."""
    from sklearn_ed.datasets import make_person_records

    records = make_person_records(
        n_records, duplicate_share=DUPLICATE_SHARE, random_state=0, as_frame=True
    )
    frame = records.frame.copy()
    frame.insert(0, "name", frame.first_name.fillna("") + " " + frame.last_name.fillna(""))
    return frame, records.entity


def to_our_columns(rule, mapping):
    """A splink rule's expressions with its column names replaced by ours."""
    return tuple(re.sub(r"\w+", lambda m: mapping.get(m[0], m[0]), e) for e in rule)


def expression_codes(frame, expression):
    """An integer per row for a column or ``substr(column,1,k)``: -1 where missing."""
    import pandas as pd

    prefix = SUBSTR.fullmatch(expression)
    values = frame[prefix[1]].str.slice(0, int(prefix[2])) if prefix else frame[expression]
    return pd.factorize(values)[0]


def rule_holds(codes, rule, truth):
    """Whether each true pair has every expression of the rule equal and present."""
    held = np.ones(len(truth), dtype=bool)
    for expression in rule:
        left, right = codes[expression][truth[:, 0]], codes[expression][truth[:, 1]]
        held &= (left == right) & (left >= 0)
    return held


def rule_pairs(codes, rule):
    """Pairs of rows an equality rule makes on its own (counted, not made)."""
    keys = np.column_stack([codes[expression] for expression in rule])
    _, sizes = np.unique(keys[(keys >= 0).all(axis=1)], axis=0, return_counts=True)
    return int((sizes.astype(np.int64) * (sizes - 1) // 2).sum())


def ours(frame, truth):
    """Our five rules: pairs made by candidate_pairs, its per-rule report."""
    from benchmarks.bench_records import PERSON_COLUMNS
    from sklearn_ed.records import BlockingRule, candidate_pairs

    processors = {column[0]: column[-1] for column in PERSON_COLUMNS}
    rules = [
        BlockingRule(key, threshold=threshold, metric="levenshtein", processor=processors[key])
        for key, threshold in OUR_RULES
    ]
    candidate_pairs(frame.iloc[:300], rules)  # untimed: numba compiles the join
    started = time.perf_counter()
    rows, _, report = candidate_pairs(frame, rules, true_pairs=(truth[:, 0], truth[:, 1]))
    seconds = time.perf_counter() - started
    steps = [
        {"rule": rule, "new_pairs": int(new), "recall": float(recall)}
        for rule, new, recall in zip(report["rule"], report["new_pairs"], report["recall"])
    ]
    return {"pairs": len(rows), "recall": steps[-1]["recall"], "seconds": seconds, "steps": steps}


def splink_union(frame, rules, codes, truth):
    """Pairs of the union of equality rules, counted by splink; recall computed here."""
    import duckdb
    from splink import DuckDBAPI, block_on
    from splink.blocking_analysis import count_comparisons_from_blocking_rules

    columns = ["first_name", "last_name", "street_address", "city", "date_of_birth"]
    table = frame[columns].assign(unique_id=np.arange(len(frame)))
    connection = duckdb.connect()
    # DuckDB may draw a progress bar on stdout, which carries the worker's reply.
    connection.execute("SET enable_progress_bar = false")
    started = time.perf_counter()
    counts = count_comparisons_from_blocking_rules(
        DuckDBAPI(connection=connection).register(table),
        blocking_rules=[block_on(*rule) for rule in rules],
        link_type="dedupe_only",
        record_sample_proportion=1.0,
    )
    seconds = time.perf_counter() - started
    connection.close()
    held, steps = np.zeros(len(truth), dtype=bool), []
    for rule, count in zip(rules, counts):
        held |= rule_holds(codes, rule, truth)
        steps.append(
            {
                "rule": " & ".join(rule),
                "new_pairs": int(count["marginal_comparison_count"]),
                "recall": float(held.mean()),
            }
        )
    pairs = int(counts[-1]["cumulative_comparison_count"])
    return {"pairs": pairs, "recall": float(held.mean()), "seconds": seconds, "steps": steps}


def greedy_equality_rules(codes, truth, target_recall):
    """Pool rules by true pairs added per own pair, until the target recall or no gain."""
    holds = {rule: rule_holds(codes, rule, truth) for rule in EQUALITY_POOL}
    own_pairs = {rule: rule_pairs(codes, rule) for rule in EQUALITY_POOL}
    held, chosen = np.zeros(len(truth), dtype=bool), []
    while held.mean() < target_recall:
        gains = {rule: int((holds[rule] & ~held).sum()) for rule in EQUALITY_POOL}
        useful = [rule for rule in EQUALITY_POOL if rule not in chosen and gains[rule] > 0]
        if not useful:
            break
        best = max(useful, key=lambda rule: gains[rule] / own_pairs[rule])
        chosen.append(best)
        held |= holds[best]
    return chosen


def worker(spec):
    """One size: the three methods on the same records; the reply as JSON."""
    from benchmarks.bench_records import true_pair_positions

    frame, entity = person_frame(spec["n"])
    truth = true_pair_positions(entity)
    splink_rules = [to_our_columns(rule, SPLINK_TO_OURS) for rule in SPLINK_50K_RULES]
    street_rules = [to_our_columns(rule, SPLINK_TO_OURS_STREET) for rule in SPLINK_50K_RULES]
    expressions = {e for rule in splink_rules + street_rules + EQUALITY_POOL for e in rule}
    codes = {expression: expression_codes(frame, expression) for expression in expressions}
    reply = {"n": spec["n"], "true_pairs": len(truth)}
    reply["ours"] = ours(frame, truth)
    reply["splink"] = splink_union(frame, splink_rules, codes, truth)
    reply["splink_street"] = splink_union(frame, street_rules, codes, truth)
    started = time.perf_counter()
    chosen = greedy_equality_rules(codes, truth, reply["ours"]["recall"])
    greedy_seconds = time.perf_counter() - started
    reply["greedy"] = splink_union(frame, chosen, codes, truth)
    reply["greedy"]["choice_seconds"] = greedy_seconds
    reply["peak_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    worker_reply(reply)


METHODS = {
    "ours": "sklearn-ed exact fuzzy rules",
    "splink": "splink 50k rules, postcode=city",
    "splink_street": "splink 50k rules, postcode=street",
    "greedy": "greedy equality rules",
}


SUMMARY_HEADERS = ["method", "rules", "candidate pairs", "true pairs held (recall)"]
SUMMARY_HEADERS += ["pairs per true pair held", "seconds"]
STEP_HEADERS = ["method", "rule (in order)", "pairs added", "recall so far"]


def summary_rows(reply):
    """Per method: its rules, pairs, true pairs held, pairs per true pair held, seconds."""
    rows = []
    for key, label in METHODS.items():
        result = reply[key]
        held = result["recall"] * reply["true_pairs"]
        held_text = f"{held:,.0f} ({result['recall']:.4f})"
        ratio = f"{result['pairs'] / held:,.1f}" if held else "-"
        rows.append([label, len(result["steps"]), f"{result['pairs']:,}", held_text, ratio])
        rows[-1].append(fmt_seconds(result["seconds"]))
    return rows


def step_rows(reply):
    """Per rule of each method, in order: the pairs it adds and the recall so far."""
    return [
        [METHODS[key], step["rule"], f"{step['new_pairs']:,}", f"{step['recall']:.4f}"]
        for key in METHODS
        for step in reply[key]["steps"]
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--json", default=None, help="write the results here as JSON")
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        return worker(json.loads(args.worker))
    start = time.perf_counter()
    print_header("Blocking person records: exact fuzzy rules against splink's equality rules")
    results = []
    for n in parse_list(args.sizes):
        progress(f"generated records: {n:,}")
        reply = run_worker("benchmarks.bench_records_blocking", {"n": n}, 2)
        results.append(reply)
        title = (
            f"{n:,} records, {reply['true_pairs']:,} true pairs "
            f"(worker peak {reply['peak_gib']:.2f} GiB)"
        )
        print(format_table(SUMMARY_HEADERS, summary_rows(reply), title=title))
        print(format_table(STEP_HEADERS, step_rows(reply), align="llrr"))
        greedy_seconds = fmt_seconds(reply["greedy"]["choice_seconds"])
        print(f"greedy choice took {greedy_seconds} s besides splink's count\n")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"sizes": results}, out, indent=1, default=float)
    print_footer(start)


if __name__ == "__main__":
    main()
