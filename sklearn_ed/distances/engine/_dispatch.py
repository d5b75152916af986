"""Where exact distances run: threads here, or a cluster under joblib.

Every batched distance call splits its queries into chunks and maps one
module-level task over them. With joblib's default backend the chunks run
on ``n_jobs`` threads (rapidfuzz releases the GIL). Under a joblib backend
that runs work off this process (``joblib.parallel_config(backend="dask")``)
they run on that backend's cluster, through an executor that lives with the
rest of the cluster code (:mod:`sklearn_ed.dask`): this module knows it only
by name and imports it when such a backend is active, as joblib itself
imports its external backends. No module here imports a higher layer.
"""

import importlib

import numpy as np
from joblib import effective_n_jobs
from joblib.parallel import get_active_backend

from ...utils import map_in_threads, take_items

# Queries per task: big enough to amortise dispatch, small enough to balance.
_MIN_QUERIES_PER_TASK = 16
# joblib backends whose tasks run on a cluster, by class name: the module
# whose ``cluster_executor(backend)`` runs distance chunks there.
CLUSTER_EXECUTORS = {"DaskDistributedBackend": "sklearn_ed.dask"}


def n_workers(n_jobs):
    """Workers the chunks can run on: threads here, or the cluster's.

    A cluster that cannot take work (a closed client, no workers) raises a
    clear error here, before any work is sent.
    """
    executor = _cluster_executor()
    if executor is not None:
        executor.check()
    return effective_n_jobs(n_jobs)


def query_chunks(n_queries, n_jobs):
    """Row indices of the chunks ``n_queries`` queries are split into."""
    n_tasks = min(max(1, n_queries // _MIN_QUERIES_PER_TASK), 4 * n_workers(n_jobs))
    return [chunk for chunk in np.array_split(np.arange(n_queries), n_tasks) if len(chunk)]


def map_chunks(task, X, Y, row_arguments, chunks, n_jobs):
    """``task(X[rows], Y, *(argument[rows] ...))`` for each chunk of rows, in order.

    ``X`` holds one item per row (``None``: the task gets ``None``);
    ``row_arguments`` are per-row arrays or lists (``None`` entries pass
    through). ``task`` must be a module-level function (or a partial of one):
    on a cluster it is pickled, and must not capture the base.
    """
    executor = _cluster_executor()
    if executor is not None:
        executor.check()
        return executor.map(task, X, Y, row_arguments, chunks)

    def run(rows):
        queries, *arguments = chunk_payload(X, row_arguments, rows)
        return task(queries, Y, *arguments)

    return map_in_threads(run, chunks, n_jobs)


def chunk_payload(X, row_arguments, rows):
    """The queries and per-row arguments of one chunk: ``(X[rows], *arguments[rows])``."""
    return (_rows(X, rows), *(_rows(argument, rows) for argument in row_arguments))


def _rows(values, rows):
    if values is None:
        return None
    if isinstance(values, np.ndarray):
        return values[rows]
    return take_items(values, rows)


def _cluster_executor():
    """The executor of joblib's active backend when it runs on a cluster, else None."""
    backend, _ = get_active_backend()
    module = CLUSTER_EXECUTORS.get(type(backend).__name__)
    if module is None:
        return None
    return importlib.import_module(module).cluster_executor(backend)
