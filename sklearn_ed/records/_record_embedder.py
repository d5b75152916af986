"""The filter of a search under the record metric: the columns' q-gram profiles, side by side."""

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.preprocessing import normalize
from sklearn.utils.validation import check_is_fitted

from ..embedding import QGramEmbedder
from ..utils import check_items, saved_class
from ._columns import record_array


@saved_class()
class RecordEmbedder(TransformerMixin, BaseEstimator):
    """Records as their columns' q-gram profiles, each weighted, compared by cosine.

    Each column's processed values get the L2-normalized q-gram profile of
    :class:`~sklearn_ed.QGramEmbedder` (a vocabulary of their own), scaled by
    the square root of the column's weight; a missing value gets zeros. The
    cosine of two records' vectors is then about the weighted mean of their
    columns' q-gram cosines, as the record metric is the weighted mean of
    the columns' distances: what ``embedder="auto"`` fits as the filter of
    a search under :func:`~sklearn_ed.records.make_record_metric`.

    Parameters
    ----------
    columns : tuple of Column
        The record metric's columns (metric, processor).
    weights : tuple of float
        The record metric's weights, summing to 1.
    n_jobs : int, default=None
        Threads counting q-grams.

    Attributes
    ----------
    embedders_ : list of QGramEmbedder
        One per column, fitted on its present values.
    n_features_out_ : int
        The columns' q-grams, all together.

    Examples
    --------
    >>> from sklearn_ed.records import Column, RecordEmbedder
    >>> columns = (Column("name"), Column("city"))
    >>> embedder = RecordEmbedder(columns, weights=(0.5, 0.5)).fit(
    ...     [("ann lee", "leeds"), ("bob stone", ""), ("anne lee", "leeds")])
    >>> vectors = embedder.transform([("ann lee", "leeds"), ("anne lee", "")])
    >>> (vectors @ vectors.T).toarray().astype(float).round(2).tolist()
    [[1.0, 0.41], [0.41, 0.5]]
    """

    # What save() writes besides the parameters (sklearn_ed.load refuses others).
    __sklearn_ed_saved__ = ("embedders_", "n_features_out_")
    embedding_metric = "cosine"
    _parameter_constraints: dict = {
        "columns": [tuple, list],
        "weights": [tuple, list],
        "n_jobs": [int, None],
    }

    def __init__(self, columns, weights, *, n_jobs=None):
        self.columns = columns
        self.weights = weights
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn each column's q-gram vocabulary from the records ``X``.

        Parameters
        ----------
        X : ndarray of object of shape (n_samples, n_columns)
            Records (:func:`~sklearn_ed.records.to_records`).
        y : None
            Ignored.

        Returns
        -------
        self : RecordEmbedder
        """
        X = record_array(check_items(X, "objects"), len(self.columns))
        if len(self.weights) != len(self.columns):
            raise ValueError("weights must give one weight per column.")
        self.embedders_ = []
        for values in X.T:
            present = values[values != ""] if (values != "").any() else np.array([""], dtype=object)
            self.embedders_.append(QGramEmbedder(n_jobs=self.n_jobs).fit(present))
        self.n_features_out_ = sum(embedder.n_features_out_ for embedder in self.embedders_)
        return self

    def transform(self, X):
        """The weighted q-gram profiles of each record's columns, side by side.

        Parameters
        ----------
        X : ndarray of object of shape (n_samples, n_columns)
            Records.

        Returns
        -------
        X_new : scipy.sparse.csr_matrix of float32, shape (n_samples, n_features)
        """
        check_is_fitted(self)
        X = record_array(check_items(X, "objects", allow_empty=True), len(self.columns))
        blocks = []
        for values, weight, embedder in zip(X.T, self.weights, self.embedders_):
            profiles = normalize(embedder.transform(values)).tocsr()
            present = sparse.diags((values != "").astype(np.float32) * np.sqrt(weight))
            blocks.append(present @ profiles)
        return sparse.hstack(blocks, format="csr", dtype=np.float32)

    def get_feature_names_out(self, input_features=None):
        """The q-grams of each column, prefixed by its name ("city:eed").

        Parameters
        ----------
        input_features : None
            Ignored.

        Returns
        -------
        feature_names_out : ndarray of str
            One name per output column, the columns in order.
        """
        check_is_fitted(self)
        return np.concatenate(
            [
                np.array([f"{column.name}:{name}" for name in embedder.get_feature_names_out()])
                for column, embedder in zip(self.columns, self.embedders_)
            ]
        ).astype(object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.requires_fit = True
        return tags
