"""Ties at the k-th distance: FilterRefineClassifier against KNeighborsClassifier.

Data: the language of a word. The 3,000 most frequent words in Latin
letters of wordfreq's "large" lists of English, German, French, Spanish and
Italian, each labelled by its language; a word among the 6,000 most
frequent of two or more of these languages is dropped (its label would be
ambiguous). A stratified, seeded sample gives 5,000 training and 1,000 test
words (7 letters on average). Levenshtein distances are integers, so many
training words lie at the same distance from a query.

For each ``n_neighbors`` (k), on the test words:

- the share of queries with a tie at the k-th distance (the (k+1)-th
  nearest training word is as close as the k-th: which k are "the k
  nearest" is not decided by distance);
- ``KNeighborsClassifier(n_neighbors=k, metric="precomputed")`` fitted on
  the exact training distance matrix and given the exact test distances
  (rapidfuzz ``process.cdist``, Levenshtein): its accuracy;
- the exact k nearest with ties broken by the lower training index, and
  their uniform vote (the class listed first wins a tied vote, as in both
  estimators): what ``ties="index"`` promises;
- ``FilterRefineClassifier`` with (a) the defaults (``ties="include"``),
  (b) ``ties="index"``, (c) ``ties="index", exact=True``, (d)
  ``exact=True`` (``ties="include"``): accuracy, share of predictions equal
  to KNeighborsClassifier's (all queries, and the queries without a tie) and
  to the by-index vote;
- the share of predictions unchanged when the same training words are given
  in another (seeded) order, for KNeighborsClassifier and each setting.

KNeighborsClassifier with precomputed distances picks its k neighbors with
``np.argpartition`` (introselect), which among tied distances keeps neither
the lowest training indices nor any order-free set: the report gives the
share of queries whose k neighbors are the k lowest-index ones.

Run: ``python -m benchmarks.bench_knn_ties --json
benchmarks/results/knn_ties.json`` (about a minute on 2 cores).
"""

import argparse
import json
import time
from collections import Counter

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

from benchmarks._common import (
    format_table,
    parse_list,
    print_footer,
    print_header,
    progress,
    topk_by_index,
)
from benchmarks.bench_partial_fit import LATIN_WORD
from sklearn_ed import FilterRefineClassifier

LANGUAGES = ("en", "de", "fr", "es", "it")
SETTINGS = [
    ("defaults (ties='include')", {}),
    ("ties='index'", {"ties": "index"}),
    ("ties='index', exact=True", {"ties": "index", "exact": True}),
    ("exact=True (ties='include')", {"exact": True}),
]


def language_words(n_per_language, pool):
    """The ``n_per_language`` most frequent words of each language found among
    the ``pool`` most frequent of no other, and their languages."""
    from wordfreq import top_n_list

    lists = {
        language: [
            word
            for word in top_n_list(language, 50_000, wordlist="large")
            if LATIN_WORD.fullmatch(word)
        ]
        for language in LANGUAGES
    }
    shared = Counter(word for words in lists.values() for word in set(words[:pool]))
    data, labels = [], []
    for language, words in lists.items():
        kept = [word for word in words if shared[word] == 1][:n_per_language]
        data += kept
        labels += [language] * len(kept)
    return np.array(data, dtype=object), np.array(labels)


def distances(queries, base, n_jobs):
    return process.cdist(
        list(queries), list(base), scorer=Levenshtein.distance, dtype=np.int32, workers=n_jobs
    )


def by_index_vote(test_train, y_train, k, classes):
    """Uniform vote of the exact k nearest, ties broken by the lower training index."""
    _, neighbors = topk_by_index(test_train, k)
    codes = np.searchsorted(classes, y_train)
    votes = np.zeros((len(test_train), len(classes)))
    np.add.at(votes, (np.arange(len(test_train))[:, None], codes[neighbors]), 1)
    return classes[votes.argmax(axis=1)], neighbors


def share(mask):
    return float(np.mean(mask)) if len(mask) else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-train", type=int, default=5_000)
    parser.add_argument("--n-test", type=int, default=1_000)
    parser.add_argument("--n-per-language", type=int, default=3_000)
    parser.add_argument("--ks", default="1,5,10", help="n_neighbors values, comma-separated")
    parser.add_argument("--seed", type=int, default=0, help="the split and the shuffled order")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    start = time.perf_counter()
    ks = parse_list(args.ks)
    print_header(
        "Ties at the k-th distance: FilterRefineClassifier against KNeighborsClassifier",
        [
            f"language of a word ({', '.join(LANGUAGES)}); {args.n_train:,} training and "
            f"{args.n_test:,} test words, split with seed {args.seed}; Levenshtein; "
            f"{args.n_jobs} workers",
            "columns: C = n_candidates_; = KNN: predictions equal to KNeighborsClassifier's "
            "(all test words, then those without a tie); = by index: equal to the vote of the "
            "exact k nearest with ties broken by the lower training index; = after shuffle: "
            "unchanged when fitted on the training words in another order",
        ],
    )
    words, languages = language_words(args.n_per_language, pool=2 * args.n_per_language)
    X_train, X_test, y_train, y_test = train_test_split(
        words,
        languages,
        train_size=args.n_train,
        test_size=args.n_test,
        random_state=args.seed,
        stratify=languages,
    )
    classes = np.unique(y_train)
    order = np.random.RandomState(args.seed).permutation(len(X_train))
    progress(f"{len(words):,} words; exact distance matrices")
    train_train = distances(X_train, X_train, args.n_jobs)
    test_train = distances(X_test, X_train, args.n_jobs)
    sorted_rows = np.sort(test_train, axis=1)
    mean_length = float(np.mean([len(word) for word in X_test]))

    results = {
        "languages": list(LANGUAGES),
        "n_train": len(X_train),
        "n_test": len(X_test),
        "mean_length": mean_length,
        "seed": args.seed,
        "ks": [],
    }
    for k in ks:
        tied = sorted_rows[:, k] == sorted_rows[:, k - 1]
        progress(f"k={k}: KNeighborsClassifier")
        knn = KNeighborsClassifier(n_neighbors=k, metric="precomputed").fit(train_train, y_train)
        knn_pred = knn.predict(test_train)
        knn_neighbors = knn.kneighbors(test_train, return_distance=False)
        shuffled = KNeighborsClassifier(n_neighbors=k, metric="precomputed").fit(
            train_train[np.ix_(order, order)], y_train[order]
        )
        knn_shuffled = shuffled.predict(test_train[:, order])
        index_pred, index_neighbors = by_index_vote(test_train, y_train, k, classes)
        same_set = np.array(
            [set(a) == set(b) for a, b in zip(knn_neighbors, index_neighbors)], dtype=bool
        )
        entry = {
            "k": k,
            "tie_share": share(tied),
            "knn": {
                "accuracy": share(knn_pred == y_test),
                "unchanged_when_shuffled": share(knn_pred == knn_shuffled),
                "agree_index": share(knn_pred == index_pred),
                "same_neighbors_as_index": share(same_set),
                "same_neighbors_as_index_tied": share(same_set[tied]),
            },
            "by_index": {"accuracy": share(index_pred == y_test)},
            "settings": [],
        }
        for name, params in SETTINGS:
            progress(f"k={k}: FilterRefineClassifier, {name}")

            def make(params=params):
                return FilterRefineClassifier(n_neighbors=k, n_jobs=args.n_jobs, **params)

            seconds = time.perf_counter()
            classifier = make().fit(list(X_train), y_train)
            pred = classifier.predict(list(X_test))
            seconds = time.perf_counter() - seconds
            pred_shuffled = make().fit(list(X_train[order]), y_train[order]).predict(list(X_test))
            entry["settings"].append(
                {
                    "name": name,
                    "params": params,
                    "n_candidates": int(classifier.n_candidates_),
                    "seconds": seconds,
                    "accuracy": share(pred == y_test),
                    "agree_knn": share(pred == knn_pred),
                    "agree_knn_untied": share((pred == knn_pred)[~tied]),
                    "agree_index": share(pred == index_pred),
                    "unchanged_when_shuffled": share(pred == pred_shuffled),
                }
            )
        results["ks"].append(entry)
        report(entry)
    print_footer(start)
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=1)


def report(entry):
    k, knn = entry["k"], entry["knn"]
    rows = [
        [
            "KNeighborsClassifier(metric='precomputed')",
            "",
            f"{knn['accuracy']:.3f}",
            "1.000",
            "",
            f"{knn['agree_index']:.3f}",
            f"{knn['unchanged_when_shuffled']:.3f}",
        ],
        [
            "exact k nearest, ties by training index",
            "",
            f"{entry['by_index']['accuracy']:.3f}",
            f"{knn['agree_index']:.3f}",
            "",
            "1.000",
            "",
        ],
    ]
    for setting in entry["settings"]:
        rows.append(
            [
                f"FilterRefineClassifier, {setting['name']}",
                str(setting["n_candidates"]),
                f"{setting['accuracy']:.3f}",
                f"{setting['agree_knn']:.3f}",
                f"{setting['agree_knn_untied']:.3f}",
                f"{setting['agree_index']:.3f}",
                f"{setting['unchanged_when_shuffled']:.3f}",
            ]
        )
    print(
        format_table(
            [
                "classifier",
                "C",
                "accuracy",
                "= KNN",
                "= KNN, untied",
                "= by index",
                "= after shuffle",
            ],
            rows,
            title=(
                f"n_neighbors={k}: {entry['tie_share']:.1%} of the queries tie at the "
                f"{ordinal(k)} distance"
            ),
        )
    )
    print(
        f"KNeighborsClassifier's neighbors are the {k} nearest of lowest training index "
        f"for {knn['same_neighbors_as_index']:.1%} of the queries "
        f"({knn['same_neighbors_as_index_tied']:.1%} of those with a tie)\n"
    )


def ordinal(k):
    return f"{k}{'th' if 10 <= k % 100 < 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


if __name__ == "__main__":
    main()
