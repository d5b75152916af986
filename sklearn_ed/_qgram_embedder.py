"""QGramEmbedder: character q-gram profiles of strings as sparse vectors."""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer
from sklearn.preprocessing import normalize
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._strings import check_strings

# Characters that pad strings so that their ends form q-grams of their own.
# Private-use code points: they never occur in ordinary text.
_PAD_START, _PAD_END = "\ue000", "\ue001"


def default_q(strings):
    """Smallest q >= 2 with ``a ** q >= mean length * sqrt(n)`` (``a``: distinct characters).

    A q-gram then occurs in about ``sqrt(n)`` of the ``n`` strings, so the
    sparse product that finds the candidates of a query stays sparse: 3 for
    100,000 English words, 4 for a few thousand proteins, 10 for a million
    DNA reads of length 1,000.
    """
    lengths = np.fromiter(map(len, strings), dtype=np.float64, count=len(strings))
    n_letters = max(len(set().union(*map(set, strings))), 2)
    mean_length = max(float(lengths.mean()) if len(lengths) else 1.0, 1.0)
    target = mean_length * np.sqrt(max(len(strings), 1))
    return max(2, int(np.ceil(np.log(target) / np.log(n_letters) - 1e-9)))


class QGramEmbedder(TransformerMixin, BaseEstimator):
    """Character q-gram profiles of strings (sparse), compared by cosine.

    Each string becomes the vector of its q-gram counts (binary, raw counts
    or tf-idf weighted), L2-normalized: strings at small edit distance share
    most of their q-grams, since one edit changes at most ``q`` of them (the
    q-gram lemma; Ukkonen, 1992). The vocabulary of q-grams is learned at fit
    by scikit-learn's :class:`~sklearn.feature_extraction.text.CountVectorizer`
    with a character analyzer; q-grams unseen at fit are ignored.

    :class:`~sklearn_ed.FilterRefineNeighbors` indexes the output with a
    sparse top-n cosine search (``embedding_metric = "cosine"``): the
    engine of tf-idf string matchers, followed by the exact refine.

    Parameters
    ----------
    q : int, default=None
        Length of the q-grams. ``None`` picks the smallest ``q >= 2`` with
        ``a ** q >= mean length * sqrt(n_samples)`` (``a`` distinct
        characters), so that a q-gram occurs in about ``sqrt(n_samples)``
        strings: 3 for 100,000 English words.
    weighting : {"tfidf", "count", "binary"}, default="tfidf"
        Values of the profile before normalization: tf-idf (rare q-grams
        weigh more), counts, or presence.
    padding : bool, default=True
        Pad each string with one start and one end marker (as scikit-learn's
        ``char_wb`` analyzer pads words with spaces), so that a string's
        first and last characters form q-grams of their own and strings of
        ``q - 2`` characters or more have q-grams. More markers would make
        q-grams that thousands of strings share and slow the search.

    Attributes
    ----------
    q_ : int
        The q-gram length in use.
    vectorizer_ : CountVectorizer
        The fitted q-gram counter (``vocabulary_`` maps q-grams to columns).
    tfidf_ : TfidfTransformer or None
        The fitted idf weights (``weighting="tfidf"``).
    n_features_out_ : int
        Number of distinct q-grams seen at fit.

    See Also
    --------
    CGKEmbedder : Dense symbol codes for long strings.

    References
    ----------
    E. Ukkonen. "Approximate string-matching with q-grams and maximal
    matches", Theoretical Computer Science 92(1), 1992.

    Examples
    --------
    >>> from sklearn_ed import QGramEmbedder
    >>> embedder = QGramEmbedder(q=2).fit(["kitten", "sitting", "mitten"])
    >>> embedder.transform(["kitten"]).shape
    (1, 15)
    >>> round(float((embedder.transform(["kitten"]) @ embedder.transform(["mitten"]).T)[0, 0]), 2)
    0.55
    """

    embedding_metric = "cosine"

    _parameter_constraints: dict = {
        "q": [Interval(Integral, 1, None, closed="left"), None],
        "weighting": [StrOptions({"tfidf", "count", "binary"})],
        "padding": ["boolean"],
    }

    def __init__(self, q=None, *, weighting="tfidf", padding=True):
        self.q = q
        self.weighting = weighting
        self.padding = padding

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the q-gram vocabulary (and idf weights) of X.

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Training strings.
        y : None
            Ignored.

        Returns
        -------
        self : QGramEmbedder
            Fitted embedder.
        """
        self._fit_counts(check_strings(X))
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit on X and return its profiles, counting the q-grams once.

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Training strings.
        y : None
            Ignored.

        Returns
        -------
        X_new : scipy.sparse.csr_matrix of float32, shape (n_samples, n_features)
            Equal to ``fit(X).transform(X)``.
        """
        return self._profiles(self._fit_counts(check_strings(X)))

    def _fit_counts(self, strings):
        """Learn q, the vocabulary and the idf weights; the q-gram counts of ``strings``."""
        self.q_ = default_q(strings) if self.q is None else self.q
        longest = max(map(len, strings)) + (2 if self.padding else 0)
        if self.q_ > longest:
            raise ValueError(
                f"q={self.q_} is longer than every training string (the longest has "
                f"{longest} characters with padding); choose a smaller q."
            )
        self.vectorizer_ = CountVectorizer(
            analyzer="char", ngram_range=(self.q_, self.q_), lowercase=False,
            binary=self.weighting == "binary", dtype=np.float32)
        counts = self.vectorizer_.fit_transform(self._padded(strings))
        self.tfidf_ = (TfidfTransformer(norm=None).fit(counts)
                       if self.weighting == "tfidf" else None)
        self.n_features_out_ = counts.shape[1]
        return counts

    def _padded(self, strings):
        if not self.padding or self.q_ == 1:
            return list(strings)
        return [_PAD_START + string + _PAD_END for string in strings]

    def transform(self, X):
        """L2-normalized q-gram profiles.

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Strings to embed. Strings without q-grams (shorter than
            ``q - 2`` with padding) are valid and give an all-zero row.

        Returns
        -------
        X_new : scipy.sparse.csr_matrix of float32, shape (n_samples, n_features)
            One row per string; ``n_features`` is ``n_features_out_``.
        """
        check_is_fitted(self)
        return self._profiles(self.vectorizer_.transform(self._padded(check_strings(X))))

    def _profiles(self, counts):
        if self.tfidf_ is not None:
            counts = self.tfidf_.transform(counts)
        return normalize(counts, copy=False).astype(np.float32).tocsr()

    def get_feature_names_out(self, input_features=None):
        """The q-grams, in column order (padding shown as the markers).

        Parameters
        ----------
        input_features : None
            Ignored.

        Returns
        -------
        feature_names_out : ndarray of str
            One q-gram per output column.
        """
        check_is_fitted(self)
        return self.vectorizer_.get_feature_names_out()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        tags.input_tags.sparse = False
        tags.requires_fit = True
        return tags
