"""Exact distances on a Dask cluster, under ``joblib.parallel_config(backend="dask")``.

:mod:`sklearn_ed.distances` splits every batched distance call into chunks
of queries and, when joblib's dask backend is active, hands them to the
executor made here (it finds this module by name). The base is sent once to
every worker (a copy each, so losing a worker loses one) and stays there for
the next calls while the base lives; each task runs on a worker holding a
copy and carries only its chunk of queries and per-query arguments; a task
whose worker dies is rescheduled on another. If the cluster cannot finish
(every worker lost, or the client closed), the error says so and that the
call can be repeated.
"""

import weakref

from distributed import get_worker
from distributed.client import FutureCancelledError
from distributed.comm.core import CommClosedError
from distributed.scheduler import KilledWorker

from ..distances import chunk_payload

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
_LOST = (FutureCancelledError, KilledWorker, CommClosedError, OSError)


def cluster_executor(backend):
    """The executor for joblib's dask ``backend``, or None inside a Dask task.

    Inside a task already running on a Dask worker (a GridSearchCV fit sent
    there by joblib) the chunks run on that worker's threads: waiting on the
    cluster from a worker thread could deadlock it.
    """
    if _on_dask_worker():
        return None
    return DaskExecutor(backend.client)


class DaskExecutor:
    """Runs chunks of a distance call on the workers of ``client``."""

    def __init__(self, client):
        self.client = client

    def check(self):
        """A clear error before any work is sent (joblib would fail on a None
        scheduler, or wait for workers that never come)."""
        if self.client.status != "running":
            raise RuntimeError(
                "The Dask client of joblib's dask backend is closed; open a Client "
                "(or leave the parallel_config block) and repeat the call."
            )
        if not self.client.nthreads():
            raise RuntimeError(
                "The Dask cluster of joblib's dask backend has no workers; start "
                "some (cluster.scale(n)) and repeat the call."
            )

    def map(self, task, X, Y, row_arguments, chunks):
        """``task(X[rows], Y, *(argument[rows] ...))`` per chunk, in order."""
        client = self.client
        for _ in range(_DASK_ATTEMPTS - 1):
            try:
                return _submit_chunks(client, task, X, Y, row_arguments, chunks)
            except _LOST:
                # A lost worker takes the chunks sent to it; the base has copies
                # on the others, so the call is sent again to the workers left.
                if client.status != "running":
                    break
        try:
            return _submit_chunks(client, task, X, Y, row_arguments, chunks)
        except _LOST as error:
            _SCATTERED.pop((client.id, id(Y)), None)
            raise RuntimeError(
                f"Dask lost the exact-distance tasks ({type(error).__name__}: {error}): "
                "workers died and none could take their work, or the cluster went away. "
                "Nothing was returned; repeat the call once the cluster has workers."
            ) from error


def _on_dask_worker():
    try:
        get_worker()
    except ValueError:
        return False
    return True


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
            [chunk_payload(X, row_arguments, chunks[index]) for index in indices],
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


def scatter_to_workers(client, data, **kwargs):
    """``client.scatter`` straight to the workers; through the scheduler when a
    worker it knew of is gone (the direct send would fail on its socket)."""
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
