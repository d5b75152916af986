"""Ten million short strings on one machine with the defaults: fit, memory, queries.

Base: the first 3,000,000 distinct words (a third of a smaller base) of ``bench_partial_fit``'s
multilingual lists (13 languages, Latin letters), then person names "first
last" drawn from every first name and last name Faker knows in eleven
Latin-script locales, paired in a seeded order, until ``n`` distinct
strings (lowercase). Queries: the 1,000 codespell misspellings of the words
benchmarks and 1,000 names of the base with one random edit (seeded).

Each method runs in a process of its own, with 2 workers:

- exact brute force, ``rapidfuzz.process.cdist``, on 100 misspellings and
  100 names (its time per query is projected; it is the reference of
  top-1);
- ``FilterRefineNeighbors(n_neighbors=1, n_jobs=2)`` with every default:
  fit time, peak memory (the worker's resident high-water mark over data,
  fit and queries) and memory per million items, and the 2,000 queries.

Top-1 counts a judged query whose returned nearest distance equals the
exact one.

A million DNA reads with the defaults are ``bench_reads_1m``'s.

Run: ``python -m benchmarks.bench_strings_10m --json benchmarks/results/strings_10m.json``
"""

import argparse
import json
import time

import numpy as np

from benchmarks._common import (
    PeakRSS,
    format_table,
    print_footer,
    print_header,
    progress,
    run_worker,
    worker_reply,
)

N_JOBS = 2
N_WORDS = 3_000_000
N_JUDGED = 100  # of each query kind
LOCALES = (
    "en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pt_BR", "sv_SE", "pl_PL",
    "cs_CZ",
)  # fmt: skip
METHODS = ("brute force", "sklearn-ed defaults")


def generated_names(n, exclude, seed=0):
    """``n`` distinct lowercase "first last" names not in ``exclude``, in a seeded order."""
    import importlib

    firsts, lasts = set(), set()
    for locale in LOCALES:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        firsts.update(name.lower() for name in provider.first_names)
        lasts.update(name.lower() for name in provider.last_names)
    firsts, lasts = sorted(firsts), sorted(lasts)
    if len(firsts) * len(lasts) < n:
        raise ValueError(f"{len(firsts) * len(lasts):,} name pairs, fewer than {n:,}")
    rng = np.random.default_rng(seed)
    names, seen = [], set(exclude)
    # Pairs in a seeded order of the whole product, taken block by block.
    for block in np.array_split(rng.permutation(len(firsts) * len(lasts)), 64):
        for pair in block:
            name = f"{firsts[pair // len(lasts)]} {lasts[pair % len(lasts)]}"
            if name not in seen:
                seen.add(name)
                names.append(name)
                if len(names) == n:
                    return names
    raise ValueError(f"only {len(names):,} distinct names")


def with_one_edit(strings, rng):
    """Each string with one random substitution, insertion or deletion."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    edited = []
    for string in strings:
        where = int(rng.integers(len(string)))
        kind = int(rng.integers(3))
        letter = letters[int(rng.integers(len(letters)))]
        if kind == 0:
            edited.append(string[:where] + letter + string[where + 1 :])
        elif kind == 1:
            edited.append(string[:where] + letter + string[where:])
        else:
            edited.append(string[:where] + string[where + 1 :])
    return edited


def data(n_base):
    from benchmarks.bench_partial_fit import multilingual_words
    from sklearn_ed.datasets import load_spell_benchmark

    # A third of the base, at most N_WORDS, is words (all of the 10M run's 3M).
    words = list(multilingual_words(min(N_WORDS, n_base // 3)))
    names = generated_names(n_base - len(words), exclude=words)
    base = np.array(words + names, dtype=object)
    rng = np.random.default_rng(1)
    misspellings = list(load_spell_benchmark(n_base=100_000, n_query=1_000, n_train=10).query)
    name_queries = with_one_edit(rng.choice(np.array(names, dtype=object), 1_000), rng)
    return base, np.array(misspellings + name_queries, dtype=object)


def judged(n_queries):
    """The judged queries: the first N_JUDGED of each half."""
    half = n_queries // 2
    return np.r_[np.arange(N_JUDGED), half + np.arange(N_JUDGED)]


def _brute(base, queries):
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    nearest = np.empty(len(queries))
    for start in range(0, len(queries), 10):
        block = process.cdist(
            queries[start : start + 10],
            base,
            scorer=Levenshtein.distance,
            workers=N_JOBS,
            dtype=np.int32,
        )
        nearest[start : start + 10] = block.min(axis=1)
    return nearest


def worker(spec):
    """One method in this process: times, memory, nearest distances of the judged queries."""
    with PeakRSS() as memory:
        base, queries = data(spec["n_base"])
        rows = judged(len(queries))
        if spec["method"] == "brute force":
            start = time.perf_counter()
            nearest = _brute(base, queries[rows])
            fit_s, query_s = 0.0, (time.perf_counter() - start) * len(queries) / len(rows)
            stats = {}
        else:
            from sklearn_ed import FilterRefineNeighbors

            FilterRefineNeighbors(n_neighbors=1).fit(base[:2_000]).kneighbors(queries[:5])
            search = FilterRefineNeighbors(n_neighbors=1, n_jobs=N_JOBS, random_state=0)
            start = time.perf_counter()
            search.fit(base)
            fit_s = time.perf_counter() - start
            start = time.perf_counter()
            nearest = search.kneighbors(queries)[0][:, 0][rows]
            query_s = time.perf_counter() - start
            stats = {
                "embedder": type(search.embedder_).__name__,
                "n_candidates": int(search.n_candidates_),
                "near_lookup": search.search_.near is not None,
            }
    worker_reply(
        {
            "fit_s": fit_s,
            "query_ms": 1000 * query_s / len(queries),
            "nearest": np.asarray(nearest).tolist(),
            "peak_mib": memory.peak,
            **stats,
        }
    )


def run(n_base):
    replies = {}
    for method in METHODS:
        progress(f"{n_base:,} strings: {method}")
        replies[method] = run_worker(
            "benchmarks.bench_strings_10m", {"n_base": n_base, "method": method}, N_JOBS
        )
    exact = np.asarray(replies["brute force"]["nearest"])
    brute_ms = replies["brute force"]["query_ms"]
    rows = []
    for method, reply in replies.items():
        found = np.asarray(reply["nearest"]) == exact
        rows.append(
            {
                "n_base": n_base,
                "method": method,
                "fit_s": reply["fit_s"],
                "query_ms": reply["query_ms"],
                "speedup": brute_ms / reply["query_ms"],
                "top1_words": float(found[:N_JUDGED].mean()),
                "top1_names": float(found[N_JUDGED:].mean()),
                "peak_gib": reply["peak_mib"] / 1024,
                "gib_per_million": reply["peak_mib"] / 1024 / (n_base / 1e6),
                **{
                    key: reply[key]
                    for key in ("embedder", "n_candidates", "near_lookup")
                    if key in reply
                },
            }
        )
    return rows


def report(rows):
    table = [
        [
            f"{row['n_base']:,}",
            row["method"]
            + (f" ({row['embedder']}, C={row['n_candidates']})" if "embedder" in row else ""),
            f"{row['fit_s']:.1f}",
            f"{row['query_ms']:.3f}",
            f"{row['speedup']:.1f}x",
            f"{row['top1_words']:.3f}",
            f"{row['top1_names']:.3f}",
            f"{row['peak_gib']:.2f}",
            f"{row['gib_per_million']:.2f}",
        ]
        for row in rows
    ]
    print(
        format_table(
            ["base", "method", "fit s", "ms/query", "vs brute", "top-1 words", "top-1 names",
             "peak GiB", "GiB per 1M"],
            table,
            title="Nearest string of 1,000 misspellings and 1,000 mistyped names, 2 workers",
            align="llrrrrrrr",
        )
    )  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-base", type=int, default=10_000_000)
    parser.add_argument("--json", default=None)
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        spec = json.loads(args.worker)
        return worker(spec)
    start = time.perf_counter()
    print_header(
        "Ten million short strings with the defaults",
        notes=[
            f"base: {N_WORDS:,} distinct words of wordfreq's large lists in Latin letters, "
            f"then Faker's first and last names ({', '.join(LOCALES)}) paired in a seeded order",
            "queries: 1,000 codespell misspellings, 1,000 names of the base with one edit",
            f"brute force on {N_JUDGED} of each, its time per query projected; top-1 judged on "
            "those",
            "peak memory: the worker's resident high-water mark over data, fit and queries",
        ],
    )
    rows = run(args.n_base)
    report(rows)
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"rows": rows}, file, indent=1)
    print_footer(start)


if __name__ == "__main__":
    main()
