"""The three-phase GRU embedding of edit distance (Zhang, Yuan and Indyk, 2020)."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..nn import (
    squared_euclidean,
)
from ..utils import require_neural, saved_class
from ._base import BaseStringEmbedder
from ._neural import NEURAL_PARAMETER_CONSTRAINTS, NeuralEmbedderMixin

_PHASE_NAMES = {1: "absolute loss", 2: "triplet loss", 3: "learned CGK'"}


@saved_class(formerly=("sklearn_ed._gru.GRUEmbedder",))
class GRUEmbedder(NeuralEmbedderMixin, BaseStringEmbedder):
    """Three-phase GRU embedding of edit distance (Zhang, Yuan and Indyk 2020).

    A string of padded length M is one-hot encoded and read by a two-layer
    GRU; the first layer's output at every step is multiplied by a Bernoulli
    mask before the second layer, and a linear layer maps every step to
    ``n_step_components`` values. The embedding is the concatenation of all
    steps, and ``d_H(u, v) = ||u - v||^2 / 2`` approximates the edit distance
    (divided by the mean training distance, see ``distance_scale_``).

    Training runs the phases of ``phases`` in order, each for its
    ``epochs_per_phase`` epochs of ``n_train_`` pairs or triplets, through
    skorch with Adam:

    1. absolute loss ``|d_E(x, y) - d_H(f(x), f(y))|`` (warm start, eq. 5);
    2. triplet loss with the margin ``d_E(a, n) - d_E(a, p)`` (eq. 6);
    3. the step sequence goes through CGK' (Algorithm 3): each step is
       written once or twice according to a learned hash table ``H``
       (``hash_table_``) and threshold (``threshold_``) read at the input
       character; the absolute loss on the result trains the network, and
       Algorithm 4 moves ``H`` and the threshold towards the duplication
       choices that lower the loss; the insertion loss (eq. 8) is recorded.
       From then on ``transform`` applies the walk, and the embedding has 2M
       steps.

    Pairs and triplets are drawn as in :class:`CNNEDEmbedder`: an anchor, and
    two of its exact top-``n_neighbors`` training neighbors (the closer one
    is the positive); Phases 1 and 3 use the triplet's three pairs.

    **Memory.** The output has ``max_length_ * n_step_components`` values
    per string (twice that with Phase 3), e.g. 16,000 float32 (64 KB) for
    reads of length 1,000 with the defaults: 3.2 GB for 50,000 reads, against
    512 bytes per string for :class:`CNNEDEmbedder`. ``output_dtype="float16"``
    halves it, a smaller ``max_length`` or ``n_step_components`` shrinks it,
    and ``transform`` warns when its output would exceed
    ``max_output_bytes``.

    Parameters
    ----------
    n_step_components : int, default=8
        Dimension of every step vector.
    hidden_size : int, default=64
        Units of both GRU layers.
    dropout : float, default=0.1
        Probability that a step of the first layer's output is zeroed during
        training (the masks ``delta_i`` of eq. 2; inverted dropout, so no
        mask at inference).
    phases : tuple of {1, 2, 3}, default=(1, 2, 3)
        Training phases in the order they run, each at most once. ``()``
        keeps the initial network; leaving phases out gives the ablations of
        the paper's Table 5.
    epochs_per_phase : int or tuple of int, default=5
        Epochs of each phase: one number for all, or one per entry of
        ``phases``.
    n_neighbors : int, default=100
        k of the top-k neighbor lists pairs and triplets are drawn from.
        Reduced to ``n_train_ - 1`` with a warning on a smaller training set.
    n_train : int or None, default=1000
        Training strings drawn (with ``random_state``, see ``train_sampling``)
        from ``X`` when it is larger; their exact distance matrix is computed
        once with rapidfuzz and cached (``train_distances_``). ``None`` uses
        all of ``X``.
    train_sampling : {"neighborhoods", "uniform"}, default="neighborhoods"
        How the ``n_train`` strings are drawn from a larger ``X``: random
        anchors with their nearest strings (so that the training set holds
        near pairs), or a uniform sample (the paper). As in
        :class:`CNNEDEmbedder`, which documents the neighbor search.
    neighborhood_size : int, default=20
        Strings per neighborhood, anchor included; 1 is a uniform sample.
    batch_size : int, default=64
        Triplets per batch.
    lr : float, default=1e-3
        Adam learning rate of the network.
    threshold_lr : float, default=1e-4
        epsilon of Algorithm 4 (threshold step per improving change, averaged
        over the pairs of a batch). The paper gives no value; this one and
        ``hash_lr`` were chosen on a validation set of hard cases, where ten
        times larger steps lowered top-1 recall and a hundred times larger
        ones made it collapse (the walk then duplicates too rarely to
        re-synchronise shifted strings).
    hash_lr : float, default=1e-3
        eta of Algorithm 4 (hash step per improving change, averaged over the
        pairs of a batch).
    device : {"cpu", "cuda", "auto"}, default="cpu"
        Training device ("auto": CUDA when available). ``transform`` runs on
        it when it is available, else on the CPU.
    callbacks : list of skorch callbacks or None, default=None
        Passed to the skorch net of every phase (copied at each).
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
    output_dtype : {"float32", "float16"}, default="float32"
        dtype of ``transform``'s output.
    max_output_bytes : int, default=2**30
        ``transform`` warns when its output would be larger.
    random_state : int, RandomState instance or None, default=None
        Seeds the training sample, the initial weights, the dropout masks,
        the hash table and the triplets.

    Attributes
    ----------
    alphabet_ : Alphabet
        Characters seen at fit (symbol 0 padding, 1 unknown, 2... alphabet).
    max_length_ : int
        Padding length M.
    module_ : GRUModule
        The trained network (with its CGK' walk after Phase 3), on the CPU.
    history_ : list of dict
        skorch's history of every phase, one dict per epoch, with a
        ``"phase"`` entry; Phase 3 epochs also hold ``"insertion_loss"``, the
        mean of eq. 8 (negative when the walk brings the embedding distance
        closer to the edit distance than the plain step sequence).
    hash_table_ : ndarray of float32, shape (n_symbols, 2 * max_length) or None
        ``H`` of the learned CGK' walk (``None`` without Phase 3).
    threshold_ : float or None
        Its threshold.
    train_distances_ : ndarray of shape (n_train, n_train)
        Exact edit distances between the training strings.
    train_neighbors_ : "exact"
        How the top-k lists were found: from the whole matrix, as in the paper.
    train_indices_ : ndarray of int64, shape (n_train,)
        Sorted indices into ``X`` of the training strings.
    n_train_ : int
        Number of training strings.
    n_neighbors_ : int
        k actually used.
    distance_scale_ : float
        Mean training edit distance: ``d_H`` approximates ``d_E / distance_scale_``.
    n_features_out_ : int
        Output dimension: (2 with Phase 3, else 1) x M x ``n_step_components``.

    See Also
    --------
    CNNEDEmbedder : Convolutional embedding, much faster to train and apply.
    CGKEmbedder : Data-independent random-walk embedding.

    References
    ----------
    X. Zhang, Y. Yuan, P. Indyk. "Neural Embeddings for Nearest Neighbor
    Search Under Edit Distance", 2020.

    Examples
    --------
    >>> from sklearn_ed import GRUEmbedder
    >>> strings = ["ACGTACGT", "ACGTACGA", "TTGTACGT", "ACCA", "GGGTACCA"]
    >>> embedder = GRUEmbedder(n_step_components=2, hidden_size=8, epochs_per_phase=1,
    ...                        n_neighbors=3, random_state=0).fit(strings)
    >>> embedder.transform(strings).shape  # 2 x 8 steps x 2 values
    (5, 32)
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
        "hash_table_",
        "threshold_",
    )

    embedding_metric = "euclidean"

    _parameter_constraints: dict = {
        **BaseStringEmbedder._parameter_constraints,
        **NEURAL_PARAMETER_CONSTRAINTS,
        "n_step_components": [Interval(Integral, 1, None, closed="left")],
        "hidden_size": [Interval(Integral, 1, None, closed="left")],
        "dropout": [Interval(Real, 0, 1, closed="left")],
        "phases": [tuple, list],
        "epochs_per_phase": [Interval(Integral, 0, None, closed="left"), tuple, list],
        "threshold_lr": [Interval(Real, 0, None, closed="left")],
        "hash_lr": [Interval(Real, 0, None, closed="left")],
        "output_dtype": [StrOptions({"float32", "float16"})],
        "max_output_bytes": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        n_step_components=8,
        *,
        hidden_size=64,
        dropout=0.1,
        phases=(1, 2, 3),
        epochs_per_phase=5,
        n_neighbors=100,
        n_train=1000,
        train_sampling="neighborhoods",
        neighborhood_size=20,
        batch_size=64,
        lr=1e-3,
        threshold_lr=1e-4,
        hash_lr=1e-3,
        device="cpu",
        callbacks=None,
        verbose=0,
        n_jobs=None,
        max_length=None,
        on_long_string="truncate",
        output_dtype="float32",
        max_output_bytes=2**30,
        random_state=None,
    ):
        self.n_step_components = n_step_components
        self.hidden_size = hidden_size
        self.dropout = dropout
        self.phases = phases
        self.epochs_per_phase = epochs_per_phase
        self.n_neighbors = n_neighbors
        self.n_train = n_train
        self.train_sampling = train_sampling
        self.neighborhood_size = neighborhood_size
        self.batch_size = batch_size
        self.lr = lr
        self.threshold_lr = threshold_lr
        self.hash_lr = hash_lr
        self.device = device
        self.callbacks = callbacks
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.max_length = max_length
        self.on_long_string = on_long_string
        self.output_dtype = output_dtype
        self.max_output_bytes = max_output_bytes
        self.random_state = random_state

    def fit(self, X, y=None):
        """Learn the alphabet and padding length, then train the phases.

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Training strings (at least 3); ``n_train`` of them are used.
        y : None
            Ignored.

        Returns
        -------
        self : GRUEmbedder
            Fitted embedder.
        """
        return super().fit(X, y)

    # ----------------------------------------------------------------- fit
    def _phase_plan(self):
        """[(phase, epochs), ...] from ``phases`` and ``epochs_per_phase``."""
        phases = list(self.phases)
        if any(
            isinstance(p, bool) or not isinstance(p, Integral) or p not in (1, 2, 3) for p in phases
        ) or len(set(phases)) != len(phases):
            raise ValueError(
                f"phases must list distinct phases among 1, 2 and 3, got {self.phases!r}."
            )
        epochs = self.epochs_per_phase
        if isinstance(epochs, Integral):
            return [(int(p), int(epochs)) for p in phases]
        epochs = list(epochs)
        if len(epochs) != len(phases) or any(
            isinstance(e, bool) or not isinstance(e, Integral) or e < 0 for e in epochs
        ):
            raise ValueError(
                f"epochs_per_phase must be a non-negative int or one per phase "
                f"({len(phases)} for phases={self.phases!r}), got {self.epochs_per_phase!r}."
            )
        return [(int(p), int(e)) for p, e in zip(phases, epochs)]

    def _fit(self, strings):
        torch = require_neural("GRUEmbedder.fit")
        from skorch.callbacks import PassthroughScoring

        from ..nn import (
            GRUModule,
            HalfSquaredTripletLoss,
            HashLearningNet,
            PairAbsoluteLoss,
            ResampleTriplets,
        )

        plan = self._phase_plan()
        rng = check_random_state(self.random_state)
        train, distances, dataset, seed = self._top_k_triplets(strings, rng)
        inputs = torch.from_numpy(self._pad(train))
        history = []
        with self._training(seed) as device:
            module = GRUModule(
                self.alphabet_.n_symbols,
                self.max_length_,
                hidden_size=self.hidden_size,
                n_step_components=self.n_step_components,
                dropout=self.dropout,
            )
            for phase, epochs in plan:
                first = [("resample_triplets", ResampleTriplets())]
                net_class, criterion, extra = None, PairAbsoluteLoss, {}
                if phase == 2:
                    criterion = HalfSquaredTripletLoss
                elif phase == 3:
                    module.attach_cgk()
                    net_class = HashLearningNet
                    extra = {"threshold_lr": self.threshold_lr, "hash_lr": self.hash_lr}
                    first.insert(
                        0, ("insertion_loss", PassthroughScoring("insertion_loss", on_train=True))
                    )
                net = self._fit_net(
                    module,
                    dataset,
                    inputs,
                    device,
                    callbacks=self._skorch_callbacks(*first),
                    net_class=net_class,
                    criterion=criterion,
                    optimizer=torch.optim.Adam,
                    lr=self.lr,
                    max_epochs=epochs,
                    **extra,
                )
                module = net.module_
                history += [{**dict(entry), "phase": phase} for entry in net.history]
        self._keep_trained(module, history)
        cgk = self.module_.cgk
        self.hash_table_ = None if cgk is None else cgk.table.numpy().copy()
        self.threshold_ = None if cgk is None else float(cgk.threshold)
        self.n_features_out_ = self.module_.steps_out * self.n_step_components

    # ----------------------------------------------------------- transform
    def transform(self, X):
        """Embed strings into the concatenated step vectors.

        Characters not seen at fit time map to the unknown symbol. Strings
        longer than ``max_length_`` follow ``on_long_string``. Warns when
        the output would exceed ``max_output_bytes``.

        Parameters
        ----------
        X : array-like of str of shape (n_samples,)
            Strings to embed.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_features_out)
            The embeddings, of dtype ``output_dtype``.
        """
        return self._embed(X)

    def _embed_strings(self, strings):
        size = len(strings) * self.n_features_out_ * np.dtype(self.output_dtype).itemsize
        if size > self.max_output_bytes:
            warnings.warn(
                f"GRUEmbedder.transform output for {len(strings)} strings takes {size / 2**30:.2f} "
                f"GiB ({self.n_features_out_} {self.output_dtype} values per string), above "
                f"max_output_bytes={self.max_output_bytes}; transform in chunks, or use "
                f"output_dtype='float16', a smaller max_length or n_step_components.",
                UserWarning,
                stacklevel=4,
            )
        return super()._embed_strings(strings)

    def _embed_batch(self, strings):
        return self._embed_torch(strings, dtype=np.dtype(self.output_dtype))

    @staticmethod
    def _network_width(module):
        return module.steps_out * module.linear.out_features

    def estimate_distance(self, X, Y=None):
        """Edit distances estimated from embeddings: ``distance_scale_ * d_H``.

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
        return 0.5 * self.distance_scale_ * squared_euclidean(fx, fy)
