"""Shared base class of the string embedders.

It owns what every string embedder does the same way: input validation
(:func:`check_strings`), the alphabet learned at fit with its unknown-symbol
bucket, the padding length and its over-long string policy, batched
``transform`` with bounded memory, feature names and estimator tags.
Subclasses implement ``_fit(strings)`` and ``_embed_batch(strings)``.
"""

from numbers import Integral

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..utils import Alphabet, check_string_lengths, check_strings, resolve_max_length

# Strings per transform batch: bounds the temporary code-point buffers.
TRANSFORM_BATCH_SIZE = 8192


class BaseStringEmbedder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base class for transformers from strings to float32 vectors.

    Class attribute ``embedding_metric`` names the vector distance under
    which the embedding approximates the string distance ("euclidean" or
    "hamming"); :class:`~sklearn_ed.FilterRefineNeighbors` filters with it.
    """

    embedding_metric = "euclidean"

    _parameter_constraints: dict = {
        "max_length": [Interval(Integral, 1, None, closed="left"), None],
        "on_long_string": [StrOptions({"truncate", "error"})],
    }

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the alphabet and padding length, then fit the embedding.

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Training strings.
        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted embedder.
        """
        strings = check_strings(X)
        self.alphabet_ = Alphabet.from_strings(strings)
        self.max_length_ = resolve_max_length(strings, self.max_length)
        check_string_lengths(strings, self.max_length_, self.on_long_string, type(self).__name__)
        self._fit(strings)
        return self

    def transform(self, X):
        """Embed strings into float32 vectors.

        Characters not seen at fit time map to the unknown symbol. Strings
        longer than ``max_length_`` follow ``on_long_string``.

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Strings to embed.

        Returns
        -------
        X_new : ndarray of float32, shape (n_samples, n_features_out)
            The embeddings.
        """
        return self._embed(X).astype(np.float32, copy=False)

    def _embed(self, X):
        check_is_fitted(self)
        strings = check_strings(X)
        check_string_lengths(strings, self.max_length_, self.on_long_string, type(self).__name__)
        return self._embed_strings(strings)

    def _embed_strings(self, strings):
        """Embed validated strings batch by batch into one preallocated array."""
        out = None
        for start in range(0, len(strings), TRANSFORM_BATCH_SIZE):
            block = self._embed_batch(strings[start : start + TRANSFORM_BATCH_SIZE])
            if out is None:  # the first batch tells the width and dtype
                out = np.empty((len(strings), block.shape[1]), dtype=block.dtype)
            out[start : start + len(block)] = block
        return out

    @property
    def _n_features_out(self):
        return self.n_features_out_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        tags.requires_fit = True
        return tags
