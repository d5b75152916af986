"""One method of one group of cells of the benchmark matrix, in a process of its own.

``python -m benchmarks._matrix_workers --worker SPEC`` (through
``_common.run_worker``, 2 threads). A kNN worker fits once and answers every
query set of its cells; a join worker runs every threshold, tightest first.
After each step the worker writes what it has so far to ``SPEC["out"] +
".json"`` (arrays beside it, ``.npy``), so a worker stopped by its time limit
(``SPEC["timeout"]``, SIGALRM) still leaves the cells it finished.
"""

import gc
import json
import pickle
import signal
import sys
import time
from functools import partial

import numpy as np

from benchmarks._common import PeakRSS, worker_reply
from benchmarks._matrix_data import load_base, make_queries
from benchmarks._matrix_metrics import N_JOBS, PROCESSORS, distances, limit, process_strings

WARM_BASE, WARM_QUERIES, BLOCK = 2_000, 10, 20
PROBE, MIN_JUDGED, REPEAT_BELOW, EXACT_ROUNDS = 20_000, 5, 1.0, 5
# Side by side, a method under REPEAT_BELOW is called until its calls add up
# to TIMED_SECONDS (at most MAX_ROUNDS calls): five calls of a 0.04 s join
# put brute force and auto, running the same code under Jaro, 0.86 to 1.12
# apart (matrix_joins at 93a08ae). One from REPEAT_BELOW to ONCE_FROM is
# called LONG_ROUNDS times: one call of auto on 10,000 words within 3 edits
# was 1.66 times brute force's median (0a81b03), a single sample's choice;
# and with ONCE_FROM at 3 s, auto's one call of 3.22 s on 100,000 records
# under normalized Indel was 1.20 times brute force's first (2.68 s; then
# 2.55 and 3.05 s: matrix_joins_100k at 5215f64). Where auto runs brute
# force's own code (Jaro), calls adding up to 0.6 s (at most 15) put the
# two 0.90 to 1.09 apart round by round (dcecacf): 1 s, at most 25 calls.
TIMED_SECONDS, MAX_ROUNDS, ONCE_FROM, LONG_ROUNDS = 1.0, 25, 10.0, 3
TIMING_RULE = (
    f"the median of {EXACT_ROUNDS} to {MAX_ROUNDS} calls adding up to {TIMED_SECONDS:g} s "
    f"under {REPEAT_BELOW:g} s, of {LONG_ROUNDS} up to {ONCE_FROM:g} s, 1 call above"
)
EXACT_TIMING = (
    f"auto, partition, brute, dedup: one worker, a new seeded order each round; {TIMING_RULE}"
)
# One call of 1,000 queries on 5,000 records takes 30 to 60 ms: single calls
# put one build's k = 10 queries under normalized Indel at 0.038 and 0.063 ms
# a query in two runs, where five calls each gave 0.032 to 0.034.
KNN_TIMING = (
    f"kNN: defaults' and exact's query sets and rapidfuzz's rows timed by {TIMING_RULE}; "
    "fits and peers once"
)


class Partial(dict):
    """The reply, saved to ``out.json`` after every change."""

    def __init__(self, out):
        super().__init__()
        self.out = out

    def save(self, key, value, array=None):
        self[key] = value
        if array is not None:
            np.save(f"{self.out}_{key}.npy", array)
        with open(self.out + ".json", "w") as file:
            json.dump(self, file)


def prepare(path, base_name, n, query_sets=(), n_queries=0):
    """Write the base and its query sets once, for every worker of the group to read."""
    base = load_base(base_name, n)
    queries = {name: make_queries(base_name, base, name, n_queries) for name in query_sets}
    with open(path, "wb") as file:
        pickle.dump({"base": base, "queries": queries}, file, protocol=pickle.HIGHEST_PROTOCOL)
    return base


def _data(spec):
    with open(spec["data"], "rb") as file:
        data = pickle.load(file)
    return data["base"], data["queries"]


def n_judged(spec, queries, base):
    """How many rows rapidfuzz computes: ``n_judged``, fewer (not under ``MIN_JUDGED``)
    when a probe says they would take more than ``budget`` seconds."""
    probe = base[:PROBE]
    distances(queries[:2], probe, spec["metric"])  # warm-up
    start = time.perf_counter()
    distances(queries[:4], probe, spec["metric"], cutoff=spec.get("thresholds", [None])[0])
    per_row = (time.perf_counter() - start) / 4 * len(base) / len(probe)
    return int(np.clip(spec["budget"] / per_row, MIN_JUDGED, spec["n_judged"]))


def knn_brute(spec, reply):
    """Exact top-k of the first queries of each set (``n_judged``; time per query projected)."""
    base, query_sets = _data(spec)
    metric, k = spec["metric"], max(spec["ks"])
    start = time.perf_counter()
    processed = process_strings(spec["processor"], base)
    reply.save("fit", {"fit_s": time.perf_counter() - start})
    first = process_strings(spec["processor"], next(iter(query_sets.values())))
    judged_count = n_judged(spec, first, processed)
    for name, queries in query_sets.items():
        judged = queries[:judged_count]
        top = np.empty((len(judged), k))

        def answer_judged(judged=judged, top=top):
            judged = process_strings(spec["processor"], judged)
            # As many rows a call as 32 MB of distances hold: rapidfuzz's
            # threads then share every call, as a user's one cdist call would.
            rows = max(BLOCK, 2**22 // len(processed))
            for row in range(0, len(judged), rows):
                # Edit counts stay int32, as a user's cdist returns them: a
                # float copy of the block took a third of the time on words.
                block = distances(judged[row : row + rows], processed, metric, native=True)
                part = np.partition(block, min(k, block.shape[1]) - 1, axis=1)[:, :k]
                top[row : row + rows] = np.sort(part, axis=1)

        with PeakRSS() as memory:
            seconds, _ = _median_seconds(answer_judged)
        answer = {"query_ms": 1000 * seconds / len(judged), "peak_mib": memory.peak}
        reply.save(name, dict(answer, judged=len(judged)), top)


def knn_ours(spec, reply):
    """FilterRefineNeighbors (defaults or exact=True): per k one fit, then every query set."""
    from sklearn_ed import FilterRefineNeighbors

    base, query_sets = _data(spec)

    def make(k):
        return FilterRefineNeighbors(
            metric=spec["metric"],
            processor=PROCESSORS[spec["processor"]],
            n_neighbors=k,
            exact=spec["method"] == "exact",
            n_jobs=N_JOBS,
            random_state=0,
        )

    # Untimed: numba kernels, each path's (a lookup a query set alone reaches).
    warm = [query for queries in query_sets.values() for query in queries[:WARM_QUERIES]]
    make(1).fit(base[:WARM_BASE]).kneighbors(warm)
    for k in spec["ks"]:
        with PeakRSS() as memory:
            start = time.perf_counter()
            search = make(k).fit(base)
            fit_s = time.perf_counter() - start
        fitted = {"fit_s": fit_s, "peak_mib": memory.peak, "search": search.search_method_}
        reply.save(f"fit_k{k}", fitted)
        for name, queries in query_sets.items():
            with PeakRSS() as memory:
                seconds, (found, _) = _median_seconds(partial(search.kneighbors, queries))
            answer = {"query_ms": 1000 * seconds / len(queries), "peak_mib": memory.peak}
            reply.save(f"{name}_k{k}", answer, found[: spec["n_judged"]].astype(np.float64))


def _median_seconds(call):
    """The median seconds of ``call()`` repeated as ``_timed_again`` says, and
    its last result."""
    times = []
    while _timed_again(times):
        gc.collect()
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def knn_peer(spec, reply):
    from benchmarks._matrix_peers import knn_peer as run_peer

    base, query_sets = _data(spec)
    with PeakRSS() as memory:
        fit_s, answers = run_peer(
            spec["method"], base, query_sets, spec["metric"], spec["processor"], spec["ks"]
        )
    for k in spec["ks"]:
        reply.save(f"fit_k{k}", {"fit_s": fit_s, "peak_mib": memory.peak})
    for (name, k), (seconds, found) in answers.items():
        answer = {"query_ms": 1000 * seconds / spec["n_queries"], "peak_mib": memory.peak}
        reply.save(f"{name}_k{k}", answer, found[: spec["n_judged"]])


def judged_rows(n, n_judged):
    """The rows the join's pairs are checked on (seeded, the same in every worker)."""
    if n <= n_judged:
        return np.arange(n)
    return np.sort(np.random.default_rng(n).choice(n, n_judged, replace=False))


def _touching(left, right, rows):
    keep = np.isin(left, rows) | np.isin(right, rows)
    return np.stack([left[keep], right[keep]], axis=1).astype(np.int64)


def join_brute(spec, reply):
    """cdist with ``score_cutoff`` of the judged rows against all; the upper
    triangle's time projected (half a row per row)."""
    strings, _ = _data(spec)
    start = time.perf_counter()
    processed = process_strings(spec["processor"], strings)
    process_s = time.perf_counter() - start
    rows = judged_rows(len(strings), n_judged(spec, processed, processed))
    reply.save("rows", len(rows))
    for index, threshold in enumerate(spec["thresholds"]):
        found = []
        # Before the clock starts: the first call imports the package (0.2 s,
        # 25 times over in the projected time of 10,000 strings).
        cutoff = limit(spec["metric"], threshold)
        start = time.perf_counter()
        for row in range(0, len(rows), BLOCK):
            block = rows[row : row + BLOCK]
            values = distances(processed[block], processed, spec["metric"], cutoff=cutoff)
            i, j = np.nonzero(values <= cutoff)
            i = block[i]
            keep = i != j
            found.append(np.stack([np.minimum(i, j)[keep], np.maximum(i, j)[keep]], axis=1))
        seconds = (time.perf_counter() - start) * len(strings) / (2 * len(rows))
        pairs = np.unique(np.concatenate(found), axis=0) if found else np.zeros((0, 2), int)
        reply.save(f"t{index}", {"seconds": process_s + seconds, "pairs": len(pairs)}, pairs)


def _warm_up(method, strings, threshold, keywords):
    """Untimed: every engine a method may choose compiles its numba kernels (or loads
    them from numba's cache) and imports its modules here, not in the timed calls."""
    from sklearn_ed import StringDeduplicator, similarity_join

    if method == "tf-idf":
        from benchmarks._matrix_peers import tfidf_join

        tfidf_join(strings[:300], keywords["metric"], threshold)
        return
    for engine in ("partition", "brute"):
        try:
            similarity_join(strings[:300], threshold=threshold, method=engine, **keywords)
        except ValueError:  # the engine does not take this metric
            pass
    # auto's pilots and samples too: a join of 300 strings is too small for
    # them, and in a fresh process the first auto call on 100,000 records took
    # 1.12 s where the second took 0.64 s (the partition filter: 0.57 s).
    from sklearn_ed.join import _auto

    measured_from, _auto.COMPARED_FROM_SECONDS = _auto.COMPARED_FROM_SECONDS, 0.0
    try:
        similarity_join(strings[:3000], threshold=threshold, method="auto", **keywords)
    finally:
        _auto.COMPARED_FROM_SECONDS = measured_from
    if method == "dedup":
        StringDeduplicator(threshold, **keywords).fit_predict(strings[:300])


def _join_once(method, strings, threshold, spec, keywords):
    from benchmarks._matrix_peers import tfidf_join
    from sklearn_ed import StringDeduplicator, similarity_join

    if method == "dedup":
        return StringDeduplicator(threshold, **keywords).fit_predict(strings)
    if method == "tf-idf":
        return tfidf_join(process_strings(spec["processor"], strings), spec["metric"], threshold)
    left, right, _ = similarity_join(strings, threshold=threshold, method=method, **keywords)
    return np.stack([left, right], axis=1)


def join_peer(spec, reply):
    """The tf-idf peer, every threshold.

    A call under ``REPEAT_BELOW`` seconds is timed twice more (the median is kept):
    short calls vary by 20-30 % on a shared machine.
    """
    strings, _ = _data(spec)
    rows = judged_rows(len(strings), spec["n_judged"])
    method = spec["method"]
    keywords = dict(metric=spec["metric"], processor=PROCESSORS[spec["processor"]], n_jobs=N_JOBS)
    _warm_up(method, strings, spec["thresholds"][0], keywords)
    for index, threshold in enumerate(spec["thresholds"]):
        times = []
        while len(times) < 3 and (len(times) < 1 or times[0] < REPEAT_BELOW):
            with PeakRSS() as memory:
                start = time.perf_counter()
                found = _join_once(method, strings, threshold, spec, keywords)
                times.append(time.perf_counter() - start)
        answer = {"seconds": float(np.median(times)), "peak_mib": memory.peak, "pairs": len(found)}
        reply.save(f"t{index}", answer, _touching(found[:, 0], found[:, 1], rows))


def join_exact(spec, reply):
    """similarity_join's exact methods and the deduplicator (``spec["methods"]``:
    auto, partition, brute, dedup) side by side, every threshold: the methods
    take turns, in a new seeded order each round, so that auto's time over
    the faster of the other two, and the deduplicator's over the join, are
    not comparisons of two moments of a shared machine (timed in processes
    of their own, minutes apart, words within 2 edits gave 1.46 where
    ``bench_join_auto``, side by side at the same time, gave 1.13). A
    rotation put auto after the deduplicator in two rounds of three, and
    auto, running brute force's code under Jaro, took 1.1 to 1.2 times its
    time (0a81b03). A method whose first call took under ``REPEAT_BELOW``
    seconds is timed at least ``EXACT_ROUNDS`` times and until its calls add
    up to ``TIMED_SECONDS`` (at most ``MAX_ROUNDS``), one under
    ``ONCE_FROM`` seconds ``LONG_ROUNDS`` times, a longer one once; the
    median is kept. Keys ``"t<index>@method"``; the deduplicator's arrays
    are its labels.
    """
    strings, _ = _data(spec)
    rows = judged_rows(len(strings), spec["n_judged"])
    methods = spec["methods"]
    keywords = dict(metric=spec["metric"], processor=PROCESSORS[spec["processor"]], n_jobs=N_JOBS)
    _warm_up("dedup" if "dedup" in methods else "auto", strings, spec["thresholds"][0], keywords)
    for index, threshold in enumerate(spec["thresholds"]):
        times, found, peaks = {method: [] for method in methods}, {}, {}
        rng = np.random.default_rng(index)
        for _ in range(MAX_ROUNDS):
            for method in [methods[i] for i in rng.permutation(len(methods))]:
                if not _timed_again(times[method]):
                    continue
                gc.collect()  # the garbage of the method before is not this one's time
                with PeakRSS() as memory:
                    start = time.perf_counter()
                    found[method] = _join_once(method, strings, threshold, spec, keywords)
                    times[method].append(time.perf_counter() - start)
                peaks[method] = memory.peak
        for method in methods:
            answer = {"seconds": float(np.median(times[method])), "peak_mib": peaks[method],
                      "times": times[method]}  # fmt: skip
            if method == "dedup":
                reply.save(f"t{index}@{method}", dict(answer, pairs=None), found[method])
                continue
            pairs = found[method]
            answer["pairs"] = len(pairs)
            reply.save(f"t{index}@{method}", answer, _touching(pairs[:, 0], pairs[:, 1], rows))


def _timed_again(done):
    """Whether a method timed ``done`` so far is called once more (see join_exact)."""
    if not done:
        return True
    if done[0] >= ONCE_FROM or len(done) >= MAX_ROUNDS:
        return False
    if done[0] >= REPEAT_BELOW:
        return len(done) < LONG_ROUNDS
    return len(done) < EXACT_ROUNDS or sum(done) < TIMED_SECONDS


WORKERS = {
    ("knn", "rapidfuzz"): knn_brute,
    ("knn", "defaults"): knn_ours,
    ("knn", "exact"): knn_ours,
    ("join", "rapidfuzz"): join_brute,
    ("join", "exact_joins"): join_exact,
}


def main(spec):
    if spec.get("timeout"):
        signal.alarm(int(spec["timeout"]))  # no handler: the process ends, its partial stays
    reply = Partial(spec["out"])
    key = (spec["part"], spec["method"])
    worker = WORKERS.get(key, knn_peer if spec["part"] == "knn" else join_peer)
    try:
        worker(spec, reply)
    except (ValueError, TypeError, MemoryError, ImportError) as error:
        reply.save("error", f"{type(error).__name__}: {error}".splitlines()[0][:200])
    worker_reply({"done": True})


if __name__ == "__main__":
    main(json.loads(sys.argv[sys.argv.index("--worker") + 1]))
