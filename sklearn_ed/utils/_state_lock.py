"""Queries and ``partial_fit`` on one estimator from several threads.

``partial_fit`` grows the index, the items, the lower bound and the labels
one after the other; a query reading them in between would mix the old base
with the new (an index that returns items the item list does not hold yet).
Queries therefore share a lock that ``partial_fit`` takes alone: a query sees
the base before or after an addition, never during one, and many queries
still run at once. The locks live beside the estimators, not in them, so
they are never pickled, saved or cloned.
"""

import functools
import threading
import weakref

_LOCKS = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()


class _SharedExclusiveLock:
    """Any number of readers, or one writer. A waiting writer goes first: new
    queries wait for it, so a stream of queries cannot starve ``partial_fit``.
    A thread already reading may read again, and the writer's thread may
    read (``partial_fit``'s own recall check queries the new base)."""

    def __init__(self):
        self._condition = threading.Condition()
        self._readers = 0
        self._waiting_writers = 0
        self._writer = None
        self._reading = threading.local()

    def _depth(self):
        return getattr(self._reading, "depth", 0)

    def read(self, function, *args, **kwargs):
        if self._writer == threading.get_ident() or self._depth():
            return function(*args, **kwargs)
        with self._condition:
            self._condition.wait_for(lambda: self._writer is None and not self._waiting_writers)
            self._readers += 1
        self._reading.depth = 1
        try:
            return function(*args, **kwargs)
        finally:
            self._reading.depth = 0
            with self._condition:
                self._readers -= 1
                self._condition.notify_all()

    def write(self, function, *args, **kwargs):
        if self._writer == threading.get_ident():
            return function(*args, **kwargs)
        with self._condition:
            self._waiting_writers += 1
            self._condition.wait_for(lambda: self._writer is None and self._readers == 0)
            self._waiting_writers -= 1
            self._writer = threading.get_ident()
        try:
            return function(*args, **kwargs)
        finally:
            with self._condition:
                self._writer = None
                self._condition.notify_all()


def _lock_of(estimator):
    with _LOCKS_GUARD:
        lock = _LOCKS.get(estimator)
        if lock is None:
            lock = _LOCKS[estimator] = _SharedExclusiveLock()
        return lock


def reads_fitted_state(method):
    """A query: runs while no ``partial_fit`` of the same estimator does."""

    @functools.wraps(method)
    def query(self, *args, **kwargs):
        return _lock_of(self).read(method, self, *args, **kwargs)

    return query


def writes_fitted_state(method):
    """``partial_fit``: waits for running queries, holds new ones until it is done."""

    @functools.wraps(method)
    def grow(self, *args, **kwargs):
        return _lock_of(self).write(method, self, *args, **kwargs)

    return grow
