"""Threads for GIL-free work (rapidfuzz, numba, numpy): a pool kept for the process.

joblib starts its threads at every call (10-20 ms), more than the whole work
of a small batch. Under a joblib configuration (``parallel_config``), joblib
is used as configured.
"""

import os
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from joblib.parallel import get_active_backend

# rapidfuzz starts its threads at every call with ``workers`` above 1: about
# 0.25 ms, as long as it takes to compare 2,000 pairs of short records on one
# thread. Two workers were level with one at 20,000 pairs (cpdist under
# Levenshtein, 25-character records), 1.36 times as fast at 100,000. Long
# strings get threads from as many characters, so that 500 pairs of 1 kbp
# reads (20 ms of one thread) are shared too.
PARALLEL_PAIRS = 20_000
PARALLEL_CHARACTERS = PARALLEL_PAIRS * 2 * 25
# Pairs whose lengths estimate a call's characters.
_LENGTH_SAMPLE = 64

_POOLS = {}
_POOL_LOCK = threading.Lock()
_POOL_THREAD = threading.local()


def _forget_pools_in_child():
    # A forked child inherits the pools but not their threads: work sent to
    # them would never run. The child makes its own.
    global _POOL_LOCK
    _POOLS.clear()
    _POOL_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools_in_child)


def default_backend():
    """Whether joblib runs with its default backend (no Dask or other config)."""
    backend, _ = get_active_backend()
    return type(backend).__name__ == "LokyBackend"


def map_in_threads(function, items, n_jobs):
    """``[function(item) for item in items]``, on ``n_jobs`` threads.

    Parameters
    ----------
    function : callable
    items : list
    n_jobs : int or None
        joblib semantics (``-1``: all cores).

    Returns
    -------
    results : list
        In the order of ``items``.
    """
    # A task of a pool thread (a callable metric computing distances itself)
    # runs its items in place: waiting on the pool could deadlock. One item
    # runs in place before effective_n_jobs, which waits for a Dask backend's
    # workers.
    if len(items) <= 1 or getattr(_POOL_THREAD, "active", False):
        return [function(item) for item in items]
    n_threads = effective_n_jobs(n_jobs)
    if n_threads == 1:
        return [function(item) for item in items]
    if default_backend():
        return list(_thread_pool(n_threads).map(function, items))
    return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(function)(item) for item in items)


def iter_in_threads(function, tasks, n_jobs):
    """``function(task)`` of each task in order, computed on ``n_jobs`` threads
    at most that many ahead of the consumer (so that few results wait in memory).

    Unlike :func:`map_in_threads` it streams, and each call has a pool of its
    own: a task may itself call it (the partition filter expands a task's
    groups so), where tasks of one shared pool waiting on each other could
    deadlock.

    Parameters
    ----------
    function : callable
    tasks : iterable
    n_jobs : int or None
        joblib semantics (``-1``: all cores).

    Yields
    ------
    result
        ``function(task)``, in the order of ``tasks``.
    """
    n_threads = effective_n_jobs(n_jobs)
    if n_threads == 1:
        yield from map(function, tasks)
        return
    with ThreadPoolExecutor(n_threads) as pool:
        pending = deque()
        for task in tasks:
            pending.append(pool.submit(function, task))
            if len(pending) >= n_threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _thread_pool(n_threads):
    with _POOL_LOCK:
        pool = _POOLS.get(n_threads)
        if pool is None:
            pool = _POOLS[n_threads] = ThreadPoolExecutor(
                n_threads, thread_name_prefix="sklearn_ed", initializer=_mark_pool_thread
            )
        return pool


def _mark_pool_thread():
    _POOL_THREAD.active = True


def pair_call_workers(X, Y, workers):
    """rapidfuzz's ``workers`` for one paired call over ``X[i], Y[i]``:
    ``workers`` from ``PARALLEL_PAIRS`` pairs or ``PARALLEL_CHARACTERS``
    characters on (estimated from the lengths of up to 64 pairs spread over
    the call), 1 below, where starting the threads costs more than they save.

    Parameters
    ----------
    X, Y : sequence of str or of sequences, same length
        The pairs the call compares.
    workers : int
        The workers the caller would use (rapidfuzz semantics, -1: all cores).

    Returns
    -------
    workers : int
    """
    n_pairs = len(X)
    if n_pairs == 0 or workers == 1:
        return 1
    if n_pairs >= PARALLEL_PAIRS:
        return workers
    sampled = np.linspace(0, n_pairs - 1, min(n_pairs, _LENGTH_SAMPLE)).astype(np.int64)
    per_pair = sum(len(X[i]) + len(Y[i]) for i in sampled.tolist()) / len(sampled)
    return workers if n_pairs * per_pair >= PARALLEL_CHARACTERS else 1
