"""Growing an index: ``partial_fit`` of 1,000 words into bases of 100,000 to 1,000,000.

Base: distinct words in Latin letters from wordfreq's "large" lists (English
first, then German, French, Spanish, Italian, Dutch, Portuguese, Swedish,
Polish, Czech, Finnish, Catalan and Norwegian, each in frequency order), the
first ``n`` of them. New items: the next words of the same lists, in
batches of 1,000. For each base size, with the defaults and ``exact=True``:

- the fit's wall time;
- each of three ``partial_fit`` calls of 1,000 words (the median is
  reported): the q-gram index, the lower bound and the deletion lookup are
  kept in segments (the logarithmic method), so an append should cost in
  proportion to the 1,000 and not to the base;
- with ``exact=True``, the answers to 200 misspellings after the appends
  against a fit on the union (they must be equal).

Run: ``python -m benchmarks.bench_partial_fit``
"""

import argparse
import re
import time

import numpy as np

from benchmarks._common import format_table, print_footer, print_header, progress

# Every wordfreq "large" list in Latin script; the first eight give 1.8 million words.
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "sv", "pl", "cs", "fi", "ca", "nb")
# Lowercase Latin letters, Latin-1 and Extended-A (the lists hold other scripts too).
LATIN_WORD = re.compile("[a-zßà-öø-ÿ\u0100-\u017f]+")
N_JOBS = 2
BATCH = 1_000
N_BATCHES = 3


def multilingual_words(n):
    """The first ``n`` distinct words of the lists written in lowercase Latin letters."""
    from wordfreq import top_n_list

    seen, words = set(), []
    for language in LANGUAGES:
        for word in top_n_list(language, 2_000_000, wordlist="large"):
            if LATIN_WORD.fullmatch(word) and word not in seen:
                seen.add(word)
                words.append(word)
                if len(words) == n:
                    return np.array(words, dtype=object)
    raise ValueError(f"the lists hold {len(words):,} distinct words, fewer than {n:,}")


def _timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def measure(words, queries, n_base, exact):
    from sklearn_ed import FilterRefineNeighbors

    def make():
        return FilterRefineNeighbors(n_neighbors=1, n_jobs=N_JOBS, exact=exact, random_state=0)

    base = words[:n_base]
    search, fit_s = _timed(lambda: make().fit(base))
    append_s = []
    for batch in range(N_BATCHES):
        new = words[n_base + batch * BATCH : n_base + (batch + 1) * BATCH]
        append_s.append(_timed(lambda: search.partial_fit(new))[1])
    row = {
        "n_base": n_base,
        "exact": exact,
        "fit_s": fit_s,
        "partial_fit_s": float(np.median(append_s)),
    }
    if exact:
        union = make().fit(words[: n_base + N_BATCHES * BATCH])
        got, expected = search.kneighbors(queries), union.kneighbors(queries)
        row["same_answers"] = bool(
            np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])
        )
    return row


def report(rows):
    table = [
        [
            f"{row['n_base']:,}",
            "exact=True" if row["exact"] else "defaults",
            f"{row['fit_s']:.1f}",
            f"{1000 * row['partial_fit_s']:.0f}",
            f"{row['fit_s'] / row['partial_fit_s']:.0f}x",
            {True: "yes", False: "NO"}.get(row.get("same_answers"), "-"),
        ]
        for row in rows
    ]
    print(
        format_table(
            [
                "base",
                "mode",
                "fit s",
                f"partial_fit of {BATCH:,} ms",
                "fit / partial_fit",
                "answers = fit on the union",
            ],
            table,
            title=f"partial_fit of {BATCH:,} words (median of {N_BATCHES}), 2 jobs",
        )
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,300000,1000000")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print_header(
        "Growing an index with partial_fit",
        notes=[
            f"words: wordfreq 'large' lists of {', '.join(LANGUAGES)}, distinct, in that order",
            f"queries (exact check): 200 codespell misspellings; {N_JOBS} jobs",
            "kernels loaded by an untimed fit on 2,000 words first",
        ],
    )
    from sklearn_ed.datasets import load_spell_benchmark

    sizes = [int(size) for size in args.sizes.split(",")]
    words = multilingual_words(max(sizes) + N_BATCHES * BATCH)
    queries = load_spell_benchmark(n_base=100_000, n_query=200, n_train=10).query
    measure(words[:5_000], queries[:5], 2_000, exact=True)  # untimed: numba kernels
    rows = []
    for n_base in sizes:
        for exact in (False, True):
            progress(f"{n_base:,} words, exact={exact}")
            rows.append(measure(words, queries, n_base, exact))
    report(rows)
    print_footer(start)


if __name__ == "__main__":
    main()
