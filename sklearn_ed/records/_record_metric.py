"""One distance between records of several columns, usable wherever a metric is.

A record is a row of processed column values (:func:`to_records` makes the
rows of a DataFrame, applying each column's processor once; "" is missing).
Its distance to another is the weighted mean of the columns' distances, each
column compared by its own metric; a column missing on either side counts a
fixed ``missing_distance`` instead. The lower bound is built the same
way from the columns' bounds (a column without one counts 0, a missing one
its exact ``missing_distance``), so ``FilterRefineNeighbors(exact=True)`` and
the brute-force join stay exact under it.
"""

from functools import partial
from numbers import Real

import numpy as np

from ..distances import LowerBound, Metric, get_metric
from ..utils import saved_class
from ._columns import as_columns, record_array
from ._record_embedder import RecordEmbedder

DEFAULT_MISSING_DISTANCE = 0.5


def make_record_metric(columns, *, weights=None, missing_distance=DEFAULT_MISSING_DISTANCE):
    """A :class:`~sklearn_ed.distances.Metric` over records of several columns.

    The distance of two records is ``sum(w_c * d_c)`` over the columns, the
    weights ``w`` scaled to sum to 1 and ``d_c`` the column's metric on the
    processed values, or ``missing_distance[c]`` where either value is
    missing. With normalized column metrics (Jaro-Winkler, normalized
    Levenshtein or Indel, token set) it lies in [0, 1], so ``min_similarity``
    and normalized thresholds apply.

    Parameters
    ----------
    columns : list of Column or str
        The columns compared, in the order of a record's values; a name
        stands for ``Column(name)`` (Jaro-Winkler, the ``"default"``
        processor). Records are processed by :func:`to_records` with the
        same columns; a column's ``thresholds`` are not used here.
    weights : sequence of float, default=None
        Positive weight of each column (equal when None).
    missing_distance : float or sequence of float, default=0.5
        What a column counts where either record lacks it, in the column
        metric's unit (one value for every column, or one each).

    Returns
    -------
    metric : Metric
        Compares records (``input_type="objects"``): kernels batched column
        by column through rapidfuzz, a lower bound for exact search, a plain
        per-pair ``oracle``. Named ``"record(first_name,...)"``; register it
        with :func:`~sklearn_ed.distances.register_metric` to save the
        estimators that use it.

    See Also
    --------
    to_records : A DataFrame's rows as records for this metric.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ed import FilterRefineNeighbors
    >>> from sklearn_ed.records import Column, make_record_metric, to_records
    >>> people = pd.DataFrame({
    ...     "name": ["Ann Lee", "Bob Stone", "Anne Lee", None],
    ...     "city": ["Leeds", "York", "Leeds", "York"],
    ... })
    >>> columns = [Column("name", "normalized_indel"), Column("city", "normalized_indel")]
    >>> metric = make_record_metric(columns, weights=[2, 1])
    >>> records = to_records(people, columns)
    >>> search = FilterRefineNeighbors(n_neighbors=1, metric=metric, exact=True).fit(records)
    >>> distances, indices = search.kneighbors()
    >>> indices.ravel().tolist()
    [2, 3, 0, 1]
    >>> distances.ravel().round(3).tolist()
    [0.044, 0.333, 0.044, 0.333]
    """
    columns = as_columns(columns)
    weights = _checked_weights(weights, len(columns))
    missing = _checked_missing(missing_distance, len(columns))
    specs = [get_metric(column.metric) for column in columns]
    definition = dict(columns=columns, weights=weights, missing=missing)
    return Metric(
        name=f"record({','.join(column.name for column in columns)})",
        pairwise=partial(record_pairwise, **definition),
        input_type="objects",
        supports_cutoff=any(spec.supports_cutoff for spec in specs),
        oracle=partial(record_oracle, **definition),
        paired=partial(record_paired, **definition),
        lower_bound=partial(RecordBound, **definition),
        embedder=partial(RecordEmbedder, columns, weights),
        is_metric=False,
        normalized=all(spec.normalized for spec in specs),
    )


def to_records(frame, columns):
    """The rows of a DataFrame as records of ``columns``, for :func:`make_record_metric`.

    Each column's values are processed once here, by the column's processor
    (the record metric compares them as they are), and missing values (None,
    NaN, pandas' NA, blank once processed) become ``""``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; other columns are ignored.
    columns : list of Column or str
        The columns of the record metric, in its order.

    Returns
    -------
    records : ndarray of object (str) of shape (n_rows, n_columns)
        One row per record, in the frame's order: the samples of
        ``FilterRefineNeighbors``, the joins and ``pairwise_distances`` under
        the record metric.
    """
    columns = as_columns(columns)
    if not hasattr(frame, "columns"):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    absent = [column.name for column in columns if column.name not in frame.columns]
    if absent:
        raise ValueError(f"The table has no column {absent}; its columns: {list(frame.columns)}.")
    records = np.empty((len(frame), len(columns)), dtype=object)
    for position, column in enumerate(columns):
        records[:, position] = column.values(frame[column.name])
    return records


def record_pairwise(X, Y, score_cutoff=None, *, columns, weights, missing):
    """The record distance of every record of X to every record of Y."""
    X, Y = record_array(X, len(columns)), record_array(Y, len(columns))
    total = np.zeros((len(X), len(Y)))
    for position, column in enumerate(columns):
        x, y = X[:, position], Y[:, position]
        spec = get_metric(column.metric)
        cutoff = _column_cutoff(score_cutoff, weights[position], spec)
        distances = np.asarray(spec.pairwise(x, y, score_cutoff=cutoff), dtype=np.float64)
        distances[x == "", :] = missing[position]
        distances[:, y == ""] = missing[position]
        total += weights[position] * distances
    return total


def record_paired(X, Y, score_cutoff=None, workers=1, *, columns, weights, missing):
    """The record distance of ``X[i]`` to ``Y[i]`` for every i."""
    X, Y = record_array(X, len(columns)), record_array(Y, len(columns))
    total = np.zeros(len(X))
    for position, column in enumerate(columns):
        x, y = X[:, position], Y[:, position]
        spec = get_metric(column.metric)
        cutoff = _column_cutoff(score_cutoff, weights[position], spec)
        distances = np.asarray(
            spec.paired(x, y, score_cutoff=cutoff, workers=workers), dtype=np.float64
        )
        distances[(x == "") | (y == "")] = missing[position]
        total += weights[position] * distances
    return total


def record_oracle(x, y, *, columns, weights, missing):
    """The record distance of one pair, column by column through the plain oracles."""
    (x,), (y,) = record_array([x], len(columns)), record_array([y], len(columns))
    total = 0.0
    for position, column in enumerate(columns):
        if x[position] == "" or y[position] == "":
            total += weights[position] * missing[position]
        else:
            oracle = get_metric(column.metric).oracle
            total += weights[position] * oracle(x[position], y[position])
    return total


@saved_class()
class RecordBound(LowerBound):
    """Lower bounds of the record distance: the columns' bounds, weighted.

    A column whose metric has a lower bound contributes it (0 where it has
    none); a pair missing the column on either side contributes its exact
    ``missing_distance``.

    Parameters
    ----------
    base : ndarray of object of shape (n_records, n_columns)
        The records bounds are computed against (:func:`to_records`).
    columns, weights, missing
        As the record metric was made with (:func:`make_record_metric`).
    """

    def __init__(self, base, *, columns, weights, missing):
        self.columns, self.weights, self.missing = tuple(columns), tuple(weights), tuple(missing)
        self._base = record_array(base, len(self.columns))
        self._bounds = [
            self._column_bound(column, self._base[:, p]) for p, column in enumerate(self.columns)
        ]

    @staticmethod
    def _column_bound(column, values):
        lower_bound = get_metric(column.metric).lower_bound
        return None if lower_bound is None else lower_bound(values)

    def __getstate__(self):
        return {
            "columns": self.columns,
            "weights": self.weights,
            "missing": self.missing,
            "base": self._base,
        }

    def __setstate__(self, state):
        self.__init__(
            state["base"],
            columns=state["columns"],
            weights=state["weights"],
            missing=state["missing"],
        )

    def bounds(self, queries):
        """Lower bounds of the record distance for every (query, base record) pair.

        Parameters
        ----------
        queries : ndarray of object of shape (n_queries, n_columns)
            Query records.

        Returns
        -------
        bounds : ndarray of shape (n_queries, n_base)
        """
        queries = record_array(queries, len(self.columns))
        total = np.zeros((len(queries), len(self._base)))
        for position, bound in enumerate(self._bounds):
            values = queries[:, position]
            part = np.zeros_like(total) if bound is None else bound.bounds(values)
            part[values == "", :] = self.missing[position]
            part[:, self._base[:, position] == ""] = self.missing[position]
            total += self.weights[position] * part
        return total


def _column_cutoff(score_cutoff, weight, spec):
    """A column distance beyond ``score_cutoff / weight`` puts the record beyond
    ``score_cutoff`` alone, so the column's kernel may stop there."""
    if score_cutoff is None or not spec.supports_cutoff:
        return None
    cutoff = float(score_cutoff) / weight
    return int(np.floor(cutoff)) if spec.integer_valued else cutoff


def _checked_weights(weights, n_columns):
    weights = np.ones(n_columns) if weights is None else np.asarray(weights, dtype=np.float64)
    if weights.shape != (n_columns,) or not np.all(np.isfinite(weights)) or np.any(weights <= 0):
        raise ValueError(
            f"weights must be {n_columns} positive numbers, one per column; got {weights!r}."
        )
    return tuple((weights / weights.sum()).tolist())


def _checked_missing(missing_distance, n_columns):
    if isinstance(missing_distance, Real) and not isinstance(missing_distance, bool):
        missing_distance = [missing_distance] * n_columns
    missing = np.asarray(missing_distance, dtype=np.float64)
    if missing.shape != (n_columns,) or not np.all(np.isfinite(missing)) or np.any(missing < 0):
        raise ValueError(
            f"missing_distance must be a distance >= 0, or {n_columns} of them (one per "
            f"column); got {missing_distance!r}."
        )
    return tuple(missing.tolist())
