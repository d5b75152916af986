"""Where exact distances run: threads here, or a Dask cluster under joblib.

Every batched distance call splits its queries into chunks and maps one
module-level task over them. With joblib's default backend the chunks run
on ``n_jobs`` threads (rapidfuzz releases the GIL). Under
``joblib.parallel_config(backend="dask")`` they run on the cluster: the base
is sent once to every worker (a copy each, so losing a worker loses one)
and stays there for the next calls while the base lives, each task runs on
a worker holding a copy and carries only its chunk of queries and per-query
arguments, and a task whose worker dies is rescheduled on another. If the cluster
cannot finish (every worker lost, or the client closed), the error says so
and that the call can be repeated.
"""

import weakref

import numpy as np
from joblib import effective_n_jobs
from joblib.parallel import get_active_backend

from ..utils import map_in_threads, take_items

# Queries per task: big enough to amortise dispatch, small enough to balance.
_MIN_QUERIES_PER_TASK = 16
# Bases already on the cluster: (client id, id(base)) -> {worker: future}. An
# entry is dropped when its base is garbage-collected, which releases the copies.
_SCATTERED = {}
# Extra attempts of a task that raised on a worker (a lost worker's tasks are
# rescheduled by Dask without counting against this).
_DASK_RETRIES = 1
# Seconds a scatter through the scheduler may take before it is an error.
_SCATTER_TIMEOUT = 30
# Whole calls tried before reporting a lost cluster: a chunk sent to a worker
# that died is gone, so the call is sent again to the workers left.
_DASK_ATTEMPTS = 2


def n_workers(n_jobs):
    """Workers the chunks can run on: threads here, or the Dask cluster's.

    A closed client or a cluster without workers raises a clear error here,
    before any work is sent (joblib would fail on a None scheduler, or wait).
    """
    client = _dask_client()
    if client is not None:
        if client.status != "running":
            raise RuntimeError(
                "The Dask client of joblib's dask backend is closed; open a Client "
                "(or leave the parallel_config block) and repeat the call."
            )
        if not client.scheduler_info().get("workers"):
            raise RuntimeError(
                "The Dask cluster of joblib's dask backend has no workers; start "
                "some (cluster.scale(n)) and repeat the call."
            )
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
    on Dask it is pickled, and must not capture the base.
    """
    client = _dask_client()
    if client is not None:
        n_workers(n_jobs)
        return _map_on_dask(client, task, X, Y, row_arguments, chunks)

    def run(rows):
        return task(_rows(X, rows), Y, *(_rows(argument, rows) for argument in row_arguments))

    return map_in_threads(run, chunks, n_jobs)


def _rows(values, rows):
    if values is None:
        return None
    if isinstance(values, np.ndarray):
        return values[rows]
    return take_items(values, rows)


def _dask_client():
    """The distributed client of joblib's active dask backend, if any.

    Inside a task already running on a Dask worker (a GridSearchCV fit sent
    there by joblib) the chunks run on that worker's threads: waiting on the
    cluster from a worker thread could deadlock it.
    """
    backend, _ = get_active_backend()
    if type(backend).__name__ != "DaskDistributedBackend" or _on_dask_worker():
        return None
    return backend.client


def _on_dask_worker():
    from distributed import get_worker

    try:
        get_worker()
    except ValueError:
        return False
    return True


def _map_on_dask(client, task, X, Y, row_arguments, chunks):
    from distributed.client import FutureCancelledError
    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    lost = (FutureCancelledError, KilledWorker, CommClosedError, OSError)
    for _ in range(_DASK_ATTEMPTS - 1):
        try:
            return _submit_chunks(client, task, X, Y, row_arguments, chunks)
        except lost:
            # A lost worker takes the chunks sent to it; the base has copies
            # on the others, so the call is sent again to the workers left.
            if client.status != "running":
                break
    try:
        return _submit_chunks(client, task, X, Y, row_arguments, chunks)
    except lost as error:
        _SCATTERED.pop((client.id, id(Y)), None)
        raise RuntimeError(
            f"Dask lost the exact-distance tasks ({type(error).__name__}: {error}): "
            "workers died and none could take their work, or the cluster went away. "
            "Nothing was returned; repeat the call once the cluster has workers."
        ) from error


def _submit_chunks(client, task, X, Y, row_arguments, chunks):
    """One task per chunk, on a worker that holds the base; its queries and
    row arguments go straight to that worker."""
    copies = _base_on_workers(client, Y)
    workers = list(copies)
    futures = [None] * len(chunks)
    for position, worker in enumerate(workers):
        indices = range(position, len(chunks), len(workers))
        if not indices:
            continue
        payloads = scatter_to_workers(
            client,
            [_payload(X, row_arguments, chunks[index]) for index in indices],
            workers=[worker],
        )
        for index, payload in zip(indices, payloads):
            futures[index] = client.submit(
                _run_payload,
                task,
                payload,
                copies[worker],
                workers=[worker],
                allow_other_workers=True,
                pure=False,
                retries=_DASK_RETRIES,
            )
    # Dropping the futures at return releases them (and the chunks) on the
    # cluster; cancelling tasks others may share is left to Dask.
    return client.gather(futures)


def _payload(X, row_arguments, rows):
    return (_rows(X, rows), *(_rows(argument, rows) for argument in row_arguments))


def scatter_to_workers(client, data, **kwargs):
    """``client.scatter`` straight to the workers; through the scheduler when a
    worker it knew of is gone (the direct send would fail on its socket)."""
    from distributed.comm.core import CommClosedError

    try:
        return client.scatter(data, hash=False, direct=True, **kwargs)
    except (CommClosedError, OSError):
        return client.scatter(data, hash=False, timeout=_SCATTER_TIMEOUT, **kwargs)


def _run_payload(task, payload, base):
    queries, *row_arguments = payload
    return task(queries, base, *row_arguments)


def _base_on_workers(client, base):
    """``{worker: future of base}`` for every worker now in the cluster.

    Each worker gets its own copy under its own key, sent at the first call
    and kept while the base lives. One key broadcast to every worker would
    not stay there: Dask's active memory manager drops the replicas of a key
    that no waiting task needs, so between calls all copies but one went
    and the next call sent the base again. A base that cannot be weakly
    referenced (a list) is sent again with each call.
    """
    key = (client.id, id(base))
    workers = list(client.nthreads())  # asks the scheduler: no worker it lost
    held = _SCATTERED.get(key, {})
    copies = {
        worker: held[worker]
        for worker in workers
        if worker in held and held[worker].status == "finished"
    }
    for worker in workers:
        if worker not in copies:
            copies[worker] = scatter_to_workers(client, base, workers=[worker])
    if key not in _SCATTERED:
        try:
            weakref.finalize(base, _SCATTERED.pop, key, None)
        except TypeError:
            return copies
    _SCATTERED[key] = copies
    return copies
