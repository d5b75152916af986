"""Shared helpers of the benchmark scripts (not part of the package).

- ``print_header``: the exact command line, library versions and the machine.
- ``PeakRSS``: peak resident memory of one phase of a process, measured by the
  kernel (``VmHWM`` reset through ``/proc/self/clear_refs``), so memory that
  numba, rapidfuzz or OpenMP threads allocate outside Python is counted.
- ``run_worker``: run one side of a comparison in a fresh Python process
  (its own peak RSS, no allocator state inherited from the other side).
- ``format_table``: plain-text tables.
- recall and exact-distance-speedup tables computed chunk by chunk with the
  package's own metrics (``recall_curve``, ``exact_distances_needed``).
"""

import json
import math
import os
import platform
import shlex
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone

import numpy as np

MIB = 2.0**20
# How the reports name the index classes of sklearn_ed.index.
INDEX_NAMES = {
    "FlatIndex": "brute",
    "HNSWIndex": "hnsw",
    "IVFIndex": "ivf",
    "NNDescentIndex": "nndescent",
    "SparseCosineIndex": "sparse",
}
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------- reporting
def _version(name):
    try:
        module = __import__(name)
    except Exception:  # noqa: BLE001 - only for the report
        return "not installed"
    return getattr(module, "__version__", "?")


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as file:
            for line in file:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _total_memory_gib():
    try:
        with open("/proc/meminfo") as file:
            for line in file:
                if line.startswith("MemTotal"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return float("nan")


def _git_commit():
    """The checked-out commit, marked when the working tree has changes."""
    root = REPOSITORY
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        # Result files the runner has just rewritten do not make the code dirty.
        dirty = subprocess.run(
            [
                "git",
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                ".",
                ":(exclude)benchmarks/results",
                # Its results table is rendered from benchmarks/results after each run.
                ":(exclude)README.md",
            ],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + (" with uncommitted changes" if dirty.strip() else "")


def _command():
    """How this script was started: ``python -m benchmarks.NAME ...`` under the runner."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    start = ["-m", spec.name] if spec is not None else sys.argv[:1]
    # "python", not the interpreter's path: a result names no machine's directories.
    return ["python"] + start + sys.argv[1:]


def print_header(title, notes=()):
    """Command line, versions and machine, as the first lines of a report."""
    print(title)
    print("=" * len(title))
    print("command : " + shlex.join(_command()))
    print("date    : " + datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    print("commit  : " + _git_commit())
    versions = ", ".join(
        f"{name} {_version(name)}"
        for name in (
            "sklearn_ed",
            "numpy",
            "scipy",
            "sklearn",
            "numba",
            "rapidfuzz",
            "torch",
            "skorch",
            "faiss",
            "pynndescent",
        )
    )
    print(f"python  : {platform.python_version()} ({platform.python_implementation()})")
    print("versions: " + versions)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"machine : {platform.machine()} {_cpu_model()}, {os.cpu_count()} logical cores "
        f"({cores} usable), {_total_memory_gib():.1f} GiB RAM, {platform.system()} "
        f"{platform.release()}"
    )
    print(f"load    : 1/5/15-min load average at start {load} (the machine is shared)")
    for note in notes:
        print("note    : " + note)
    print()
    sys.stdout.flush()


def print_footer(start_time):
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"finished in {time.perf_counter() - start_time:.0f} s; load average at end {load}")


def progress(message):
    """Progress lines go to stderr, so stdout holds only the report."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def format_table(headers, rows, title=None, align=None):
    """Plain-text table; ``align`` is a string of 'l'/'r' per column."""
    rows = [[str(cell) for cell in row] for row in rows]
    headers = [str(cell) for cell in headers]
    n_columns = len(headers)
    align = align or "l" + "r" * (n_columns - 1)
    widths = [max([len(headers[i])] + [len(row[i]) for row in rows]) for i in range(n_columns)]

    def line(cells):
        parts = [
            cell.ljust(w) if a == "l" else cell.rjust(w) for cell, w, a in zip(cells, widths, align)
        ]
        return "  ".join(parts).rstrip()

    out = []
    if title:
        out += [title, "-" * len(title)]
    out.append(line(headers))
    out.append("  ".join("-" * w for w in widths))
    out += [line(row) for row in rows]
    return "\n".join(out) + "\n"


def parse_list(text, kind=int):
    return [kind(item) for item in str(text).split(",") if item.strip()]


def fmt_seconds(value):
    if value is None or not np.isfinite(value):
        return "-"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def fmt_ratio(value):
    if value is None or not np.isfinite(value):
        return "-"
    return f"{value:.2f}x" if value < 100 else f"{value:.0f}x"


def fmt_mib(value):
    return "-" if value is None else f"{value:.0f}"


# ------------------------------------------------------------ peak memory
def _status_kib(field):
    with open("/proc/self/status") as file:
        for line in file:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _can_reset_hwm():
    try:
        with open("/proc/self/clear_refs", "w") as file:
            file.write("5")
        _status_kib("VmHWM")
        return True
    except OSError:
        return False


class PeakRSS:
    """Peak resident set size of the enclosed block, in MiB.

    On Linux the kernel's high-water mark is reset on entry (writing "5" to
    /proc/self/clear_refs) and read on exit (VmHWM): exact, and it counts
    allocations made outside Python (numba, rapidfuzz, OpenMP threads).
    Elsewhere, a thread samples psutil's RSS every 2 ms (may miss spikes).

    Attributes after exit: ``baseline`` (RSS on entry), ``peak`` (peak RSS in
    the block), ``extra`` (peak - baseline), ``method``.
    """

    def __enter__(self):
        self._kernel = _can_reset_hwm()
        if self._kernel:
            self.method = "kernel VmHWM (reset via /proc/self/clear_refs)"
            self.baseline = _status_kib("VmRSS") / 1024
        else:
            import psutil

            self.method = "psutil RSS sampled every 2 ms"
            self._process = psutil.Process()
            self.baseline = self._process.memory_info().rss / MIB
            self._sampled = self.baseline
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def _sample(self):
        while not self._stop.is_set():
            self._sampled = max(self._sampled, self._process.memory_info().rss / MIB)
            time.sleep(0.002)

    def __exit__(self, *exc):
        if self._kernel:
            self.peak = _status_kib("VmHWM") / 1024
        else:
            self._stop.set()
            self._thread.join()
            self.peak = max(self._sampled, self._process.memory_info().rss / MIB)
        self.extra = self.peak - self.baseline
        return False

    def as_dict(self):
        return {
            "baseline_mib": self.baseline,
            "peak_mib": self.peak,
            "extra_mib": self.extra,
            "method": self.method,
        }


# ---------------------------------------------------------------- workers
def run_worker(module, spec, n_threads):
    """Run ``python -m module --worker SPEC`` in a fresh process; return its JSON reply.

    ``NUMBA_NUM_THREADS`` (and the BLAS/OpenMP thread counts) are set to
    ``n_threads`` so both sides of a comparison use the same cores.
    """
    env = dict(os.environ)
    for name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = str(n_threads)
    env.setdefault("PYTHONWARNINGS", "ignore")
    proc = subprocess.run(
        [sys.executable, "-m", module, "--worker", json.dumps(spec)],
        env=env,
        capture_output=True,
        text=True,
        cwd=REPOSITORY,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise RuntimeError(f"worker {spec} failed with exit status {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def worker_reply(payload):
    """Last stdout line of a worker: its JSON reply."""
    print(json.dumps(payload))
    sys.stdout.flush()


# ------------------------------------------------------- recall and speedup
def planted_scores(left, right, entity):
    """Precision, recall and F1 of the pairs ``(left[i], right[i])`` against
    the pairs of records of one ``entity`` (``make_person_records``' planted
    duplicates)."""
    found = len(left)
    hits = int((entity[left] == entity[right]).sum())
    counts = np.bincount(entity)
    planted = int((counts * (counts - 1) // 2).sum())
    precision, recall = hits / max(found, 1), hits / max(planted, 1)
    return precision, recall, 2 * precision * recall / max(precision + recall, 1e-12)


def kth_exact(exact, k):
    """Per query, the k-th smallest exact distance."""
    return np.partition(np.asarray(exact), k - 1, axis=1)[:, k - 1].astype(np.float64)


def returned_recall(returned_distances, exact, k):
    """Tie-aware top-k recall of returned neighbors.

    A returned neighbor (among the first k) counts if its exact distance is
    at most the query's true k-th smallest exact distance.
    """
    kth = kth_exact(exact, k)
    hits = np.asarray(returned_distances)[:, :k] <= kth[:, None]
    return float(hits.sum(axis=1).mean() / k)


def topk_by_index(distances, k, chunk=64):
    """Brute-force top-k of each row, ties broken by the lower column index.

    Integer distances; works on ``chunk`` rows at a time to bound memory.
    """
    distances = np.asarray(distances)
    n_rows, n_columns = distances.shape
    indices = np.empty((n_rows, k), dtype=np.int64)
    columns = np.arange(n_columns, dtype=np.int64)
    for start in range(0, n_rows, chunk):
        block = distances[start : start + chunk]
        key = block.astype(np.int64) * n_columns + columns
        part = np.argpartition(key, k - 1, axis=1)[:, :k]
        order = np.argsort(np.take_along_axis(key, part, axis=1), axis=1)
        indices[start : start + chunk] = np.take_along_axis(part, order, axis=1)
    return np.take_along_axis(distances, indices, axis=1), indices


def compact_ints(array):
    """Smallest signed integer dtype holding ``array`` (for saving matrices)."""
    top = int(np.max(array)) if array.size else 0
    for dtype in (np.int8, np.int16, np.int32):
        if top <= np.iinfo(dtype).max:
            return array.astype(dtype)
    return array


def side_worker(spec):
    """One side of a comparison, in a fresh process: load data, warm up, measure.

    ``spec["side"] == "brute"``: rapidfuzz ``cdist`` of all queries against the
    base with ``workers=n_jobs``, then the top-k (ties by index). Saves the
    exact matrix.
    ``spec["side"] == "fr"``: ``FilterRefineNeighbors(CGKEmbedder(...),
    check_recall=False)``: fit once, then ``kneighbors`` once per C. Saves
    distances and indices.
    The RSS high-water mark is reset before every measured phase.
    """
    import pickle
    import warnings

    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    from sklearn_ed import CGKEmbedder, FilterRefineNeighbors

    with open(spec["data"], "rb") as file:
        data = pickle.load(file)
    queries, base = data["query"], data["base"]
    n_jobs, k = spec["n_jobs"], spec["k"]
    reply = {"side": spec["side"]}
    if spec["side"] == "brute":
        process.cdist(queries[:2], base[:50], scorer=Levenshtein.distance, workers=n_jobs)
        topk_by_index(np.zeros((2, 50), dtype=np.int32), k)
        with PeakRSS() as memory:
            start = time.perf_counter()
            exact = process.cdist(queries, base, scorer=Levenshtein.distance, workers=n_jobs)
            distances, indices = topk_by_index(exact, k)
            reply["total_s"] = time.perf_counter() - start
        reply["memory"] = memory.as_dict()
        np.save(spec["out"] + "_exact.npy", compact_ints(exact))
        np.save(spec["out"] + "_ind.npy", indices)
        worker_reply(reply)
        return

    algorithm = spec["filter_algorithm"]
    uses_nndescent = algorithm == "nndescent"

    def make(n_candidates, filter_algorithm=algorithm):
        embedder = CGKEmbedder(
            variant=spec["variant"], n_repetitions=spec["n_repetitions"], random_state=0
        )
        return FilterRefineNeighbors(
            embedder,
            n_neighbors=k,
            n_candidates=n_candidates,
            filter_algorithm=filter_algorithm,
            # A fixed C, measured as such: no recall check at fit.
            check_recall=False,
            n_jobs=n_jobs,
            random_state=0,
        )

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Warm-up on a small subset: loads the cached numba kernels, and
        # JIT-compiles pynndescent when it will be used (not cached on disk).
        start = time.perf_counter()
        warm_size = 3000 if uses_nndescent else 200
        make(20, "nndescent" if uses_nndescent else "brute").fit(base[:warm_size]).kneighbors(
            queries[:4]
        )
        reply["warmup_s"] = time.perf_counter() - start
        caught.clear()
        estimator = make(spec["candidates"][0])
        with PeakRSS() as memory:
            start = time.perf_counter()
            estimator.fit(base)
            reply["fit_s"] = time.perf_counter() - start
        reply["fit_memory"] = memory.as_dict()
        reply["embedding_dim"] = int(estimator.embedder_.n_features_out_)
        reply["max_length"] = int(estimator.embedder_.max_length_)
        reply["filter"] = type(estimator.index_).__name__
        reply["queries"] = {}
        for n_candidates in spec["candidates"]:
            estimator.set_params(n_candidates=n_candidates)
            with PeakRSS() as memory:
                start = time.perf_counter()
                distances, indices = estimator.kneighbors(queries)
                query_s = time.perf_counter() - start
            np.save(f"{spec['out']}_C{n_candidates}_dist.npy", distances)
            np.save(f"{spec['out']}_C{n_candidates}_ind.npy", indices)
            reply["queries"][str(n_candidates)] = {"query_s": query_s, "memory": memory.as_dict()}
        reply["warnings"] = sorted({str(w.message).split(";")[0] for w in caught})
    worker_reply(reply)


def recall_and_needed(exact, embedding_rows, ks, candidate_counts, chunk=200):
    """Recall-item values and per-query exact distances needed, chunk by chunk.

    ``embedding_rows(start, stop)`` returns the embedding distances of the
    queries ``start:stop`` to the whole base (so the full float64 matrices
    never have to exist at once). Uses the package's ``recall_curve`` and
    ``exact_distances_needed`` on each chunk.

    Returns ``recall[k] -> array over candidate_counts`` (mean over queries)
    and ``needed[k] -> int array (n_queries,)``.
    """
    from sklearn_ed.metrics import exact_distances_needed, recall_curve

    n_queries = exact.shape[0]
    recall = {k: np.zeros(len(candidate_counts)) for k in ks}
    needed = {k: [] for k in ks}
    for start in range(0, n_queries, chunk):
        stop = min(start + chunk, n_queries)
        exact_chunk = np.asarray(exact[start:stop], dtype=np.float64)
        embedded_chunk = np.asarray(embedding_rows(start, stop), dtype=np.float64)
        for k in ks:
            _, values = recall_curve(
                exact_chunk, embedded_chunk, k=k, n_candidates=candidate_counts
            )
            recall[k] += values * (stop - start)
            needed[k].append(exact_distances_needed(exact_chunk, embedded_chunk, k=k))
    return (
        {k: value / n_queries for k, value in recall.items()},
        {k: np.concatenate(parts) for k, parts in needed.items()},
    )


def distances_at(needed, p):
    """N_p: fewest exact distances per query so that a share p of queries get all k.

    Same rule as ``sklearn_ed.metrics.exact_distance_speedup``.
    """
    ordered = np.sort(needed)
    return int(ordered[int(math.ceil(p * len(ordered))) - 1])


def recall_item_table(recall, candidate_counts, title):
    headers = ["embedding", "k"] + [f"C={c}" for c in candidate_counts]
    rows = []
    for name, by_k in recall.items():
        for k, values in by_k.items():
            rows.append([name, k] + [f"{value:.3f}" for value in values])
    return format_table(headers, rows, title=title, align="lr" + "r" * len(candidate_counts))


def speedup_table(needed, n_base, ks, ps, title):
    """Lary (2022), Tables 5.1 layout: # distances and speedup per p and k."""
    headers = ["embedding", ""] + [f"{round(p * 100)}% k={k}" for p in ps for k in ks]
    rows = []
    for name, by_k in needed.items():
        counts = [distances_at(by_k[k], p) for p in ps for k in ks]
        rows.append([name, "# distances"] + [str(count) for count in counts])
        rows.append(["", "speedup"] + [f"{n_base / count:.2f}" for count in counts])
    return format_table(headers, rows, title=title, align="ll" + "r" * (len(headers) - 2))
