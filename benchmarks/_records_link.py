"""Two-table record linkage on generated person records: the data cut and the peers.

The cut (``link_tables``): one ``make_person_records(3 * n_left,
duplicate_share=1/3)`` call, so that its 2 * n_left originals get on average
half a duplicate each (about 61 % of the entities have exactly one record, 30 %
exactly two). Of the entities with exactly two records (the original and one
corrupted duplicate: typos, swapped first and last names, dropped city, a
changed or missing date), ``n_left // 2`` are linked: one record goes to each
table, the side drawn at random. Of the entities with a single record, as many
again go to ``left`` alone and to ``right`` alone, so that both tables hold
``n_left`` records, one per entity, and half of each table's entities are in
the other. Entities with three or more records, and unchosen ones, are left out.
Rows are shuffled, then named ``l0, l1, ...`` and ``r0, r1, ...`` (column
``rec_id``). The true links are the ordered pairs (left ``rec_id``, right
``rec_id``) of one entity. Everything is drawn from ``random_state``.

The peers return ``{"pairs", "seconds", "details"}``; pairs are ordered (left,
right). Times are wall seconds of one run, data generation excluded.

- ``splink_link``: splink 5 on DuckDB, ``link_type="link_only"``, following its
  FEBRL4 linking tutorial (``docs/demos/examples/duckdb/febrl4``, its "detailed
  model"), columns mapped: given_name -> first_name, surname -> last_name;
  soc_sec_id has no counterpart and is left out. Comparisons:
  ``NameComparison`` with term frequencies on both names;
  ``DateOfBirthComparison`` (string, ``%Y%m%d``, invalid dates as null); the
  tutorial's fuzzy location comparison (postcode,
  ``DamerauLevenshteinAtThresholds([1, 2])`` with term frequencies) on
  street_address; its exact one (street_number, ``ExactMatch`` with term
  frequencies, as the city of splink's ``link_only`` example) on city.
  Prediction blocks: first and last name; the names swapped; date of birth;
  street_address (for its state + address_1 and street_number + address_1);
  city (for its postcode). Training: the prior from the deterministic rule
  first + last name + date of birth at recall 0.8 (its soc_sec_id rule has no
  counterpart); u by random sampling (``max_pairs=1e6``; ``seed=1`` from the
  ``link_only`` example, the tutorial gives none); m by EM blocked on date of
  birth, then on city (for its postcode), without term frequencies;
  ``predict(threshold_match_probability=0.2)``.
- ``recordlinkage_link``: the Python Record Linkage Toolkit unsupervised, as
  its FEBRL4 example ``examples/linking_deterministic.py``: the union of blocks
  on given name, surname and soc_sec_id -- here first_name, last_name and,
  for the missing soc_sec_id, date_of_birth (the one near-unique column);
  features exact first name, Jaro-Winkler last name at 0.85, exact date of
  birth, exact city (its suburb), street_address string at 0.85 (its
  address_1); ``ECMClassifier(binarize=0.8).fit_predict``.
- ``recordlinkage_link_logistic_cv``: the same index and fields with raw
  string similarities, ``LogisticRegressionClassifier`` under stratified
  5-fold cross-validation over the candidate pairs, held-out predictions kept
  (as ``_records_peers.recordlinkage_logistic_cv``). A true link the index
  misses cannot be found: its details give the index's link recall.

Run: ``python -m benchmarks._records_link --n-left 10000``
"""

import argparse
import logging
import time

import duckdb
import numpy as np
import recordlinkage
import splink.comparison_library as cl
from splink import DuckDBAPI, Linker, SettingsCreator, block_on

from benchmarks._records_peers import ECM_BINARIZE, STRING_THRESHOLD, _held_out_matches, pair_scores
from sklearn_ed.datasets import make_person_records

# Three records per left record, one in three a duplicate: 2 * n_left originals,
# about 0.61 * n_left of them with exactly one duplicate, 1.21 * n_left with none.
RECORDS_PER_LEFT_RECORD = 3
DUPLICATE_SHARE = 1 / 3

# The FEBRL4 tutorial's settings.
SPLINK_TUTORIAL_THRESHOLD = 0.2
SPLINK_DETERMINISTIC_RECALL = 0.8
SPLINK_U_MAX_PAIRS = 1e6
SPLINK_U_SEED = 1  # splink's link_only example; the FEBRL4 tutorial gives none
SWAPPED_NAMES = "l.first_name = r.last_name and l.last_name = r.first_name"


# --- the data -------------------------------------------------------------------


def _entities_of_size(entity, size):
    """The entities with exactly ``size`` records, in increasing order."""
    counts = np.bincount(entity)
    return np.flatnonzero(counts == size)


def _named_table(frame, positions, prefix, rng):
    """The rows at ``positions`` shuffled, with ids ``prefix0, prefix1, ...`` in ``rec_id``."""
    table = frame.iloc[rng.permutation(positions)].reset_index(drop=True)
    table.insert(0, "rec_id", [f"{prefix}{i}" for i in range(len(table))])
    return table


def link_tables(n_left, random_state=0):
    """Tables ``left`` and ``right`` (``n_left`` records each) and their true links."""
    records = make_person_records(
        RECORDS_PER_LEFT_RECORD * n_left,
        duplicate_share=DUPLICATE_SHARE,
        random_state=random_state,
        as_frame=True,
    )
    entity = np.asarray(records.entity)
    rng = np.random.default_rng(random_state)
    n_linked = n_left // 2
    n_alone = n_left - n_linked
    pairs, singles = _entities_of_size(entity, 2), _entities_of_size(entity, 1)
    if len(pairs) < n_linked or len(singles) < 2 * n_alone:
        raise ValueError(f"n_left={n_left} is too small for the cut; take at least a few hundred.")
    linked = rng.choice(pairs, n_linked, replace=False)
    alone = rng.choice(singles, 2 * n_alone, replace=False)
    # Each linked entity's two positions, one row per entity; a random one goes left.
    twin_positions = np.flatnonzero(np.isin(entity, linked))
    twin_positions = twin_positions[np.argsort(entity[twin_positions], kind="stable")]
    twins = twin_positions.reshape(-1, 2)
    left_side = rng.integers(0, 2, n_linked)
    left_twin = twins[np.arange(n_linked), left_side]
    right_twin = twins[np.arange(n_linked), 1 - left_side]
    # An entity of one record has one position; this finds it.
    position_of = np.empty(entity.max() + 1, dtype=int)
    position_of[entity] = np.arange(len(entity))
    left_alone, right_alone = position_of[alone[:n_alone]], position_of[alone[n_alone:]]
    frame = records.frame.assign(entity=entity)
    left = _named_table(frame, np.concatenate([left_twin, left_alone]), "l", rng)
    right = _named_table(frame, np.concatenate([right_twin, right_alone]), "r", rng)
    right_id_of = dict(zip(right["entity"], right["rec_id"]))
    true_links = {
        (left_id, right_id_of[e])
        for left_id, e in zip(left["rec_id"], left["entity"])
        if e in right_id_of
    }
    return left.drop(columns="entity"), right.drop(columns="entity"), true_links


def link_scores(predicted, true_links):
    """Precision, recall and F1 of predicted (left_id, right_id) pairs; order matters."""
    return pair_scores({(str(a), str(b)) for a, b in predicted}, true_links)


def _oriented(id_pairs, left_ids):
    """Pairs of ids as (left_id, right_id), whichever side each came in on."""
    return {(a, b) if a in left_ids else (b, a) for a, b in id_pairs}


# --- splink -----------------------------------------------------------------------


def _splink_settings():
    """The FEBRL4 tutorial's detailed model on our columns (mapping in the module doc)."""
    return SettingsCreator(
        unique_id_column_name="rec_id",
        link_type="link_only",
        blocking_rules_to_generate_predictions=[
            block_on("first_name", "last_name"),
            SWAPPED_NAMES,
            block_on("date_of_birth"),
            block_on("street_address"),
            block_on("city"),
        ],
        comparisons=[
            cl.NameComparison("first_name").configure(term_frequency_adjustments=True),
            cl.NameComparison("last_name").configure(term_frequency_adjustments=True),
            cl.DateOfBirthComparison(
                "date_of_birth",
                input_is_string=True,
                datetime_format="%Y%m%d",
                invalid_dates_as_null=True,
            ),
            cl.ExactMatch("city").configure(term_frequency_adjustments=True),
            cl.DamerauLevenshteinAtThresholds("street_address", [1, 2]).configure(
                term_frequency_adjustments=True
            ),
        ],
    )


def _train_splink(linker):
    """Prior, u and m as the tutorial estimates them, in its order."""
    training = linker.training
    training.estimate_probability_two_random_records_match(
        [block_on("first_name", "last_name", "date_of_birth")],
        recall=SPLINK_DETERMINISTIC_RECALL,
    )
    training.estimate_u_using_random_sampling(max_pairs=SPLINK_U_MAX_PAIRS, seed=SPLINK_U_SEED)
    for rule in (block_on("date_of_birth"), block_on("city")):
        training.estimate_parameters_using_expectation_maximisation(
            rule, estimate_without_term_frequencies=True
        )


def splink_link(left, right, threshold=None):
    """splink 5 (DuckDB, link_only) trained and run as its FEBRL4 linking tutorial."""
    threshold = SPLINK_TUTORIAL_THRESHOLD if threshold is None else threshold
    start = time.perf_counter()
    connection = duckdb.connect()
    # DuckDB may draw a progress bar on stdout, which carries the report.
    connection.execute("SET enable_progress_bar = false")
    api = DuckDBAPI(connection=connection)
    tables = [
        api.register(left, dataset_display_name="df_left"),
        api.register(right, dataset_display_name="df_right"),
    ]
    linker = Linker(tables, _splink_settings(), log_level=logging.WARNING)
    _train_splink(linker)
    scored = linker.inference.predict(threshold_match_probability=threshold).as_pandas_dataframe()
    seconds = time.perf_counter() - start
    # splink cuts on the match weight the threshold converts to; recheck on the probability.
    scored = scored[scored["match_probability"] >= threshold]
    # The estimated prior has no public getter in splink 5; it is only reported.
    prior = linker._settings_obj._probability_two_random_records_match
    connection.close()
    pairs = _oriented(zip(scored["rec_id_l"], scored["rec_id_r"]), set(left["rec_id"]))
    return {
        "pairs": pairs,
        "seconds": seconds,
        "details": f"splink 5 DuckDB link_only, FEBRL4 tutorial; P(match)={prior:.3g}; "
        f"match probability >= {threshold}; {len(pairs)} pairs",
    }


# --- recordlinkage ----------------------------------------------------------------


def _candidate_links(left, right):
    """The union of blocks on first name, last name and date of birth (for soc_sec_id)."""
    indexer = recordlinkage.Index()
    indexer.block("first_name")
    indexer.block("last_name")
    indexer.block("date_of_birth")
    return indexer.index(left, right)


def _features(left, right, candidates, string_threshold):
    """The FEBRL4 example's fields we have; ``string_threshold=None`` keeps raw similarities."""
    compare = recordlinkage.Compare()
    compare.exact("first_name", "first_name", label="first_name")
    compare.string(
        "last_name",
        "last_name",
        method="jarowinkler",
        threshold=string_threshold,
        label="last_name",
    )
    compare.exact("date_of_birth", "date_of_birth", label="date_of_birth")
    compare.exact("city", "city", label="city")
    compare.string(
        "street_address", "street_address", threshold=string_threshold, label="street_address"
    )
    return compare.compute(candidates, left, right)


def recordlinkage_link(left, right):
    """recordlinkage unsupervised: blocks, binary features, ECM (Fellegi-Sunter by EM)."""
    left_records, right_records = left.set_index("rec_id"), right.set_index("rec_id")
    start = time.perf_counter()
    candidates = _candidate_links(left_records, right_records)
    features = _features(left_records, right_records, candidates, STRING_THRESHOLD)
    matches = recordlinkage.ECMClassifier(binarize=ECM_BINARIZE).fit_predict(features)
    seconds = time.perf_counter() - start
    return {
        "pairs": set(matches),
        "seconds": seconds,
        "details": f"{len(candidates)} candidates (blocks first|last name|date of birth); "
        f"ECM binarize={ECM_BINARIZE}; {len(matches)} pairs",
    }


def recordlinkage_link_logistic_cv(left, right, true_links, n_splits=5, random_state=0):
    """recordlinkage supervised: blocks, raw similarities, cross-validated logistic regression."""
    left_records, right_records = left.set_index("rec_id"), right.set_index("rec_id")
    start = time.perf_counter()
    candidates = _candidate_links(left_records, right_records)
    features = _features(left_records, right_records, candidates, string_threshold=None)
    labels = np.array([pair in true_links for pair in features.index])
    predicted = _held_out_matches(features, labels, n_splits, random_state)
    seconds = time.perf_counter() - start
    return {
        "pairs": set(predicted),
        "seconds": seconds,
        "details": f"{len(candidates)} candidates, index link recall "
        f"{labels.sum() / len(true_links):.3f}; logistic regression, {n_splits}-fold CV; "
        f"{len(predicted)} pairs",
    }


# --- report -------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-left", type=int, default=10_000)
    parser.add_argument("--random-state", type=int, default=0)
    args = parser.parse_args()
    left, right, true_links = link_tables(args.n_left, args.random_state)
    print(f"left {len(left)}, right {len(right)} records, {len(true_links)} true links")
    results = {
        "splink": splink_link(left, right),
        "recordlinkage ECM": recordlinkage_link(left, right),
        "recordlinkage logistic 5-fold": recordlinkage_link_logistic_cv(left, right, true_links),
    }
    print(f"{'method':<30} {'precision':>9} {'recall':>7} {'f1':>6} {'seconds':>8}")
    for method, result in results.items():
        scores = link_scores(result["pairs"], true_links)
        print(
            f"{method:<30} {scores['precision']:>9.3f} {scores['recall']:>7.3f} "
            f"{scores['f1']:>6.3f} {result['seconds']:>8.2f}"
        )
        print(f"    {result['details']}")


if __name__ == "__main__":
    main()
