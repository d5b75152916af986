"""Registry of exact distances with capability flags.

A metric is a :class:`Metric`: a name, a batched ``pairwise`` function and
every capability the rest of the package reads (its lower bound and lookups,
its Levenshtein radius for joins, its prefix bound, its unit), so that no
code elsewhere decides by a metric's name. DTW, chamfer or a user metric join
with :func:`register_metric`; a plain callable ``metric(x, y) -> float`` is
wrapped on the fly by :func:`get_metric`. The registry is also how a metric
is saved: by its name (``_saved_metric``).
"""

from dataclasses import dataclass, fields
from typing import Callable, Optional

import numpy as np

from ..utils import saved_class
from ._saved_metric import plain, registered, saved_state, upgraded_node

INPUT_TYPES = ("strings", "vectors", "objects")
# How far a normalized scorer's floating-point arithmetic can put a distance
# from its exact value (a few operations on values of at most 1): a pair
# exactly at a threshold (a token_set score of 85 at 0.15, an Indel ratio of
# 6/7 at min_similarity=6/7) computes up to this much beyond it.
ROUNDING_SLACK = 4 * float(np.finfo(np.float64).eps)


@saved_class()
@dataclass(frozen=True)
class Metric:
    """An exact distance and what it can do.

    Parameters
    ----------
    name : str
        Registry name.
    pairwise : callable
        ``pairwise(X, Y, score_cutoff=None) -> ndarray (len(X), len(Y))``;
        computes every distance in one batched call. With ``score_cutoff``,
        entries greater than the cutoff may be returned as any value greater
        than the cutoff (this lets banded algorithms stop early).
    input_type : {"strings", "vectors", "objects"}
        What one sample is: a ``str``, a row of a 2-D numeric array, or any
        Python object (a series, a point set).
    integer_valued : bool
        Whether distances are integers (edit distances): enables tie-aware
        handling and integer cut-offs.
    supports_cutoff : bool
        Whether ``score_cutoff`` makes ``pairwise`` faster.
    oracle : callable, optional
        Plain reference implementation ``oracle(x, y) -> float``, used by the
        test-suite to check ``pairwise``.
    paired : callable, optional
        ``paired(X, Y, score_cutoff=None) -> ndarray (len(X),)``: the distance
        of ``X[i]`` to ``Y[i]`` for every i in one call. The refine step
        uses it to compare many queries with their own candidates without a
        call per query.
    lower_bound : callable, optional
        ``lower_bound(base)`` returns an object whose ``bounds(queries)`` is
        an ``(n_queries, n_base)`` array of values at most the exact
        distances. Metrics with one support ``exact=True`` search.
    brute_force_bound : callable, optional
        ``brute_force_bound(base)``: a lower bound as ``lower_bound``'s,
        costing a small share of a distance for every pair (the characters
        two strings share: a tenth of a distance or less), so that
        brute-force k-nearest search bounds every pair of a block first and
        computes the distances of only those it cannot rule out.
    near_lookup : callable, optional
        ``near_lookup(base)`` returns ``None`` (not worth it for this base) or
        an object with an integer ``depth`` and ``within(queries, limits)``
        returning, per query, the indices of a superset of the items within
        ``limits[i] <= depth`` of it (and a lower bound of each item's
        distance). ``exact=True`` answers a query with ``k`` items that close
        from them, without the filter.
    far_lookup : callable, optional
        ``far_lookup(base)`` returns ``None`` or an object with an integer
        ``max_distance``, ``stages`` (limits worth verifying first, in
        passes) and ``within(queries, limits)`` returning, per query, a
        superset of the items within ``limits[i] <= max_distance`` and a lower
        bound of each one's distance, at most the limit. ``exact=True``
        verifies those instead of what the lower bound keeps, where the bound
        rules out little (short strings a few edits apart).
    is_metric : bool, default=True
        Whether the distance obeys the triangle inequality (a true metric;
        OSA, the normalized distances and Jaro-Winkler do not).
    normalized : bool, default=False
        Whether distances lie in [0, 1] (radii and thresholds then too);
        otherwise they are in the unit of the raw distance (edits for the
        ``integer_valued`` ones).
    levenshtein_radius : callable, optional
        For a string metric whose threshold bounds the Levenshtein distance:
        ``levenshtein_radius(threshold)`` returns ``radius(len_a, len_b)``,
        an int64 array of the largest Levenshtein distance of two strings of
        those lengths within ``threshold`` (``edit_radius``, ``factor=2`` for
        OSA; ``normalized_radius`` for a normalized distance, whose
        normalizer it names). Enables the ``"partition"`` join.
    prefix_distance : str, optional
        Registry name of a distance ``D`` (``"levenshtein"`` or ``"indel"``)
        at most ``levenshtein_radius(threshold)`` for every pair within the
        threshold, that costs one per deleted character and obeys the
        triangle inequality: the brute-force join then prunes strings of 65
        to 96 characters by ``D`` of their first 64 (the prefix bound).
        Needs ``levenshtein_radius``.
    variant_of : str, optional
        The registry name of the metric this one is a variant of
        (``make_dtw_metric(window=0.2)`` of ``"dtw"``), built by that
        metric's ``variant`` from ``parameters``; ``None`` for a metric
        registered under its own name.
    parameters : tuple of (str, value) pairs, default=()
        The plain values (str, number, bool or None) a variant was built
        with: :func:`sklearn_ed.save` writes them beside ``variant_of``.
    variant : callable, optional
        ``variant(**parameters) -> Metric``: the factory of this metric's
        variants (:func:`make_dtw_metric` for ``"dtw"``), which
        :func:`sklearn_ed.load` calls to rebuild a saved one.
    embedder : callable, optional
        ``embedder(n_jobs=None) -> transformer``: the unfitted embedder that
        ``embedder="auto"`` fits as the filter of a search under this metric
        (the record metric's: its columns' q-gram profiles side by side);
        None: the input type decides.

    Notes
    -----
    :func:`sklearn_ed.save` writes a metric as its registry name (and a
    variant's parameters) beside the plain fields above, never its
    functions; :func:`sklearn_ed.load` takes the metric registered under
    that name, and refuses one whose plain fields differ from the saved
    ones. A metric that is not registered is saved by pickle only.
    """

    name: str
    pairwise: Callable
    input_type: str
    integer_valued: bool = False
    supports_cutoff: bool = False
    oracle: Optional[Callable] = None
    paired: Optional[Callable] = None
    lower_bound: Optional[Callable] = None
    brute_force_bound: Optional[Callable] = None
    near_lookup: Optional[Callable] = None
    far_lookup: Optional[Callable] = None
    is_metric: bool = True
    normalized: bool = False
    levenshtein_radius: Optional[Callable] = None
    prefix_distance: Optional[str] = None
    variant_of: Optional[str] = None
    parameters: tuple = ()
    variant: Optional[Callable] = None
    embedder: Optional[Callable] = None

    def __post_init__(self):
        if self.input_type not in INPUT_TYPES:
            raise ValueError(f"input_type must be one of {INPUT_TYPES}, got {self.input_type!r}.")
        if self.prefix_distance is not None and self.levenshtein_radius is None:
            raise ValueError("A metric with a prefix_distance needs a levenshtein_radius.")
        if not isinstance(self.parameters, tuple) or not all(
            isinstance(pair, tuple) and len(pair) == 2 and plain(pair[1])
            for pair in self.parameters
        ):
            raise ValueError("parameters must be a tuple of (name, plain value) pairs.")

    def __repr__(self):
        # The functions' reprs would run to pages (a record metric's hold its columns).
        return f"Metric(name={self.name!r}, input_type={self.input_type!r})"

    def __reduce__(self):
        # Pickle and copy keep every field: a pickled metric need not be registered.
        return type(self), tuple(getattr(self, field.name) for field in fields(self))

    def __getstate__(self):
        """What :func:`sklearn_ed.save` writes: the registry name, a variant's
        parameters and the plain fields (``_saved_metric``)."""
        return saved_state(self, _REGISTRY)

    def __setstate__(self, state):
        """The metric registered under the saved name (an older pickle: its fields)."""
        self.__dict__.update(state if "pairwise" in state else vars(registered(state, _REGISTRY)))

    @classmethod
    def _upgrade_saved_node(cls, node):
        """A metric saved with its functions by an earlier release, as its name."""
        return upgraded_node(node)

    def limit(self, threshold):
        """The largest computed distance that ``threshold`` keeps.

        The threshold itself; for a normalized metric widened by the
        rounding of its scorer (``ROUNDING_SLACK``, 8.9e-16), so that every
        pair whose exact distance is the threshold is kept, as rapidfuzz's
        ``score_cutoff`` keeps it. A pair beyond the threshold by less than
        that is kept as well; normalized distances of strings under a million
        characters never lie that close to one another unless equal, so only a
        threshold given to 15 digits can tell.

        Parameters
        ----------
        threshold : float
            A distance in the metric's unit.

        Returns
        -------
        limit : float
            Compare computed distances with ``<=`` to it.

        Examples
        --------
        >>> from sklearn_ed.distances import get_metric
        >>> get_metric("levenshtein").limit(2)
        2.0
        >>> get_metric("token_set").limit(0.15) >= 1 - 85 / 100
        True
        """
        threshold = float(threshold)
        return threshold + ROUNDING_SLACK if self.normalized else threshold


_REGISTRY = {}


def register_metric(metric, *, overwrite=False):
    """Add a :class:`Metric` to the registry so it can be named by string.

    The user guide (:ref:`ug_metrics`) registers a metric step by step.

    Parameters
    ----------
    metric : Metric
        The metric; ``metric.name`` becomes its registry name.
    overwrite : bool, default=False
        Replace a metric registered under the same name (otherwise a
        ``ValueError``).

    Returns
    -------
    metric : Metric
        The metric registered.
    """
    if not isinstance(metric, Metric):
        raise TypeError(f"metric must be a Metric, got {type(metric).__name__}.")
    if metric.name in _REGISTRY and not overwrite:
        raise ValueError(
            f"A metric named {metric.name!r} is already registered; pass "
            "overwrite=True to replace it."
        )
    _REGISTRY[metric.name] = metric
    return metric


def available_metrics(input_type=None):
    """Names of the registered metrics, sorted.

    Parameters
    ----------
    input_type : {"strings", "vectors", "objects"}, default=None
        Only the metrics that compare this kind of input; ``None``: all.

    Returns
    -------
    names : list of str
        Every name :func:`get_metric` accepts.

    Examples
    --------
    >>> from sklearn_ed.distances import available_metrics
    >>> "levenshtein" in available_metrics()
    True
    >>> "euclidean" in available_metrics("strings")
    False
    """
    return sorted(
        name
        for name, metric in _REGISTRY.items()
        if input_type is None or metric.input_type == input_type
    )


def get_metric(metric):
    """Resolve a registry name, a :class:`Metric` or a callable to a Metric.

    Parameters
    ----------
    metric : str, Metric or callable
        A name of :func:`available_metrics`, a :class:`Metric` (returned as
        is), or a callable ``metric(x, y) -> float`` wrapped with
        ``input_type="objects"``.

    Returns
    -------
    metric : Metric
        The resolved metric.

    Examples
    --------
    >>> from sklearn_ed.distances import get_metric
    >>> get_metric("levenshtein").integer_valued
    True
    """
    if isinstance(metric, Metric):
        return metric
    if isinstance(metric, str):
        try:
            return _REGISTRY[metric]
        except KeyError:
            raise ValueError(
                f"Unknown metric {metric!r}. Use one of {available_metrics()}, "
                "a callable metric(x, y) -> float, or register a new one with "
                "sklearn_ed.distances.register_metric."
            ) from None
    if callable(metric):
        return callable_metric(metric)
    raise TypeError(
        f"metric must be a registry name, a Metric or a callable, got {type(metric).__name__}."
    )


def callable_metric(function):
    """Wrap a Python callable ``function(x, y) -> float`` as a Metric.

    The callable is called once per pair (it cannot be batched); the
    neighbor estimators still call it only on filtered candidates.
    """

    def pairwise(X, Y, score_cutoff=None):
        distances = np.empty((len(X), len(Y)), dtype=np.float64)
        for i, x in enumerate(X):
            for j, y in enumerate(Y):
                distances[i, j] = function(x, y)
        return distances

    name = getattr(function, "__name__", type(function).__name__)
    return Metric(name=name, pairwise=pairwise, input_type="objects", oracle=function)


def declare_metric_input(tags, metric):
    """Estimator tags for the input kind of ``metric``: strings and objects are 1-D."""
    try:
        input_type = get_metric(metric).input_type
    except (TypeError, ValueError):  # invalid metric: fit will say so
        return tags
    if input_type != "vectors":
        tags.input_tags.two_d_array = False
        tags.input_tags.string = input_type == "strings"
    return tags
