"""Comparison vectors of record pairs: a scikit-learn transformer.

A pair of records is a row of a DataFrame holding each compared column
twice, ``<name>_l`` and ``<name>_r`` (:func:`pairs_frame` builds one from a
table and the pairs' positions), so that a Pipeline of this transformer and
any classifier trains on labelled pairs, and ``GridSearchCV`` splits pairs.
"""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ..utils import require_pandas
from ._columns import as_columns, term_frequencies, value_shares

LEFT, RIGHT = "_l", "_r"


def pairs_frame(records, left_index, right_index, other=None, columns=None):
    """The pairs ``(records[left_index[i]], other[right_index[i]])`` as one DataFrame.

    Parameters
    ----------
    records : pandas.DataFrame
        The table of the pairs' left records.
    left_index, right_index : array-like of int
        Row positions of each pair's records.
    other : pandas.DataFrame, default=None
        The table of the right records (``None``: ``records``).
    columns : list of str, default=None
        The columns to take (``None``: every column of ``records``).

    Returns
    -------
    pairs : pandas.DataFrame
        Columns ``<name>_l`` and ``<name>_r`` for each column, indexed by
        ``(left id, right id)``: the tables' index labels.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ed.records import pairs_frame
    >>> people = pd.DataFrame({"name": ["ann", "anne", "bob"]}, index=["a", "b", "c"])
    >>> pairs_frame(people, [0], [1])
        name_l name_r
    a b    ann   anne
    """
    pd = require_pandas("pairs_frame")
    other = records if other is None else other
    columns = list(records.columns) if columns is None else list(columns)
    missing = [name for name in columns if name not in records or name not in other]
    if missing:
        raise KeyError(f"Columns {missing} are not in both tables.")
    left_index, right_index = np.asarray(left_index), np.asarray(right_index)
    left, right = records.iloc[left_index], other.iloc[right_index]
    data = {}
    for name in columns:
        data[name + LEFT] = left[name].to_numpy(dtype=object)
        data[name + RIGHT] = right[name].to_numpy(dtype=object)
    index = pd.MultiIndex.from_arrays([left.index, right.index])
    return pd.DataFrame(data, index=index)


class ComparisonLevels(TransformerMixin, BaseEstimator):
    """Per-column comparison of record pairs: levels or similarities.

    Each pair (a row of a :func:`pairs_frame`) becomes one feature per
    column: its :class:`Column` level (equal, within each threshold, else;
    ``-1`` where a value is missing) or the metric's similarity (``NaN``
    where missing: ``HistGradientBoostingClassifier`` takes it as is). A
    column with ``term_frequencies=True`` adds a feature after them,
    ``<name>_rarity``: ``-log2`` of the shared value's share among the
    values of the pairs ``fit`` saw where the two values are equal (a rare
    surname shared says more than "Smith"), 0 elsewhere.

    Parameters
    ----------
    columns : list of Column or str
        The columns compared (a name stands for ``Column(name)``).
    output : {"levels", "similarity"}, default="levels"
        Levels (int) or ``1 - distance`` (float, for normalized metrics).

    Attributes
    ----------
    columns_ : tuple of Column
        The columns, resolved.
    n_features_in_ : int
        Columns of the pairs frame seen in ``fit`` (two per compared column).
    feature_names_in_ : ndarray of str
        Their names.
    term_frequencies_ : dict
        Each term-frequency column's distinct values and their shares among
        both sides' values in ``fit``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_ed.records import Column, ComparisonLevels, pairs_frame
    >>> people = pd.DataFrame({"name": ["Ann Lee", "Anne Lee", "Bob Ray"],
    ...                        "city": ["Oslo", "Oslo", None]})
    >>> pairs = pairs_frame(people, [0, 0], [1, 2])
    >>> ComparisonLevels(["name", Column("city", thresholds=())]).fit_transform(pairs)
    array([[ 1,  0],
           [ 3, -1]], dtype=int8)
    """

    _parameter_constraints: dict = {
        "columns": [list, tuple, str],
        "output": [StrOptions({"levels", "similarity"})],
    }

    def __init__(self, columns, *, output="levels"):
        self.columns = columns
        self.output = output

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Check that ``X`` holds both sides of every column.

        Parameters
        ----------
        X : pandas.DataFrame
            Pairs, as :func:`pairs_frame` makes them.
        y : None
            Ignored.

        Returns
        -------
        self : ComparisonLevels
        """
        self.columns_ = as_columns(self.columns)
        self._check_pairs(X)
        # Only the term-frequency columns are counted: processing is most of a fit.
        counted = [column for column in self.columns_ if column.term_frequencies]
        sides = [
            np.concatenate(
                [column.values(X[column.name + LEFT]), column.values(X[column.name + RIGHT])]
            )
            for column in counted
        ]
        self.term_frequencies_ = term_frequencies(counted, sides)
        self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        return self

    def transform(self, X):
        """The comparison vector of each pair.

        Parameters
        ----------
        X : pandas.DataFrame
            Pairs, as :func:`pairs_frame` makes them.

        Returns
        -------
        comparisons : ndarray of shape (n_pairs, n_features)
            int8 levels or float64 similarities, then the rarity of the
            term-frequency columns (all float64 then).
        """
        check_is_fitted(self, "columns_")
        self._check_pairs(X)
        features = [
            column.levels(X[column.name + LEFT], X[column.name + RIGHT])
            if self.output == "levels"
            else column.similarities(X[column.name + LEFT], X[column.name + RIGHT])
            for column in self.columns_
        ]
        features += [self._rarity(column, X) for column in self._tf_columns()]
        return np.column_stack(features)

    def _tf_columns(self):
        return [column for column in self.columns_ if column.name in self.term_frequencies_]

    def _rarity(self, column, X):
        left, right = column.values(X[column.name + LEFT]), column.values(X[column.name + RIGHT])
        equal = (left == right) & (left != "")
        shares = value_shares(self.term_frequencies_[column.name], left[equal])
        rarity = np.zeros(len(left))
        # A value ``fit`` never saw is rarer than any it saw.
        smallest = min(self.term_frequencies_[column.name][1].min(initial=1.0), 1.0)
        rarity[equal] = -np.log2(np.where(np.isnan(shares), smallest / 2, shares))
        return rarity

    def get_feature_names_out(self, input_features=None):
        """One feature per compared column (its name), then ``<name>_rarity`` of the
        term-frequency columns.

        Parameters
        ----------
        input_features : None
            Ignored.

        Returns
        -------
        names : ndarray of str
        """
        check_is_fitted(self, "columns_")
        names = [column.name for column in self.columns_]
        names += [column.name + "_rarity" for column in self._tf_columns()]
        return np.asarray(names, dtype=object)

    def _check_pairs(self, X):
        if not hasattr(X, "columns"):
            raise TypeError(
                "ComparisonLevels takes a DataFrame of pairs (sklearn_ed.records.pairs_frame), "
                f"got {type(X).__name__}."
            )
        needed = [column.name + side for column in self.columns_ for side in (LEFT, RIGHT)]
        absent = [name for name in needed if name not in X.columns]
        if absent:
            raise KeyError(f"The pairs frame has no columns {absent}.")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True  # a DataFrame of text columns
        return tags
