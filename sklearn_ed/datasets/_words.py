"""English words by decreasing frequency, from wordfreq's "large" list."""

import re
from functools import lru_cache
from numbers import Integral

import numpy as np
from sklearn.utils import Bunch

from ._lazy import _import_optional

_ALPHABETIC = re.compile(r"[a-z]+")

_DESCR = """\
English words (wordfreq, "large" English list)
==============================================

The words of ``wordfreq.top_n_list("en", n, wordlist="large")`` (about 320k
words, all lowercase), in decreasing order of frequency; wordfreq orders
words of equal rounded frequency alphabetically. With ``alphabetic_only``
only the words made purely of the ASCII letters a-z are kept (about 289k),
which drops contractions ("don't"), numbers, abbreviations with dots and
words with accents.

- data: the words.
- frequency: ``wordfreq.word_frequency(word, "en", wordlist="large")`` of
  each word (a fraction of all tokens, rounded by wordfreq to 3 significant
  digits).
"""


@lru_cache(maxsize=2)
def _word_list(alphabetic_only):
    wordfreq = _import_optional("wordfreq", caller="load_english_words")
    words = wordfreq.top_n_list("en", 10**7, wordlist="large")
    if alphabetic_only:
        words = [word for word in words if _ALPHABETIC.fullmatch(word)]
    return tuple(words)


def load_english_words(n_words=None, *, alphabetic_only=True):
    """Load English words by decreasing frequency.

    Requires the ``wordfreq`` package (``pip install 'sklearn-ed[datasets]'``).

    Parameters
    ----------
    n_words : int, default=None
        Number of words to return (the most frequent ones). ``None`` returns
        all the words of the list.
    alphabetic_only : bool, default=True
        Keep only the words made purely of the ASCII letters a-z; the first
        ``n_words`` of those are returned.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with attributes:

        data : list of str
            The words, most frequent first.
        frequency : ndarray of shape (n_words,), dtype float64
            Frequency of each word given by ``wordfreq.word_frequency``.
        DESCR : str
            Description of the data set.

    Examples
    --------
    >>> from sklearn_ed.datasets import load_english_words
    >>> words = load_english_words(5)
    >>> words.data
    ['the', 'to', 'and', 'of', 'a']
    >>> bool(words.frequency[0] > words.frequency[-1])
    True
    """
    words = _word_list(bool(alphabetic_only))
    if n_words is not None:
        if not isinstance(n_words, Integral) or n_words < 0:
            raise ValueError(f"n_words must be a non-negative int or None, got {n_words!r}")
        words = words[:n_words]
    wordfreq = _import_optional("wordfreq", caller="load_english_words")
    frequency = np.fromiter(
        (wordfreq.word_frequency(word, "en", wordlist="large") for word in words),
        dtype=np.float64,
        count=len(words),
    )
    return Bunch(data=list(words), frequency=frequency, DESCR=_DESCR)
