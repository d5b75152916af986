"""The registry of join methods, which ``method="auto"``, the deduplicator, the
estimators' ``join`` and the command line all read.

A method is a :class:`JoinMethod`: a name, an engine giving the blocks of
pairs of two lists, whether it is exact, what it cannot serve, and a plan
``"auto"`` times on a sample (:mod:`._auto`). A new method is one module and one
:func:`register_join_method` call; the exact ones are registered by this
package, the approximate ``"filter"`` by :mod:`sklearn_ed.neighbors` (it needs
an estimator, which sits above this package).
"""

from dataclasses import dataclass
from typing import Callable, Optional

AUTO = "auto"


@dataclass(frozen=True)
class JoinMethod:
    """A way to find the pairs within a threshold.

    Parameters
    ----------
    name : str
        What ``method=`` calls it.
    engine : callable
        ``engine(left, right, spec, limit, n_jobs)`` yields blocks
        ``(left_rows, right_rows, distances)`` of the pairs of two arrays of
        strings (``right=None``: a self-join, each pair once with
        ``left_rows < right_rows``), each block sorted; the lists hold no
        copies (the caller joins distinct strings and expands the pairs).
    exact : bool, default=True
        Whether every pair within the threshold is found. The deduplicator and
        the command line use exact methods only.
    refusal : callable, default=None
        ``refusal(spec, limit)``: why the method cannot serve this metric and
        threshold, or None.
    plan : callable, default=None
        ``plan(left, right, spec, limit, n_jobs)``: the join prepared, an
        object with ``sample(rows) -> share`` (do the work of at least these
        random rows of ``left`` in one thread, return the share of the whole
        join's work done) and ``blocks()`` (the join's blocks, reusing what the samples
        kept), or None where the method declines (a sample says it cannot
        win); it may say ``settled`` (true when another sample would time
        the same work: ``"auto"`` samples it no more; true from the start,
        its first call is its sample), ``kept`` (the share
        of the join's work its samples did and ``blocks()`` reuses) and
        ``deferred_seconds`` (the estimated time of the preparation it left
        to ``blocks()``).
        ``"auto"`` times the preparation and the samples of each exact
        method with a plan and runs the one whose run, its preparation
        done, it estimates the shortest; None: auto never picks the method.
    small_joins : bool, default=False
        Whether ``"auto"`` takes this method, without timing any, for joins of
        at most ``SMALL_JOIN_PAIRS`` pairs (where a sample costs as much as
        the join).
    """

    name: str
    engine: Callable
    exact: bool = True
    refusal: Optional[Callable] = None
    plan: Optional[Callable] = None
    small_joins: bool = False


_METHODS = {}


def register_join_method(method, *, overwrite=False):
    """Add a :class:`JoinMethod`, so that ``method=`` names it everywhere.

    Parameters
    ----------
    method : JoinMethod
        The method; ``method.name`` becomes its name.
    overwrite : bool, default=False
        Replace a method registered under the same name (otherwise a
        ``ValueError``).

    Returns
    -------
    method : JoinMethod
    """
    if not isinstance(method, JoinMethod):
        raise TypeError(f"method must be a JoinMethod, got {type(method).__name__}.")
    if method.name == AUTO or (method.name in _METHODS and not overwrite):
        raise ValueError(f"A join method named {method.name!r} is already registered.")
    _METHODS[method.name] = method
    return method


def join_method_names(exact_only=False):
    """``"auto"`` and the registered methods' names.

    Parameters
    ----------
    exact_only : bool, default=False
        Only the exact methods (those the deduplicator and the command line
        offer).

    Returns
    -------
    names : tuple of str

    Examples
    --------
    >>> from sklearn_ed.join import join_method_names
    >>> join_method_names(exact_only=True)
    ('auto', 'partition', 'brute')
    """
    return (AUTO, *(name for name, method in _METHODS.items() if method.exact or not exact_only))


def checked_join_method(name, spec, limit):
    """The registered :class:`JoinMethod` named (None for ``"auto"``), or a
    ``ValueError`` naming the methods or why this one cannot serve."""
    if name == AUTO:
        return None
    if name not in _METHODS:
        raise ValueError(f"method must be one of {join_method_names()}, got {name!r}.")
    method = _METHODS[name]
    reason = _refused(method, spec, limit)
    if reason:
        raise ValueError(reason)
    return method


def auto_candidates(spec, limit):
    """The exact methods ``"auto"`` may choose for this metric and threshold."""
    return [
        method
        for method in _METHODS.values()
        if method.exact and method.plan and not _refused(method, spec, limit)
    ]


def _refused(method, spec, limit):
    return method.refusal(spec, limit) if method.refusal else None
