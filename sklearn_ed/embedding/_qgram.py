"""QGramEmbedder: character q-gram profiles of strings as sparse vectors."""

from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.preprocessing import normalize
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..utils import (
    FIRST_CHAR_SYMBOL,
    Alphabet,
    CodeTable,
    check_strings,
    drop_unseen,
    map_in_threads,
    qgram_code_base,
    qgram_counts,
    qgram_sample,
    saved_array,
    saved_characters,
    saved_class,
    saved_int,
)

# Characters that pad strings so that their ends form q-grams of their own.
# Private-use code points: they never occur in ordinary text.
_PAD_START, _PAD_END = "\ue000", "\ue001"
# Shown for the padding and unknown symbols, which no fitted q-gram contains.
PAD, UNKNOWN = "\ufffe", "\ufffd"
# Strings counted at once, and at most this many characters: bounds the
# q-gram codes held in memory while a batch is counted.
_BATCH_SIZE = 8192
_BATCH_CHARACTERS = 2**21
# density="auto" keeps every q-gram while the profiles of the base hold at most
# this many entries (the sparse index keeps 16 bytes per entry, rows and their
# transpose: 1.6 GB), then samples down to it, keeping at least
# _KEPT_PER_STRING q-grams of a string of mean length.
_FULL_PROFILE_ENTRIES = 100_000_000
_KEPT_PER_STRING = 100


def _batches(strings):
    """Slices of at most ``_BATCH_SIZE`` strings and ``_BATCH_CHARACTERS`` characters
    (a longer string is a batch of its own)."""
    ends = np.cumsum(np.fromiter(map(len, strings), dtype=np.int64, count=len(strings)))
    start = 0
    while start < len(strings):
        before = ends[start - 1] if start else 0
        stop = int(np.searchsorted(ends, before + _BATCH_CHARACTERS, side="right"))
        stop = min(max(stop, start + 1), start + _BATCH_SIZE)
        yield slice(start, stop)
        start = stop


def _groups(batches, size=8):
    """The batches in groups of ``size``: counted together on the threads."""
    for start in range(0, len(batches), size):
        yield batches[start : start + size]


def _stacked(parts, rank, n_columns):
    """One CSR of the batches' ``(indptr, columns, values)`` parts, with column
    ``c`` renamed ``rank[c]``; each part is released once copied."""
    n_rows = sum(len(indptr) - 1 for indptr, _, _ in parts)
    n_entries = sum(len(columns) for _, columns, _ in parts)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    indices = np.empty(n_entries, dtype=np.int32)
    data = np.empty(n_entries, dtype=np.float32)
    row = entry = 0
    parts.reverse()
    while parts:
        part_indptr, columns, values = parts.pop()
        stop = entry + len(columns)
        indptr[row + 1 : row + len(part_indptr)] = part_indptr[1:] + entry
        indices[entry:stop], data[entry:stop] = rank[columns], values
        row, entry = row + len(part_indptr) - 1, stop
    counts = sparse.csr_matrix((data, indices, indptr), shape=(n_rows, n_columns))
    counts.sort_indices()  # renamed columns are out of order within a row
    return counts


def _mean_length(strings):
    """Mean length of ``strings``, at least 1 (and 1 for none)."""
    lengths = np.fromiter(map(len, strings), dtype=np.float64, count=len(strings))
    return max(float(lengths.mean()) if len(lengths) else 1.0, 1.0)


def default_q(strings, n_letters=None, density=1.0, n_strings=None):
    """Smallest q >= 2 with ``a ** q >= mean length * density ** 2 * sqrt(n)``
    (``a``: distinct characters).

    A q-gram then occurs in about ``sqrt(n)`` of the ``n`` strings, so the
    sparse product that finds the candidates of a query stays sparse: 3 for
    100,000 English words, 4 for a few thousand proteins, 9 for 50,000 DNA
    reads of length 1,000. Profiles that keep a share ``density`` of the
    q-grams make the product ``density ** 2`` cheaper (fewer q-grams per
    query, shorter lists per q-gram); a shorter q spends that saving on
    ranking: an edit changes q q-grams but shifting a read by one base only
    two, so a shorter q weighs errors against shifts more as edit distance
    does. For a million reads (density 0.1) q is 7 rather than 10.
    ``n_strings``: the size of the base ``strings`` are a sample of (default:
    their number).
    """
    if n_letters is None:
        n_letters = len(set().union(*map(set, strings)))
    n_letters = max(n_letters, 2)
    mean_length = _mean_length(strings)
    n_strings = len(strings) if n_strings is None else n_strings
    target = max(mean_length * density**2 * np.sqrt(max(n_strings, 1)), 1.0)
    return max(2, int(np.ceil(np.log(target) / np.log(n_letters) - 1e-9)))


def default_density(strings, n_strings=None):
    """Share of the q-grams ``density="auto"`` keeps: 1 unless the base has more
    than 100 million characters; then enough to keep 100 million profile
    entries, and at least 100 q-grams of a string of mean length.

    Only bases of long strings are sampled: 1.0 for ten million words and
    names, 0.1 for a million DNA reads of length 1,000. ``n_strings``: the
    size of the base ``strings`` are a sample of (default: their number).
    """
    mean_length = _mean_length(strings)
    total = mean_length * (len(strings) if n_strings is None else n_strings)
    return float(min(1.0, max(_FULL_PROFILE_ENTRIES / total, _KEPT_PER_STRING / mean_length)))


def qgram_settings(embedder, strings, n_letters=None, n_strings=None):
    """The ``q`` and ``density`` a fit of ``embedder`` on ``strings`` picks
    (``n_letters``: their distinct characters, if known), or on a base of
    ``n_strings`` of which ``strings`` are a sample.

    A fit on a sample of a base picks its own (a smaller ``q``, no sampling):
    the fit memory check builds its samples with the base's settings, and a
    sharded search fits the embedder it shares on a sample with the settings
    of its largest shard.
    """
    if n_letters is None:
        n_letters = len(Alphabet.from_strings(strings).characters)
    longest = max(map(len, strings), default=0) + (2 if embedder.padding else 0)
    density = (
        default_density(strings, n_strings) if embedder.density == "auto" else embedder.density
    )
    # The automatic q never exceeds the longest string: a base of one- or
    # two-character strings (or only empty ones) is valid input.
    q = (
        max(1, min(default_q(strings, n_letters, density, n_strings), longest))
        if embedder.q is None
        else embedder.q
    )
    return {"q": q, "density": float(density)}


@saved_class(
    # Sampling q-grams (density) came after format 1: an older save kept every q-gram.
    version=2,
    added={"density": 1.0, "density_": 1.0},
    formerly=("sklearn_ed._qgram_embedder.QGramEmbedder",),
)
class QGramEmbedder(TransformerMixin, BaseEstimator):
    """Character q-gram profiles of strings (sparse), compared by cosine.

    Each string becomes the vector of its q-gram counts (raw counts, binary
    or tf-idf weighted), L2-normalized: strings at small edit distance share
    most of their q-grams, since one edit changes at most ``q`` of them (the
    q-gram lemma; Ukkonen, 1992). The vocabulary of q-grams is learned at
    fit; q-grams unseen at fit are ignored. Raw counts are the default: the
    lemma counts every q-gram alike, whereas idf weights favour rare q-grams,
    which edit distance does not; on the words and genome-reads benchmarks
    counts put the true neighbors among fewer candidates than tf-idf. The
    idf weights are scikit-learn's
    :class:`~sklearn.feature_extraction.text.TfidfTransformer`. The q-grams
    are counted by a compiled kernel over integer codes rather than by
    ``CountVectorizer(analyzer="char")``, whose Python-level analysis took
    42 s for 50,000 reads of 1 kbp (under 2 s here); the counts are the same.

    A base of long strings has as many profile entries as characters: 10**9
    for a million DNA reads of 1 kbp, 16 GB in a sparse index. There the
    profiles keep a fixed sample of the q-grams (``density``): those whose
    hash falls in the lowest ``density`` share of the hash range, the same
    q-grams for every string (FracMinHash: N. T. Irber et al., 2022, as
    ``sourmash`` sketches genomes), so that the shared kept q-grams of two
    strings count about ``density`` times their shared q-grams. Cosines of
    sampled profiles are noisier; the recall check of
    :class:`~sklearn_ed.FilterRefineNeighbors` measures what that costs and
    raises the candidate count.

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
    weighting : {"count", "tfidf", "binary"}, default="count"
        Values of the profile before normalization: counts, tf-idf (rare
        q-grams weigh more), or presence.
    density : float in (0, 1] or "auto", default="auto"
        Share of the distinct q-grams kept, chosen by a hash of the q-gram.
        ``"auto"`` keeps all of them unless the fitted strings have more
        than 100 million characters; then enough for 100 million profile
        entries, and at least 100 q-grams of a string of mean length (0.1
        for a million reads of 1 kbp). Strings without a kept q-gram get
        an all-zero row.
    padding : bool, default=True
        Pad each string with one start and one end marker (as scikit-learn's
        ``char_wb`` analyzer pads words with spaces), so that a string's
        first and last characters form q-grams of their own and strings of
        ``q - 2`` characters or more have q-grams. More markers would make
        q-grams that thousands of strings share and slow the search.
    n_jobs : int, default=None
        Threads counting q-grams, one batch of 8,192 strings each (joblib
        semantics; the kernel releases the GIL).

    Attributes
    ----------
    q_ : int
        The q-gram length in use.
    density_ : float
        The share of the q-grams kept.
    alphabet_ : ndarray of uint32
        Code points seen at fit; q-grams with other characters are ignored.
    vocabulary_ : ndarray of uint64
        Codes of the q-grams seen at fit, ascending: column ``j`` counts
        q-gram ``vocabulary_[j]`` (names in :meth:`get_feature_names_out`).
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
    0.71
    >>> sampled = QGramEmbedder(q=2, density=0.5).fit(["kitten", "sitting", "mitten"])
    >>> sampled.n_features_out_, set(sampled.get_feature_names_out()) < set(
    ...     embedder.get_feature_names_out())
    (7, True)
    """

    # What save() writes besides the parameters (sklearn_ed.load refuses others).
    __sklearn_ed_saved__ = (
        "alphabet_",
        "q_",
        "density_",
        "vocabulary_",
        "tfidf_",
        "n_features_out_",
    )

    embedding_metric = "cosine"

    _parameter_constraints: dict = {
        "q": [Interval(Integral, 1, None, closed="left"), None],
        "weighting": [StrOptions({"tfidf", "count", "binary"})],
        "density": [Interval(Real, 0, 1, closed="right"), StrOptions({"auto"})],
        "padding": ["boolean"],
        "n_jobs": [Integral, None],
    }

    def __init__(self, q=None, *, weighting="count", density="auto", padding=True, n_jobs=None):
        self.q = q
        self.weighting = weighting
        self.density = density
        self.padding = padding
        self.n_jobs = n_jobs

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

    @classmethod
    def _check_saved_state(cls, state):
        """The saved alphabet and vocabulary are as fit writes them (sklearn_ed.load):
        the alphabet sizes the symbol lookup (a code point past Unicode would
        ask gigabytes), the vocabulary numbers the profiles' columns."""
        if "vocabulary_" not in state:  # saved unfitted
            return
        saved_characters(state.get("alphabet_"), "alphabet_")
        saved_int(state.get("q_"), "q_", low=1)
        vocabulary = saved_array(
            state["vocabulary_"], "vocabulary_", "u", shape=(None,), order="increasing"
        )
        n_columns = len(vocabulary)
        saved_int(state.get("n_features_out_"), "n_features_out_", n_columns, n_columns + 1)

    def _fit_counts(self, strings):
        """Learn q, the vocabulary and the idf weights; the q-gram counts of ``strings``."""
        self.alphabet_ = Alphabet.from_strings(strings).characters
        settings = qgram_settings(self, strings, len(self.alphabet_))
        self.q_, self.density_ = settings["q"], settings["density"]
        longest = max(map(len, strings)) + (2 if self.padding else 0)
        if self.q_ > max(longest, 1):
            raise ValueError(
                f"q={self.q_} is longer than every training string (the longest has "
                f"{longest} characters with padding); choose a smaller q."
            )
        # Each group of batches is counted, numbered in order of first sight
        # and reduced to CSR parts before the next: the codes of the whole base
        # (12 bytes an entry) are never held at once.
        table, parts = CodeTable(), []
        for group in _groups(list(_batches(strings))):
            for indptr, codes, counts in self._map(self._codes, [strings[rows] for rows in group]):
                table.add(codes)
                parts.append(drop_unseen(indptr, table.columns(codes), counts))
        first_seen = table.codes()
        order = np.argsort(first_seen)
        self.vocabulary_ = first_seen[order]
        rank = np.empty(len(order), dtype=np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        counts = _stacked(parts, rank, len(order))
        if self.weighting == "binary":
            counts.data[:] = 1.0
        self.tfidf_ = TfidfTransformer(norm=None).fit(counts) if self.weighting == "tfidf" else None
        self.n_features_out_ = len(self.vocabulary_)
        return counts

    def _markers(self, alphabet):
        """Symbols of the start and end markers (``-1``: no padding)."""
        if not self.padding or self.q_ == 1:
            return -1, -1
        return alphabet.n_symbols, alphabet.n_symbols + 1

    def _code_base(self):
        return qgram_code_base(len(self.alphabet_) + FIRST_CHAR_SYMBOL + 2, self.q_)

    def _codes(self, strings):
        """q-gram codes and counts of ``strings`` (rows of :func:`qgram_counts`)."""
        alphabet = Alphabet(self.alphabet_)
        symbols, offsets = alphabet.encode(strings)
        counted = qgram_counts(
            symbols, offsets, self.q_, self._code_base(), *self._markers(alphabet)
        )
        return qgram_sample(*counted, self.density_)

    def _count_matrix(self, indptr, columns, counts):
        """CSR counts; ``columns`` of q-grams unseen at fit are ``-1`` and dropped."""
        kept, columns, values = drop_unseen(indptr, columns, counts)
        if self.weighting == "binary":
            values[:] = 1.0
        return sparse.csr_matrix(
            (values, columns, kept), shape=(len(indptr) - 1, len(self.vocabulary_))
        )

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
        strings = check_strings(X)
        counted = self._map_batches(self._codes, strings)
        n_codes = sum(len(codes) for _, codes, _ in counted)
        columns = (
            self._sorted_columns
            if n_codes < len(self.vocabulary_)
            else CodeTable.from_codes(self.vocabulary_).columns
        )

        def count(batch):
            indptr, codes, n = batch
            return self._count_matrix(indptr, columns(codes), n)

        return self._profiles(sparse.vstack(self._map(count, counted), format="csr"))

    def _sorted_columns(self, codes):
        """Column of each code by binary search in the sorted ``vocabulary_``
        (``-1`` if unseen): for a few queries, cheaper than hashing the vocabulary."""
        position = np.minimum(np.searchsorted(self.vocabulary_, codes), len(self.vocabulary_) - 1)
        return np.where(self.vocabulary_[position] == codes, position, -1)

    def _map_batches(self, function, strings):
        """``function`` of each batch of strings, in order, on ``n_jobs`` threads."""
        return self._map(function, [strings[rows] for rows in _batches(strings)])

    def _map(self, function, items):
        return map_in_threads(function, items, self.n_jobs)

    def _profiles(self, counts):
        if self.tfidf_ is not None:
            counts = self.tfidf_.transform(counts)
        return normalize(counts, copy=False).astype(np.float32, copy=False).tocsr()

    def get_feature_names_out(self, input_features=None):
        """The q-grams, in column order (padding shown as the markers).

        Parameters
        ----------
        input_features : None
            Ignored.

        Returns
        -------
        feature_names_out : ndarray of str
            One q-gram per output column; ``"hash:<hex>"`` for q-grams too
            long to decode (``n_symbols ** q`` beyond 64 bits).
        """
        check_is_fitted(self)
        base = int(self._code_base())
        characters = (
            [PAD, UNKNOWN] + [chr(point) for point in self.alphabet_] + [_PAD_START, _PAD_END]
        )
        if base != len(characters):
            return np.array(
                [f"hash:{code:016x}" for code in self.vocabulary_.tolist()], dtype=object
            )
        names = []
        for code in self.vocabulary_.tolist():
            digits = []
            for _ in range(self.q_):
                code, digit = divmod(code, base)
                digits.append(characters[digit])
            names.append("".join(reversed(digits)))
        return np.array(names, dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        tags.input_tags.sparse = False
        tags.requires_fit = True
        return tags
