"""One column of a record comparison: its metric, processor and levels.

A value is missing when it is None, NaN or blank once processed (the
``"default"`` processor turns ``" -- "`` into ``""``): a missing value is
never equal, near or far; it has a level of its own (``MISSING``), which the
Fellegi-Sunter model leaves out of a pair's weight.
"""

from dataclasses import dataclass
from numbers import Real

import numpy as np

from ..distances import get_metric
from ..utils import PROCESSORS, apply_processor, require_pandas, saved_class

MISSING = -1


@saved_class(version=2, added={"term_frequencies": False})
@dataclass(frozen=True)
class Column:
    """How one column of two records is compared.

    A pair's level on the column is ``0`` when the processed values are
    equal, ``i`` when their distance is at most ``thresholds[i - 1]`` (the
    first that holds), ``len(thresholds) + 1`` otherwise, and ``-1``
    (missing) when either value is missing, as splink's comparison levels.

    Parameters
    ----------
    name : str
        The column of the table.
    metric : str, default="jaro_winkler"
        A string metric of :func:`~sklearn_ed.distances.available_metrics`.
    thresholds : tuple of float, default=(0.08, 0.2)
        Increasing distances, in the metric's unit, that bound the levels
        between "equal" and "else".
    processor : {"lower", "default", "sort_tokens", "default_sort_tokens"}, default="default"
        Applied to every value first, or None (numbers and dates are compared as
        their text).
    term_frequencies : bool, default=False
        Whether an exact match weighs by how common the value is (splink's
        term-frequency adjustment): the record deduplicator and linker
        replace the level's ``u`` by the value's share of the fitted
        values, so a shared rare surname counts more than a shared "Smith".

    Examples
    --------
    >>> from sklearn_ed.records import Column
    >>> column = Column("surname", thresholds=(0.15,))
    >>> column.levels(["Smith", "Smith", "Smyth", None], ["smith", "Jones", "Smith", "Lee"])
    array([ 0,  2,  1, -1], dtype=int8)
    """

    name: str
    metric: str = "jaro_winkler"
    thresholds: tuple = (0.08, 0.2)
    processor: object = "default"
    term_frequencies: bool = False

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"A column's name must be a non-empty str, got {self.name!r}.")
        if get_metric(self.metric).input_type != "strings":
            raise ValueError(
                f"Column {self.name!r}: metric {self.metric!r} is not a string metric."
            )
        if self.processor is not None and self.processor not in PROCESSORS:
            raise ValueError(
                f"Column {self.name!r}: processor must be one of {sorted(PROCESSORS)} or None, "
                f"got {self.processor!r}."
            )
        thresholds = tuple(self.thresholds)
        if not all(isinstance(t, Real) and t >= 0 for t in thresholds) or list(
            thresholds
        ) != sorted(set(thresholds)):
            raise ValueError(
                f"Column {self.name!r}: thresholds must be increasing distances >= 0, "
                f"got {self.thresholds!r}."
            )
        object.__setattr__(self, "thresholds", tuple(float(t) for t in thresholds))
        if not isinstance(self.term_frequencies, (bool, np.bool_)):
            raise TypeError(
                f"Column {self.name!r}: term_frequencies must be a bool, got "
                f"{self.term_frequencies!r}."
            )

    @property
    def n_levels(self):
        """Levels a pair can have besides missing: equal, one per threshold, else."""
        return len(self.thresholds) + 2

    @property
    def level_names(self):
        """What each level means, in order (missing apart)."""
        within = [f"within {threshold:g}" for threshold in self.thresholds]
        return ["equal", *within, "else"]

    def values(self, column):
        """The processed values of a column ("" where missing).

        Parameters
        ----------
        column : array-like
            Raw values (str, numbers, None, NaN).

        Returns
        -------
        values : ndarray of object (str)
        """
        return apply_processor(self.processor, text_values(column), name=self.name)

    def levels(self, left, right):
        """The level of each pair ``(left[i], right[i])`` of raw values.

        Parameters
        ----------
        left, right : array-like of shape (n_pairs,)
            Raw values.

        Returns
        -------
        levels : ndarray of int8 of shape (n_pairs,)
        """
        return self.levels_of_values(self.values(left), self.values(right))

    def levels_of_values(self, left, right, workers=1):
        """The level of each pair of processed values.

        Parameters
        ----------
        left, right : ndarray of object of shape (n_pairs,)
            Values from :meth:`values`.
        workers : int, default=1
            Threads of the distances (rapidfuzz's ``workers``; -1: all cores).

        Returns
        -------
        levels : ndarray of int8 of shape (n_pairs,)
        """
        levels = np.full(len(left), self.n_levels - 1, dtype=np.int8)
        present = (left != "") & (right != "")
        levels[~present] = MISSING
        equal = present & (left == right)
        levels[equal] = 0
        unequal = np.flatnonzero(present & ~equal)
        if len(unequal) and self.thresholds:
            # Beyond the last threshold a distance only needs to be known as "else".
            distances = self.distances_of_values(
                left[unequal], right[unequal], self.thresholds[-1], workers
            )
            # The first threshold that holds: thresholds increase.
            within = np.searchsorted(np.asarray(self.thresholds), distances, side="left")
            levels[unequal] = (within + 1).astype(np.int8)
        return levels

    def distances_of_values(self, left, right, score_cutoff=None, workers=1):
        """The metric's distance of each pair of processed values.

        Parameters
        ----------
        left, right : ndarray of object of shape (n_pairs,)
            Values from :meth:`values`, none missing.
        score_cutoff : float, default=None
            A distance beyond it may be returned as any value beyond it.
        workers : int, default=1
            Threads (rapidfuzz's ``workers``; -1: all cores).

        Returns
        -------
        distances : ndarray of float64 of shape (n_pairs,)
        """
        paired = get_metric(self.metric).paired
        distances = paired(left, right, score_cutoff=score_cutoff, workers=workers)
        return np.asarray(distances, dtype=np.float64)

    def similarities(self, left, right):
        """``1 - distance`` of each pair of raw values, NaN where missing.

        Parameters
        ----------
        left, right : array-like of shape (n_pairs,)
            Raw values.

        Returns
        -------
        similarities : ndarray of float64 of shape (n_pairs,)
            In [0, 1] for a normalized metric.
        """
        left, right = self.values(left), self.values(right)
        similarity = np.full(len(left), np.nan)
        present = (left != "") & (right != "")
        similarity[present] = 1.0 - self.distances_of_values(left[present], right[present])
        return similarity


def text_values(column):
    """The values of a column as an object array of stripped str ("" where missing:
    None, NaN, pandas' NA)."""
    pd = require_pandas("sklearn_ed.records")
    values = pd.Series(np.asarray(column, dtype=object), dtype=object)
    missing = values.isna().to_numpy()
    text = values.astype(str).str.strip().to_numpy(dtype=object)
    text[missing] = ""
    return text


def term_frequencies(columns, values):
    """``{name: (sorted distinct values, share of each among the present values)}``
    of the columns that ask for term frequencies (``values``: each column's
    processed values)."""
    frequencies = {}
    for column, column_values in zip(columns, values):
        if column.term_frequencies:
            present = np.asarray(column_values[column_values != ""], dtype=str)
            distinct, counts = np.unique(present, return_counts=True)
            frequencies[column.name] = (distinct.astype(object), counts / max(len(present), 1))
    return frequencies


def value_shares(frequencies, values):
    """The share of each of ``values`` among the fitted ones (NaN where unseen).

    Parameters
    ----------
    frequencies : tuple of (ndarray, ndarray)
        A column's entry of :func:`term_frequencies`.
    values : ndarray of object (str)
        Processed values.
    """
    distinct, shares = frequencies
    if len(distinct) == 0:
        return np.full(len(values), np.nan)
    found = np.minimum(np.searchsorted(distinct, values), len(distinct) - 1)
    return np.where(distinct[found] == values, shares[found], np.nan)


def as_columns(columns):
    """``columns`` as a tuple of :class:`Column` (a name stands for the defaults)."""
    if isinstance(columns, (str, Column)):
        columns = [columns]
    resolved = tuple(Column(spec) if isinstance(spec, str) else spec for spec in columns)
    if not resolved or not all(isinstance(column, Column) for column in resolved):
        raise TypeError("columns must be a non-empty list of Column or column names.")
    names = [column.name for column in resolved]
    if len(set(names)) != len(names):
        raise ValueError(f"Each column may be compared once; got {names}.")
    return resolved


def record_array(records, n_columns):
    """``records`` as a 2-D object array of processed values, one row per record
    and one column per compared column ("" where missing), or a ``ValueError``
    naming what is wrong: rows from :func:`~sklearn_ed.records.to_records`."""
    array = records if isinstance(records, np.ndarray) else np.asarray(records, dtype=object)
    if array.ndim == 1 and len(array) and isinstance(array[0], (tuple, list, np.ndarray)):
        array = np.array(list(array), dtype=object)
    if array.ndim != 2 or array.shape[1] != n_columns:
        raise ValueError(
            f"Records must be rows of {n_columns} values, one per column (an array of shape "
            f"(n_records, {n_columns}) from sklearn_ed.records.to_records); got shape "
            f"{array.shape}."
        )
    kinds = set(map(type, array.ravel()))
    if not kinds <= {str}:
        odd = next(kind for kind in kinds if kind is not str)
        raise TypeError(
            f'Records must hold processed strings ("" where missing), found a '
            f"{odd.__name__}: make them with sklearn_ed.records.to_records."
        )
    return array
