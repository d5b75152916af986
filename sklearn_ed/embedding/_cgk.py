"""CGK and CGK' random-walk embeddings of edit distance into Hamming space."""

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ..utils import Alphabet, SavedStateError, saved_array, saved_class, saved_int
from ._base import BaseStringEmbedder
from ._cgk_kernels import cgk_embed, pack_walk_bits

_OUTPUT_FACTOR = {"cgk": 3, "cgk_prime": 2}


@saved_class(formerly=("sklearn_ed._cgk.CGKEmbedder",))
class CGKEmbedder(BaseStringEmbedder):
    """Data-independent embedding of edit distance into Hamming distance.

    Each string is copied along a random walk (Chakraborty, Goldenberg and
    Koucky, 2016): at every output step the current character is written and
    the walk advances or stays according to a random bit that depends on the
    step and the character. Two similar strings walk in step most of the
    time, so the Hamming distance of their outputs bounds their edit distance:
    ``d_E <= d_H <= O(d_E^2)`` with good probability for ``variant="cgk"``
    and ``d_E / 2 <= d_H`` always for ``variant="cgk_prime"`` on equal-length
    binary strings (Theorem 1 of Zhang et al., 2020).

    Compare outputs with Hamming distance (``embedding_metric = "hamming"``);
    :class:`~sklearn_ed.FilterRefineNeighbors` does so automatically.

    Parameters
    ----------
    variant : {"cgk", "cgk_prime"}, default="cgk"
        ``"cgk"``: Algorithm 1 of the CGK paper, output length ``3 * L``.
        ``"cgk_prime"``: the truncated CGK' (Algorithm 2 of Zhang et al.):
        each character is written at most twice, output length ``2 * L``.
    n_repetitions : int, default=1
        Number of independent walks whose outputs are concatenated; more
        repetitions average out the randomness of one walk.
    max_length : int, default=None
        Padding length ``L``. ``None`` uses the longest training string, at
        most twice the 99th percentile of the training lengths (longer outliers
        are truncated, with one warning giving their count).
    on_long_string : {"truncate", "error"}, default="truncate"
        What ``transform`` does with a string longer than ``max_length_``:
        embed its first ``max_length_`` characters and warn, or raise.
    random_state : int, RandomState instance or None, default=None
        Seeds the random bits of the walks.

    Attributes
    ----------
    alphabet_ : Alphabet
        Characters seen at fit. Symbol 0 is padding (never a character),
        symbol 1 the bucket of characters unseen at fit, 2... the alphabet.
    max_length_ : int
        Padding length ``L`` in use.
    walk_bits_ : ndarray of uint8, shape (n_repetitions, factor * L, n_symbols)
        The random functions ``pi_j(c)``: 1 means "advance after writing c at
        step j".
    n_features_out_ : int
        ``n_repetitions * factor * L`` with factor 3 (CGK) or 2 (CGK').
    n_symbols_ : int
        Number of symbol values of :meth:`transform_symbols` (the alphabet
        plus padding and the unknown bucket); the index packs each position
        into this many bits.

    See Also
    --------
    FilterRefineNeighbors : Nearest neighbors filtered by an embedding.

    References
    ----------
    D. Chakraborty, E. Goldenberg, M. Koucky. "Streaming algorithms for
    embedding and computing edit distance in the low distance regime", STOC 2016.
    X. Zhang, Y. Yuan, P. Indyk. "Neural embeddings for nearest neighbor
    search under edit distance", 2020 (Algorithm 2, Theorem 1).

    Examples
    --------
    >>> from sklearn_ed import CGKEmbedder
    >>> embedder = CGKEmbedder(random_state=0).fit(["ACGT", "ACGA", "TTTT"])
    >>> embedder.transform(["ACGT", "ACG"]).shape
    (2, 12)
    >>> embedder.n_features_out_
    12
    """

    # What save() writes besides the parameters (sklearn_ed.load refuses others).
    __sklearn_ed_saved__ = (
        "alphabet_",
        "max_length_",
        "n_features_out_",
        "n_symbols_",
        "walk_bits_",
    )

    embedding_metric = "hamming"

    _parameter_constraints: dict = {
        **BaseStringEmbedder._parameter_constraints,
        "variant": [StrOptions({"cgk", "cgk_prime"})],
        "n_repetitions": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        variant="cgk",
        n_repetitions=1,
        max_length=None,
        on_long_string="truncate",
        random_state=None,
    ):
        self.variant = variant
        self.n_repetitions = n_repetitions
        self.max_length = max_length
        self.on_long_string = on_long_string
        self.random_state = random_state

    def fit(self, X, y=None):
        """Learn the alphabet and padding length and draw the random walks.

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Training strings.
        y : None
            Ignored.

        Returns
        -------
        self : CGKEmbedder
            Fitted embedder.
        """
        return super().fit(X, y)

    @classmethod
    def _check_saved_state(cls, state):
        """The saved walks fill exactly the codes the kernel writes, one bit per
        symbol of the alphabet (sklearn_ed.load; the kernel checks no bounds)."""
        if "walk_bits_" not in state:  # saved unfitted
            return
        alphabet = state.get("alphabet_")
        if not isinstance(alphabet, Alphabet):
            raise SavedStateError("alphabet_", "walks without their alphabet")
        if state.get("variant") not in _OUTPUT_FACTOR:
            raise SavedStateError("variant", f"{state.get('variant')!r} is not a variant")
        steps = _OUTPUT_FACTOR[state["variant"]] * saved_int(
            state.get("max_length_"), "max_length_", low=1
        )
        shape = (None, steps, alphabet.n_symbols)
        bits = saved_array(state["walk_bits_"], "walk_bits_", "u", shape=shape, high=2)
        width = bits.shape[0] * steps
        saved_int(state.get("n_features_out_"), "n_features_out_", low=width, high=width + 1)
        saved_int(state.get("n_symbols_"), "n_symbols_", alphabet.n_symbols, alphabet.n_symbols + 1)

    def _fit(self, strings):
        rng = check_random_state(self.random_state)
        out_length = _OUTPUT_FACTOR[self.variant] * self.max_length_
        shape = (self.n_repetitions, out_length, self.alphabet_.n_symbols)
        self.walk_bits_ = rng.randint(0, 2, size=shape, dtype=np.uint8)
        self.n_features_out_ = self.n_repetitions * out_length
        self.n_symbols_ = self.alphabet_.n_symbols

    def transform_symbols(self, X):
        """Embed strings as integer symbols (compact form of ``transform``).

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Strings to embed.

        Returns
        -------
        symbols : ndarray of uint8 or uint16, shape (n_samples, n_features_out)
            Symbol ``0`` is padding; equal to ``transform(X)`` cast to integers.
        """
        return self._embed(X)

    def _symbol_dtype(self):
        return np.uint8 if self.alphabet_.n_symbols <= 256 else np.uint16

    def _embed_batch(self, strings):
        symbols, offsets = self.alphabet_.encode(strings)
        out = np.zeros((len(strings), self.n_features_out_), dtype=self._symbol_dtype())
        cgk_embed(
            symbols,
            offsets,
            pack_walk_bits(self.walk_bits_),
            self.max_length_,
            self.variant == "cgk_prime",
            out,
        )
        return out
