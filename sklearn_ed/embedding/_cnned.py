"""CNN-ED: a convolutional embedding of edit distance (Dai et al., 2020)."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..io import character_codes, symbol_table
from ..nn import (
    squared_euclidean,
)
from ..utils import UNKNOWN_SYMBOL, SavedStateError, require_neural, saved_array, saved_class
from ._base import BaseStringEmbedder
from ._neural import NEURAL_PARAMETER_CONSTRAINTS, NeuralEmbedderMixin

# Training pairs used to fit the distance map g.
_MAP_PAIRS = 20_000


@saved_class(formerly=("sklearn_ed._cnned.CNNEDEmbedder",))
class CNNEDEmbedder(NeuralEmbedderMixin, BaseStringEmbedder):
    """Convolutional embedding of edit distance into Euclidean distance (CNN-ED).

    Dai, Yan, Zhou, Wang, Yang and Cheng (2020): strings are one-hot encoded over
    the alphabet learned at fit (with an unknown-character bucket; padding
    is all-zero), passed through ``n_layers`` blocks of ``Conv1d`` (kernel 3)
    and pooling, then a linear layer to ``n_components`` float32 values. The
    network is trained through skorch with the triplet loss with a
    per-triplet margin ``d(a, n) - d(a, p)`` plus ``alpha`` times the
    approximation error over the three pairs; triplets draw their positive
    and negative from the anchor's exact top-``n_neighbors`` training
    neighbors (the closer one is the positive), 64 per batch, Adam.

    Edit distances are divided by their mean over training pairs during
    training (as in the authors' code), so embedding distances are in those
    units; ``distance_map_`` (a line fitted on training pairs) maps them back
    to edit distances, see :meth:`estimate_distance`.

    The defaults (``input_mode="per_character"``, ``pooling="avg"``,
    ``activation=None``) are the authors' configuration and make the network
    affine in its one-hot input: ``transform`` then sums one precomputed
    vector per character and position (``bias + sum_t table[x_t, t]``)
    instead of running convolutions, which is exactly equal up to float
    rounding. Other settings run the network in torch, with the first
    convolution of ``input_mode="channels"`` done as embedding lookups.

    Parameters
    ----------
    n_components : int, default=128
        Embedding dimension d.
    n_layers : int, default=8
        Conv + pooling blocks; the sequence length halves in each.
    n_channels : int, default=8
        Channels of every convolution.
    pooling : {"avg", "max"}, default="avg"
        Pooling after every convolution (the paper found "avg" better).
    activation : {None, "relu"}, default=None
        Non-linearity after every pooling.
    input_mode : {"per_character", "channels"}, default="per_character"
        ``"per_character"``: every character's one-hot row goes separately
        through shared single-channel filters (the authors' code).
        ``"channels"``: characters are the input channels of the first
        convolution.
    alpha : float, default=0.1
        Weight of the approximation error in the loss.
    n_neighbors : int, default=100
        k of the top-k neighbor lists the triplets are drawn from. Reduced
        to ``n_train_ - 1`` with a warning on a smaller training set.
    n_train : int or None, default=1000
        Training strings sampled (with ``random_state``, see
        ``train_sampling``) from ``X`` when it is larger; their exact
        distance matrix is computed once with rapidfuzz and cached
        (``train_distances_``). ``None`` uses all of ``X``.
    train_sampling : {"neighborhoods", "uniform"}, default="neighborhoods"
        How the ``n_train`` training strings are drawn from a larger ``X``.
        ``"uniform"``: a uniform sample without replacement (the paper).
        ``"neighborhoods"``: random anchor strings, each with its
        ``neighborhood_size - 1`` nearest strings of ``X`` not chosen yet,
        until ``n_train`` strings are chosen. The neighbors are found by
        filter and refine: the 10 times as many strings with the most
        similar q-gram sets (cosine of binary q-gram profiles; ``q`` is the
        smallest integer >= 2 with ``alphabet size ** q >= 4 x mean
        length``: 6 for DNA reads of length 1,000, 3 for proteins, 2 for
        words), then exact distances to those candidates. Cost for 50,000
        strings of length 1,000: about 5 s and 0.7 GB of temporary memory
        (measured), plus ~9,500 exact distances; nothing when ``X`` has at
        most ``n_train`` strings.
        **Deviation from the paper**, which samples uniformly: triplets
        come from each anchor's exact top-``n_neighbors`` *training*
        neighbors, and a uniform sample of a large set whose near
        neighbors are rare (1,000 of 50,000 simulated genome reads
        cover its genome ~2x) holds almost no near pairs, so the triplets
        rank unrelated strings while a search needs near neighbors ranked.
        Neighborhoods put near pairs in the training set: on
        50,000 genome reads top-10 recall at 1 % candidates rose from
        0.794 (uniform) to 0.973 (see the CNN-ED benchmark page; on
        words, whose uniform sample already has near pairs, it is 0.03
        lower at 0.1 % candidates and equal from 1 %). Fit on the data you index.
    neighborhood_size : int, default=20
        Strings per neighborhood, anchor included, with
        ``train_sampling="neighborhoods"``; 1 is a uniform sample.
    train_neighbors : {"auto", "exact", "candidates"}, default="auto"
        How the training strings' top-``n_neighbors`` lists are found.
        ``"exact"``: from their whole exact distance matrix (the paper).
        ``"candidates"``: ranked by exact distance among the
        ``2 n_neighbors`` strings with the most similar q-gram sets; only
        those pairs and the pairs of the drawn triplets are computed, before
        training. ``"auto"``: ``"candidates"`` for strings of 500 characters
        or more on average when the candidates are at most a quarter of the
        training set, else ``"exact"``. **Deviation from the paper** for long
        strings: on 5,000 genome reads it computes 3.3x fewer distances at
        the same recall over 6 seeds (user guide, "Fit time").
    max_epochs : int, default=50
        Epochs; an epoch is ``n_train_`` triplets.
    batch_size : int, default=64
        Triplets per batch (the paper's); 128 made CPU epochs a third shorter, same recall.
    lr : float, default=1e-3
        Adam learning rate.
    device : {"cpu", "cuda", "auto"}, default="cpu"
        Training device ("auto": CUDA when available). ``transform`` runs on
        the same device when it is available there, else on the CPU, so a
        model trained on GPU runs on a CPU-only machine.
    callbacks : list of skorch callbacks or None, default=None
        Passed to the skorch net (copied at fit). There is no validation
        split: monitor ``"train_loss"`` (e.g.
        ``EarlyStopping(monitor="train_loss")``).
    verbose : int, default=0
        0: silent; 1: skorch's epoch table (stdout), and a line logged on
        the ``sklearn_ed`` logger (stderr) before the exact distances of
        the training set; 2: also a progress bar.
    n_jobs : int, default=None
        Parallel jobs of the exact distances that build the training set
        (``None``: every usable core, as they are most of a CPU fit; joblib
        semantics otherwise) and torch threads of ``transform``. Training
        itself runs on one torch thread: more were up to 2.8x slower when
        another process competed for the cores.
    max_length : int, default=None
        Padding length M. ``None`` uses the longest training string, at most
        twice the 99th percentile of the training lengths (longer outliers are
        truncated, with one warning giving their count).
    on_long_string : {"truncate", "error"}, default="truncate"
        What ``transform`` does with a string longer than ``max_length_``.
    random_state : int, RandomState instance or None, default=None
        Seeds the training sample, the initial weights and the triplets; with
        an int, fitting twice on CPU gives identical embeddings.

    Attributes
    ----------
    alphabet_ : Alphabet
        Characters seen at fit (symbol 0 padding, 1 unknown, 2... alphabet).
    max_length_ : int
        Padding length M.
    module_ : CNNEDModule
        The trained torch network, on the CPU.
    history_ : list of dict
        skorch's training history (one dict per epoch).
    train_distances_ : ndarray of shape (n_train, n_train)
        Exact edit distances between the training strings; with
        ``"candidates"`` float32, NaN for the pairs training did not need.
    train_neighbors_ : {"exact", "candidates"}
        How the top-k lists were found (``train_neighbors`` resolved).
    train_indices_ : ndarray of int64, shape (n_train,)
        Sorted indices into ``X`` of the training strings.
    n_train_ : int
        Number of training strings.
    n_neighbors_ : int
        k actually used.
    distance_scale_ : float
        Mean training edit distance (the training unit).
    distance_map_ : ndarray of shape (2,)
        Slope and intercept of g: edit distance ~ g(Euclidean distance),
        least squares on training pairs.
    n_features_out_ : int
        ``n_components``.

    See Also
    --------
    CGKEmbedder : Data-independent embedding into Hamming space.
    FilterRefineNeighbors : Nearest neighbors filtered by an embedding.

    References
    ----------
    X. Dai, X. Yan, K. Zhou, Y. Wang, H. Yang, J. Cheng. "Convolutional
    Embedding for Edit Distance", SIGIR 2020.

    Examples
    --------
    >>> from sklearn_ed import CNNEDEmbedder
    >>> strings = ["ACGTACGT", "ACGTACGA", "TTGTACGT", "ACCA", "GGGTACCA"]
    >>> embedder = CNNEDEmbedder(n_components=16, max_epochs=2, n_neighbors=3,
    ...                          random_state=0).fit(strings)
    >>> embedder.transform(strings).shape
    (5, 16)
    >>> embedder.estimate_distance(["ACGT"], ["ACGA", "ACGT"]).shape
    (1, 2)
    """

    # What save() writes besides the parameters (sklearn_ed.load refuses others).
    __sklearn_ed_saved__ = (
        "alphabet_",
        "max_length_",
        "n_features_out_",
        "module_",
        "history_",
        "n_neighbors_",
        "n_train_",
        "train_distances_",
        "train_indices_",
        "train_neighbors_",
        "distance_scale_",
        "_train_pairs",
        "_train_key",
        "distance_map_",
        "_lookup",
        "_device_lookup",
    )

    embedding_metric = "euclidean"

    _parameter_constraints: dict = {
        **BaseStringEmbedder._parameter_constraints,
        **NEURAL_PARAMETER_CONSTRAINTS,
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_layers": [Interval(Integral, 1, None, closed="left")],
        "n_channels": [Interval(Integral, 1, None, closed="left")],
        "pooling": [StrOptions({"avg", "max"})],
        "activation": [StrOptions({"relu"}), None],
        "input_mode": [StrOptions({"per_character", "channels"})],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "train_neighbors": [StrOptions({"auto", "exact", "candidates"})],
        "max_epochs": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(
        self,
        n_components=128,
        *,
        n_layers=8,
        n_channels=8,
        pooling="avg",
        activation=None,
        input_mode="per_character",
        alpha=0.1,
        n_neighbors=100,
        n_train=1000,
        train_sampling="neighborhoods",
        neighborhood_size=20,
        train_neighbors="auto",
        max_epochs=50,
        batch_size=64,
        lr=1e-3,
        device="cpu",
        callbacks=None,
        verbose=0,
        n_jobs=None,
        max_length=None,
        on_long_string="truncate",
        random_state=None,
    ):
        self.n_components = n_components
        self.n_layers = n_layers
        self.n_channels = n_channels
        self.pooling = pooling
        self.activation = activation
        self.input_mode = input_mode
        self.alpha = alpha
        self.n_neighbors = n_neighbors
        self.n_train = n_train
        self.train_sampling = train_sampling
        self.neighborhood_size = neighborhood_size
        self.train_neighbors = train_neighbors
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.device = device
        self.callbacks = callbacks
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.max_length = max_length
        self.on_long_string = on_long_string
        self.random_state = random_state

    def fit(self, X, y=None):
        """Learn the alphabet and padding length, then train the network.

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Training strings (at least 3); ``n_train`` of them are used.
        y : None
            Ignored.

        Returns
        -------
        self : CNNEDEmbedder
            Fitted embedder.
        """
        return super().fit(X, y)

    # ----------------------------------------------------------------- fit
    def _fit(self, strings):
        torch = require_neural("CNNEDEmbedder.fit")

        from ..nn import (
            CNNEDModule,
            ResampleTriplets,
            TripletApproximationLoss,
        )

        rng = check_random_state(self.random_state)
        train, distances, dataset, seed = self._top_k_triplets(
            strings, rng, train_neighbors=self.train_neighbors, n_epochs=self.max_epochs
        )
        with self._training(seed) as device:
            module = CNNEDModule(
                self.alphabet_.n_symbols,
                self.max_length_,
                n_components=self.n_components,
                n_layers=self.n_layers,
                n_channels=self.n_channels,
                pooling=self.pooling,
                activation=self.activation,
                input_mode=self.input_mode,
            )
            net = self._fit_net(
                module,
                dataset,
                torch.from_numpy(self._pad(train)),
                device,
                callbacks=self._skorch_callbacks(("resample_triplets", ResampleTriplets())),
                criterion=TripletApproximationLoss,
                criterion__alpha=self.alpha,
                optimizer=torch.optim.Adam,
                lr=self.lr,
                max_epochs=self.max_epochs,
            )
        self._keep_trained(net.module_, net.history)
        self.n_features_out_ = self.n_components
        self._lookup = self._device_lookup = None
        self.distance_map_ = self._fit_distance_map(train, distances, rng)

    def _fit_distance_map(self, train, distances, rng):
        embedded = self._embed_strings(train).astype(np.float64)
        left, right = np.nonzero(np.triu(~np.isnan(distances), 1))
        if left.size > _MAP_PAIRS:
            keep = rng.choice(left.size, _MAP_PAIRS, replace=False)
            left, right = left[keep], right[keep]
        euclidean = np.linalg.norm(embedded[left] - embedded[right], axis=1)
        exact = distances[left, right].astype(np.float64)
        if np.ptp(euclidean) == 0:
            return np.array([0.0, exact.mean()])
        return np.polyfit(euclidean, exact, deg=1)

    # ----------------------------------------------------------- transform
    def _embed_batch(self, strings):
        device = self._inference_device()
        if not self.module_.is_affine:
            return self._embed_torch(strings)
        if device == "cpu":
            return self._embed_lookup(strings)
        return self._embed_bag(strings, device)

    @staticmethod
    def _network_width(module):
        return module.n_components

    @classmethod
    def _check_saved_state(cls, state):
        """The saved lookup table (when there is one) is the network's shape."""
        super()._check_saved_state(state)
        lookup = state.get("_lookup")
        if lookup is None:
            return
        if not (isinstance(lookup, (tuple, list)) and len(lookup) == 2):
            raise SavedStateError("_lookup", "not a table and a bias")
        module = state["module_"]
        shape = (module.n_symbols, module.max_length, module.n_components)
        saved_array(lookup[0], "_lookup", "f", shape=shape)
        saved_array(lookup[1], "_lookup", "f", shape=shape[2:])

    def _lookup_table(self):
        if getattr(self, "_lookup", None) is None:
            from ..nn import affine_lookup_table

            self._lookup = affine_lookup_table(self.module_)
        return self._lookup

    def _code_symbols(self):
        return symbol_table(self.alphabet_.lookup, UNKNOWN_SYMBOL)

    def _embed_bag(self, strings, device):
        """The lookup sum by ``embedding_bag`` on ``device``; the tables move there once."""
        from ..nn import embedding_bag_lookup

        cached = getattr(self, "_device_lookup", None)
        # A model saved before the code table joined the cache holds three items.
        if cached is None or cached[0] != device or len(cached) != 4:
            import torch

            arrays = (self._code_symbols(), *self._lookup_table())
            cached = (device, *(torch.as_tensor(array, device=device) for array in arrays))
            self._device_lookup = cached
        codes, offsets = character_codes(strings)
        return embedding_bag_lookup(codes, offsets, *cached[1:], device=device)

    def _embed_lookup(self, strings):
        from ..nn import lookup_sum

        table, bias = self._lookup_table()
        codes, offsets = character_codes(strings)
        out = np.empty((len(strings), self.n_features_out_), dtype=np.float32)
        return lookup_sum(codes, offsets, self._code_symbols(), table, bias, out)

    def estimate_distance(self, X, Y=None):
        """Edit distances estimated from embeddings: ``g(||f(x) - f(y)||)``.

        Parameters
        ----------
        X : array-like of str of shape (n_x,)
        Y : array-like of str of shape (n_y,), default=None
            ``None`` means ``X``.

        Returns
        -------
        distances : ndarray of float64, shape (n_x, n_y)
            Estimates, clipped at 0.
        """
        check_is_fitted(self)
        fx = self.transform(X).astype(np.float64)
        fy = fx if Y is None else self.transform(Y).astype(np.float64)
        euclidean = np.sqrt(squared_euclidean(fx, fy))
        slope, intercept = self.distance_map_
        return np.maximum(slope * euclidean + intercept, 0.0)

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_lookup", None)  # derived from module_, rebuilt on first use
        state.pop("_device_lookup", None)
        return state
