"""TripletMinedEmbedder: a network trained with mined triplets for any distance (Lary, 2022)."""

import copy
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..distances import Metric, declare_metric_input
from ..nn import TORCH_PARAMETER_CONSTRAINTS, TorchEmbedderMixin
from ..utils import require_neural, saved_class
from ._objects import NumericObjectsMixin

# Objects per forward pass in transform (bounded memory).
_TRANSFORM_BATCH = 1024
# Default optimiser and learning rate per network (Lary 2022, s5.3).
_DEFAULT_OPTIMIZER = {"mlp": ("Adagrad", 1e-3), "conv1d": ("Adam", 1e-2), "module": ("Adam", 1e-3)}


@saved_class(formerly=("sklearn_ed._triplet.TripletMinedEmbedder",))
class TripletMinedEmbedder(
    NumericObjectsMixin,
    TorchEmbedderMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    BaseEstimator,
):
    """Embed objects under any expensive distance with a network trained on mined triplets.

    Lary (2022), "Learning topology preserving embeddings for speeding up
    nearest neighbor retrieval": a network ``F`` (an MLP or a 1-D CNN, both
    with a sigmoid output) is trained through skorch with the triplet loss
    ``mean(max(0, ||F(x) - F(y)|| - ||F(x) - F(z)|| + margin))``. Each epoch,
    every training object is the anchor ``x`` of one triplet, mined from the
    exact distances ``D`` (computed once, joblib-parallel) and the current
    embedding:

    - positive ``y``: ``"random"`` among the anchor's ``n_neighbors`` nearest
      objects, or ``"gaussian"``: any object with weight
      ``exp(-D(x, y)^2 / (2 sigma^2))``, ``3 sigma`` = distance to the
      ``n_neighbors``-th nearest;
    - negative ``z``, among the objects farther than ``y`` in ``D``:
      ``"random"``; ``"gaussian"`` with weight
      ``exp(-||F(x) - F(z)||^2 / (2 sigma^2))``, ``3 sigma = ||F(x) - F(y)||``;
      or ``"closest"`` in the embedding.

    The thesis names the six combinations GR, GG, GC, RR, RG, RC (positive
    then negative); ``mining="random"`` is its baseline R of completely
    random triplets (two random objects, the closer is the positive).

    Input: a 2-D numeric array (rows are vectors, or univariate series under
    DTW), a 3-D array (multivariate series ``(n, channels, length)`` or
    images ``(n, height, width)``), or a list of series ``(length,)`` or
    ``(channels, length)`` of different lengths. The network sees every
    object as a float32 ``(channels, length)`` array, zero-padded at the end
    to the longest training length (as in the thesis); ``transform`` pads
    shorter and cuts longer objects to that length (with a warning). The
    exact ``metric`` is computed on the objects as given, and is assumed
    symmetric (each pair is computed once). Give the network the
    representation the metric works on: for the chamfer distance between
    images, their edge maps (:func:`sklearn_ed.distances.edge_images`), not
    the grey levels.

    Parameters
    ----------
    metric : str, Metric or callable, default="dtw"
        Exact distance used to mine triplets (see
        :func:`sklearn_ed.distances.available_metrics`); ``transform`` never
        computes it.
    network : {"mlp", "conv1d"} or torch.nn.Module, default="mlp"
        ``"mlp"``: 200-100-50-d ReLU layers and a sigmoid output on the
        flattened input; ``"conv1d"``: Conv1d(256) + batch norm + max pool,
        Conv1d(d) + batch norm + max pool, average pooling, sigmoid (Lary 2022,
        s5.2). A module (copied at fit) maps a float32 batch
        ``(N, channels, length)`` to ``(N, d)``; ``n_components`` is then
        its output size.
    n_components : int, default=16
        Embedding dimension d.
    positive : {"gaussian", "random"}, default="gaussian"
        Positive strategy (first letter of GR, RC, ...).
    negative : {"random", "gaussian", "closest"}, default="random"
        Negative strategy (second letter). The default GR was the best
        strategy on both chamfer data sets of the thesis.
    mining : {"neighbors", "random"}, default="neighbors"
        ``"neighbors"``: the strategies above; ``"random"``: baseline R
        (``positive`` and ``negative`` are ignored).
    n_neighbors : int, default=10
        The n of s4.2: size of the neighborhood positives focus on.
        Reduced to ``n_train_ - 1`` with a warning on a smaller set.
    margin : float, default=0.1
        Margin m of the triplet loss (embeddings lie in the unit cube).
    adaptive_margin : bool, default=False
        Scale each triplet's margin by how much farther the negative is than
        the positive in the exact distance: ``m * min((D(x, z) - D(x, y)) /
        r_x, 10)``, ``r_x`` = the anchor's distance to its ``n_neighbors``-th
        nearest object. A near-tie then asks for almost no gap and a far
        negative for a wide one, so the embedding also keeps the order of
        distances beyond the neighborhood (not in the thesis, which uses a
        constant margin; the margin of Zhang et al. (2020) is the distance gap itself).
    max_epochs : int, default=40
        Training epochs (one triplet per training object each, so an epoch
        is ``n_train_`` triplets). The thesis' 40 epochs were over 15,000
        MNIST images (600,000 triplets); on a training set of a few thousand
        objects or fewer, 40 epochs at the default Adagrad step can leave
        the network undertrained (no better than random triplets): raise
        ``max_epochs`` and/or ``lr`` and watch ``history_`` and a held-out
        retrieval score (on sklearn's digits, 200 epochs at ``lr=1e-2``).
    batch_size : int, default=64
        Triplets per batch.
    optimizer : torch optimizer class or None, default=None
        ``None``: Adagrad for ``"mlp"``, Adam for ``"conv1d"`` and modules.
    lr : float or None, default=None
        ``None``: 1e-3 for ``"mlp"`` and modules, 1e-2 for ``"conv1d"``.
    n_train : int or None, default=1000
        Training objects sampled (with ``random_state``) from a larger ``X``;
        their exact distance matrix costs ``n_train^2 / 2`` distances.
        ``None`` uses all of ``X``.
    device : {"cpu", "cuda", "auto"}, default="cpu"
        Training device; ``transform`` uses CUDA when it was asked for and is
        available, else the CPU (a GPU-trained model runs on CPU).
    callbacks : list of skorch callbacks or None, default=None
        Passed to the skorch net (copied at fit). There is no validation
        split: monitor ``"train_loss"``.
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
    random_state : int, RandomState instance or None, default=None
        Seeds the training sample, the initial weights and the triplets; with
        an int, fitting twice on CPU gives identical embeddings.

    Attributes
    ----------
    module_ : torch.nn.Module
        The trained network, on the CPU, in eval mode.
    history_ : list of dict
        skorch's training history (one dict per epoch).
    train_distances_ : ndarray of shape (n_train, n_train)
        Exact distances between the training objects.
    train_indices_ : ndarray of shape (n_train,)
        Rows of ``X`` used for training.
    n_train_ : int
        Number of training objects.
    n_neighbors_ : int
        n actually used.
    input_shape_ : tuple of int
        ``(channels, length)`` the network sees.
    n_features_out_ : int
        Embedding dimension.
    n_features_in_ : int
        Number of features (2-D numeric input under a vector metric only).

    See Also
    --------
    FastMapEmbedder : Pivot-based embedding under any metric (the baseline).
    FilterRefineNeighbors : Nearest neighbors filtered by an embedding.

    References
    ----------
    M. Lary. "Learning Topology Preserving Embeddings for Speeding up Nearest
    Neighbor Retrieval", M.S. thesis, University of Texas at Arlington, 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed import TripletMinedEmbedder
    >>> rng = np.random.RandomState(0)
    >>> series = np.cumsum(rng.normal(size=(40, 30)), axis=1)  # random walks
    >>> embedder = TripletMinedEmbedder(metric="dtw", n_components=4, max_epochs=3,
    ...                                 random_state=0).fit(series)
    >>> embedder.transform(series[:5]).shape
    (5, 4)

    Margins scaled by the exact distance gap, with random positives and
    Gaussian negatives (RG):

    >>> rg = TripletMinedEmbedder(metric="dtw", n_components=4, positive="random",
    ...                           negative="gaussian", adaptive_margin=True, max_epochs=3,
    ...                           random_state=0).fit(series)
    >>> rg.transform(series[:5]).shape
    (5, 4)
    """

    # What save() writes besides the parameters (sklearn_ed.load refuses others).
    __sklearn_ed_saved__ = (
        "module_",
        "history_",
        "input_shape_",
        "n_features_in_",
        "feature_names_in_",
        "n_features_out_",
        "n_neighbors_",
        "n_train_",
        "train_distances_",
        "train_indices_",
    )

    embedding_metric = "euclidean"

    _parameter_constraints: dict = {
        **TORCH_PARAMETER_CONSTRAINTS,
        "metric": [str, callable, Metric],
        "network": [StrOptions({"mlp", "conv1d"}), HasMethods(["forward", "parameters"])],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "positive": [StrOptions({"random", "gaussian"})],
        "negative": [StrOptions({"random", "gaussian", "closest"})],
        "mining": [StrOptions({"neighbors", "random"})],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "margin": [Interval(Real, 0, None, closed="left")],
        "adaptive_margin": ["boolean"],
        "max_epochs": [Interval(Integral, 0, None, closed="left")],
        "optimizer": [type, None],
        "lr": [Interval(Real, 0, None, closed="neither"), None],
        "n_train": [Interval(Integral, 3, None, closed="left"), None],
    }

    def __init__(
        self,
        metric="dtw",
        *,
        network="mlp",
        n_components=16,
        positive="gaussian",
        negative="random",
        mining="neighbors",
        n_neighbors=10,
        margin=0.1,
        adaptive_margin=False,
        max_epochs=40,
        batch_size=64,
        optimizer=None,
        lr=None,
        n_train=1000,
        device="cpu",
        callbacks=None,
        verbose=0,
        n_jobs=None,
        random_state=None,
    ):
        self.metric = metric
        self.network = network
        self.n_components = n_components
        self.positive = positive
        self.negative = negative
        self.mining = mining
        self.n_neighbors = n_neighbors
        self.margin = margin
        self.adaptive_margin = adaptive_margin
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.optimizer = optimizer
        self.lr = lr
        self.n_train = n_train
        self.device = device
        self.callbacks = callbacks
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.random_state = random_state

    # --------------------------------------------------------------- fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, train_distances=None):
        """Compute the exact training distances once, then train the network.

        Parameters
        ----------
        X : array-like or list of arrays
            Training objects (at least 3).
        y : None
            Ignored.
        train_distances : ndarray of shape (n_samples, n_samples), default=None
            Precomputed exact distances between the objects of ``X`` (skips
            the metric, e.g. to train several embedders on one matrix).

        Returns
        -------
        self : TripletMinedEmbedder
            Fitted embedder.
        """
        require_neural("TripletMinedEmbedder.fit")
        objects, arrays = self._validate(X, reset=True)
        n_samples = len(arrays)
        if n_samples < 3:
            raise ValueError(
                f"TripletMinedEmbedder needs at least 3 samples to form "
                f"triplets; got {n_samples} sample(s)."
            )
        rng = check_random_state(self.random_state)
        if self.n_train is not None and n_samples > self.n_train:
            chosen = np.sort(rng.choice(n_samples, self.n_train, replace=False))
        else:
            chosen = np.arange(n_samples)
        distances = self._training_distances(objects, chosen, train_distances)
        self.train_indices_, self.train_distances_ = chosen, distances
        self.n_train_ = n = len(chosen)
        self.n_neighbors_ = min(self.n_neighbors, n - 1)
        if self.n_neighbors_ < self.n_neighbors and (
            self.mining == "neighbors" or self.adaptive_margin
        ):
            warnings.warn(
                f"n_neighbors={self.n_neighbors} needs at least "
                f"{self.n_neighbors + 1} training objects, got {n}; using "
                f"n_neighbors={self.n_neighbors_}.",
                UserWarning,
                stacklevel=3,
            )
        self._train(arrays[chosen], distances, int(rng.randint(np.iinfo(np.int32).max)))
        return self

    def _build_network(self):
        from ..nn import Conv1dEmbeddingNet, MLPEmbeddingNet

        channels, length = self.input_shape_
        if self.network == "mlp":
            return MLPEmbeddingNet(channels * length, self.n_components)
        if self.network == "conv1d":
            return Conv1dEmbeddingNet(channels, self.n_components)
        return copy.deepcopy(self.network)

    def _optimizer(self):
        import torch

        kind = self.network if isinstance(self.network, str) else "module"
        name, lr = _DEFAULT_OPTIMIZER[kind]
        optimizer = getattr(torch.optim, name) if self.optimizer is None else self.optimizer
        return optimizer, lr if self.lr is None else self.lr

    def _train(self, arrays, distances, seed):
        import torch

        from ..nn import MinedTripletDataset, MineTriplets, TripletMarginLoss

        optimizer, lr = self._optimizer()
        dataset = MinedTripletDataset(
            distances,
            mining=self.mining,
            positive=self.positive,
            negative=self.negative,
            n_neighbors=self.n_neighbors_,
            rng=np.random.RandomState(seed),
            margin=self.margin,
            adaptive_margin=self.adaptive_margin,
        )
        with self._training(seed) as device:
            net = self._fit_net(
                self._build_network(),
                dataset,
                torch.from_numpy(arrays),
                device,
                callbacks=self._skorch_callbacks(("mine_triplets", MineTriplets())),
                criterion=TripletMarginLoss,
                optimizer=optimizer,
                lr=lr,
                max_epochs=self.max_epochs,
            )
        self._keep_trained(net.module_, net.history)
        with torch.inference_mode():
            probe = self.module_(torch.from_numpy(arrays[:2]))
        self.n_features_out_ = int(probe.shape[1])

    # --------------------------------------------------------- transform
    def transform(self, X):
        """Embed objects with the trained network (no exact distance computed).

        Parameters
        ----------
        X : array-like or list of arrays
            Objects of the kind seen at fit.

        Returns
        -------
        X_new : ndarray of float32, shape (n_samples, n_components)
        """
        check_is_fitted(self)
        _, arrays = self._validate(X, reset=False)
        return self._embed(arrays)

    def _embed(self, arrays):
        return self._run_module(arrays, _TRANSFORM_BATCH)

    @property
    def _n_features_out(self):
        return self.n_features_out_

    def __sklearn_tags__(self):
        tags = declare_metric_input(super().__sklearn_tags__(), self.metric)
        tags.transformer_tags.preserves_dtype = ["float32"]  # always float32 out
        tags.non_deterministic = self.device != "cpu"
        tags.input_tags.three_d_array = not tags.input_tags.two_d_array
        return tags
