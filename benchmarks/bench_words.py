"""Spell-100k: sklearn-ed against the peers users run on words, in one run.

Data: spell-100k (``load_spell_benchmark``): 100,000 wordfreq words as the
base, 1,000 codespell misspellings as queries. Every method returns its
nearest word(s) by exact Levenshtein distance; top-1 recall counts a query
when the returned nearest distance equals the exact nearest distance (ties
counted). Methods, all with ``--n-jobs`` workers:

- ``rapidfuzz.process.cdist`` over the whole base (exact brute force);
- symspellpy (symmetric delete, ``max_dictionary_edit_distance=2``, the
  closest suggestions re-scored by Levenshtein);
- tf-idf of character 3-grams (scikit-learn ``TfidfVectorizer(analyzer=
  "char_wb")``), ``sparse_dot_topn`` top-50, exact refine by rapidfuzz: the
  engine of string_grouper;
- sklearn-ed ``FilterRefineNeighbors`` with ``QGramEmbedder`` (and with
  ``exact=True``: lossless, its pruned fraction printed under the table; and
  with tf-idf weighting, for comparison with its default raw counts) and with
  ``CGKEmbedder`` (exact scan and HNSW).

Columns: fit (index build) time, milliseconds per query, top-1 recall, and
the speed-up over brute force without and with the fit. Query times (and
the brute force) are the median of 3 calls, the fit is timed once.

Run: ``python -m benchmarks.bench_words``
"""

import argparse
import json
import time

import numpy as np

from benchmarks._common import format_table, print_header, progress
from sklearn_ed import CGKEmbedder, FilterRefineNeighbors, QGramEmbedder  # noqa: E402
from sklearn_ed.datasets import load_spell_benchmark  # noqa: E402
from sklearn_ed.metrics import pruned_fraction  # noqa: E402

# Query calls (and the brute force) are timed this many times and the median
# kept: a call lasts tens of milliseconds, within the noise of a shared machine.
QUERY_REPEATS = 3


def timed(function, repeats=1):
    """The value of ``function()`` and the median wall time of ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return value, float(np.median(times))


def nearest_distances_symspell(base, queries):
    from rapidfuzz.distance import Levenshtein
    from symspellpy import SymSpell, Verbosity

    def build():
        speller = SymSpell(max_dictionary_edit_distance=2, prefix_length=7)
        for rank, word in enumerate(base):
            speller.create_dictionary_entry(word, len(base) - rank)
        return speller

    speller, fit_time = timed(build)

    def query():
        nearest = np.full(len(queries), np.inf)
        for row, word in enumerate(queries):
            found = speller.lookup(word, Verbosity.CLOSEST, max_edit_distance=2)
            if found:
                nearest[row] = min(Levenshtein.distance(word, s.term) for s in found)
        return nearest

    nearest, query_time = timed(query, QUERY_REPEATS)
    return nearest, fit_time, query_time


def nearest_distances_tfidf(base, queries, n_jobs, top_n=50):
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sparse_dot_topn import sp_matmul_topn

    def build():
        vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 3), dtype=np.float32)
        return vectorizer, vectorizer.fit_transform(base).T.tocsr()

    (vectorizer, base_t), fit_time = timed(build)
    words = np.asarray(base, dtype=object)

    def query():
        top = sp_matmul_topn(
            vectorizer.transform(queries),
            base_t,
            top_n=top_n,
            n_threads=n_jobs if n_jobs > 1 else None,
        )
        counts = np.diff(top.indptr)
        pairs_q = np.repeat(np.asarray(queries, dtype=object), counts)
        exact = process.cpdist(
            pairs_q, words[top.indices], scorer=Levenshtein.distance, workers=n_jobs
        )
        nearest = np.full(len(queries), np.inf)
        np.minimum.at(nearest, np.repeat(np.arange(len(queries)), counts), exact)
        return nearest

    nearest, query_time = timed(query, QUERY_REPEATS)
    return nearest, fit_time, query_time


# Pruned fractions of the exact=True runs, printed under the table.
PRUNED = []


def nearest_distances_sklearn_ed(
    base, queries, embedder, n_candidates, algorithm, n_jobs, exact=False
):
    search = FilterRefineNeighbors(
        embedder,
        n_neighbors=1,
        n_candidates=n_candidates,
        filter_algorithm=algorithm,
        n_jobs=n_jobs,
        exact=exact,
    )
    _, fit_time = timed(lambda: search.fit(base))
    (distances, _), query_time = timed(lambda: search.kneighbors(queries), QUERY_REPEATS)
    if exact:
        PRUNED.append(pruned_fraction(search, queries))
    return distances[:, 0], fit_time, query_time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--json", default=None)
    parser.add_argument("--csv", default=None, help="the result table as CSV (for the docs)")
    args = parser.parse_args()
    print_header(
        "spell-100k: nearest word of 1,000 misspellings",
        [f"{args.n_jobs} workers for every method"],
    )
    data = load_spell_benchmark()
    base, queries = list(data.base), list(data.query)
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    # Compile (or load from numba's cache) the kernels of every sklearn-ed
    # method untimed: a fresh checkout would otherwise time the compiler in
    # the first fit.
    for embedder in (QGramEmbedder(), CGKEmbedder(random_state=0)):
        FilterRefineNeighbors(embedder, exact=True, n_candidates=5).fit(base[:200]).kneighbors(
            queries[:5]
        )
    progress("brute force")
    exact, brute_time = timed(
        lambda: process.cdist(
            queries, base, scorer=Levenshtein.distance, workers=args.n_jobs, dtype=np.int32
        ),
        QUERY_REPEATS,
    )
    truth = exact.min(axis=1)
    methods = [
        ("symspellpy, max distance 2", lambda: nearest_distances_symspell(base, queries)),
        (
            "tf-idf 3-grams + sparse_dot_topn top-50 + refine",
            lambda: nearest_distances_tfidf(base, queries, args.n_jobs),
        ),
    ]
    for C in (10, 20, 50):
        methods.append(
            (
                f"sklearn-ed QGramEmbedder(), C={C}",
                lambda C=C: nearest_distances_sklearn_ed(
                    base, queries, QGramEmbedder(), C, "auto", args.n_jobs
                ),
            )
        )
    methods.append(
        (
            'sklearn-ed QGramEmbedder(weighting="tfidf"), C=20',
            lambda: nearest_distances_sklearn_ed(
                base, queries, QGramEmbedder(weighting="tfidf"), 20, "auto", args.n_jobs
            ),
        )
    )
    methods.append(
        (
            "sklearn-ed QGramEmbedder(), C=10, exact=True",
            lambda: nearest_distances_sklearn_ed(
                base, queries, QGramEmbedder(), 10, "auto", args.n_jobs, exact=True
            ),
        )
    )
    for algorithm in ("brute", "hnsw"):
        methods.append(
            (
                f"sklearn-ed CGKEmbedder(), {algorithm}, C=100",
                lambda a=algorithm: nearest_distances_sklearn_ed(
                    base, queries, CGKEmbedder(random_state=0), 100, a, args.n_jobs
                ),
            )
        )
    rows = [
        [
            "rapidfuzz.process.cdist (brute force)",
            "n/a",
            f"{brute_time * 1e3 / len(queries):.3f}",
            "1.000",
            "1.0x",
            "1.0x",
        ]
    ]
    results = {"brute_s": brute_time, "n_queries": len(queries), "methods": []}
    for name, run in methods:
        progress(name)
        nearest, fit_time, query_time = run()
        recall = float(np.mean(nearest <= truth))
        rows.append(
            [
                name,
                f"{fit_time:.2f}",
                f"{query_time * 1e3 / len(queries):.3f}",
                f"{recall:.3f}",
                f"{brute_time / query_time:.1f}x",
                f"{brute_time / (query_time + fit_time):.2f}x",
            ]
        )
        results["methods"].append(
            {"name": name, "fit_s": fit_time, "query_s": query_time, "top1_recall": recall}
        )
    headers = ["method", "fit s", "ms / query", "top-1 recall", "speed-up", "incl. fit"]
    if args.csv:
        import csv

        with open(args.csv, "w", newline="") as file:
            csv.writer(file).writerows([headers] + rows)
    print(
        format_table(
            headers,
            rows,
            title=f"100,000 words, {len(queries):,} misspellings, {args.n_jobs} workers",
        )
    )
    for fraction in PRUNED:
        print(
            f"exact=True: the lower bounds ruled out {fraction:.2%} of the base per query "
            f"(pruned_fraction); {1 - fraction:.2%} was compared exactly."
        )
    if args.json:
        with open(args.json, "w") as file:
            json.dump(results, file, indent=1)


if __name__ == "__main__":
    main()
