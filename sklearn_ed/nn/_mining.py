"""Triplet mining of Lary (2022) (s4.2): positives and negatives drawn per anchor.

Every training object is the anchor of one triplet per epoch. Given the
exact distances ``D`` between training objects (computed once) and, for the
negatives, the current embedding ``F``:

Positives (independent of the embedding, so their weights are fixed):

- ``"random"``: uniform among the anchor's ``n_neighbors`` nearest objects.
- ``"gaussian"``: any object ``j != i`` with probability proportional to
  ``exp(-D(i, j)^2 / (2 sigma_i^2))``, where ``3 sigma_i`` is the distance
  to the anchor's ``n_neighbors``-th nearest object.

Negatives: only objects ``z`` with ``D(x, z) > D(x, y)`` (farther than the
positive in the original space) qualify.

- ``"random"``: uniform among them.
- ``"gaussian"``: probability proportional to
  ``exp(-||F(x) - F(z)||^2 / (2 sigma^2))`` with ``3 sigma = ||F(x) - F(y)||``,
  so objects wrongly embedded closer than the positive dominate.
- ``"closest"``: the one closest to the anchor in the embedding.

A positive needs at least one object strictly farther than itself; objects
at the anchor's largest distance are never positives, and an anchor with no
valid positive at all (every object at the same distance) draws no triplet.

The baseline ``R`` ("completely random triplets", s5.3) draws two distinct
random objects per anchor and makes the closer one (in ``D``) the positive.

Each triplet carries its margin: the constant of the thesis, or (our
addition, :func:`triplet_margins`) one scaled by the exact distance gap.

All draws are vectorised over blocks of anchors (no Python loop per
candidate); ties are broken by index, so a seeded ``RandomState`` gives the
same triplets every time.
"""

import numpy as np
import torch
from skorch.callbacks import Callback
from torch.utils.data import Dataset

from ._training import forward_in_batches
from ._triplets import top_k_neighbors

POSITIVE_STRATEGIES = ("random", "gaussian")
NEGATIVE_STRATEGIES = ("random", "gaussian", "closest")
# Anchors per vectorised block: bounds the (block, n) temporaries.
_BLOCK = 1024
# Cap of the adaptive margin, in multiples of ``margin``: far negatives of a
# dense anchor would otherwise ask for gaps wider than the unit cube allows.
MAX_MARGIN_RATIO = 10.0


def _pick(weights, rng):
    """One column per row with probability proportional to ``weights`` (row sums > 0)."""
    cumulative = np.cumsum(weights, axis=1)
    targets = rng.random_sample(len(weights)) * cumulative[:, -1]
    return np.argmax(cumulative > targets[:, None], axis=1)


def _log_gaussian(distances, sigma):
    """``-distances^2 / (2 sigma^2)`` per row; with sigma = 0 only distance 0 counts."""
    sigma = np.asarray(sigma, dtype=np.float64)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = distances**2 / (2 * sigma**2)
    scaled = np.where(sigma > 0, scaled, np.where(distances == 0, 0.0, np.inf))
    return -scaled


def _pick_log_weights(log_weights, rng):
    """Sample from unnormalised log weights (``-inf`` = excluded), underflow-safe."""
    top = log_weights.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        weights = np.exp(log_weights - top)
    weights[~np.isfinite(weights)] = 0.0
    return _pick(weights, rng)


def draw_positives(distances, n_neighbors, strategy, rng, neighbors=None):
    """One positive per anchor; ``-1`` where the anchor has no valid positive.

    Parameters
    ----------
    distances : ndarray of shape (n, n)
        Exact distances between the training objects.
    n_neighbors : int
        The n of s4.2 (``1 <= n_neighbors <= n - 1``).
    strategy : {"random", "gaussian"}
    rng : numpy.random.RandomState
    neighbors : ndarray of int, shape (n, n_neighbors), default=None
        :func:`top_k_neighbors` of ``distances``, if already computed.

    Returns
    -------
    positives : ndarray of int64, shape (n,)
    """
    distances = np.asarray(distances, dtype=np.float64)
    n = len(distances)
    positives = np.full(n, -1, dtype=np.int64)
    if neighbors is None:
        neighbors = top_k_neighbors(distances, min(n_neighbors, n - 1))
    for start in range(0, n, _BLOCK):
        rows = np.arange(start, min(start + _BLOCK, n))
        block = distances[rows]
        farthest = np.where(np.arange(n)[None, :] == rows[:, None], -np.inf, block).max(axis=1)
        if strategy == "random":
            own = neighbors[rows]
            valid = np.take_along_axis(block, own, axis=1) < farthest[:, None]
            has = valid.any(axis=1)
            chosen = _pick(valid[has].astype(np.float64), rng)
            positives[rows[has]] = own[has, chosen]
            continue
        sigma = block[np.arange(len(rows)), neighbors[rows, -1]] / 3.0
        log_weights = _log_gaussian(block, sigma)
        log_weights[np.arange(len(rows)), rows] = -np.inf
        log_weights[block >= farthest[:, None]] = -np.inf
        has = np.isfinite(log_weights).any(axis=1)
        positives[rows[has]] = _pick_log_weights(log_weights[has], rng)
    return positives


def _embedded_distances(embedding, rows):
    """Euclidean distances (len(rows), n) between embedded anchors and all objects."""
    anchors = embedding[rows]
    squared = (
        (anchors * anchors).sum(1)[:, None]
        + (embedding * embedding).sum(1)[None, :]
        - 2.0 * anchors @ embedding.T
    )
    return np.sqrt(np.maximum(squared, 0.0))


def draw_negatives(distances, positives, strategy, rng, embedding=None):
    """One negative per anchor among the objects farther than its positive.

    Parameters
    ----------
    distances : ndarray of shape (n, n)
        Exact distances between the training objects.
    positives : ndarray of int, shape (n,)
        From :func:`draw_positives` (each has a farther object); ``-1``
        anchors get ``-1``.
    strategy : {"random", "gaussian", "closest"}
    rng : numpy.random.RandomState
    embedding : ndarray of shape (n, d), default=None
        Current embedding of the training objects (needed by "gaussian"
        and "closest").

    Returns
    -------
    negatives : ndarray of int64, shape (n,)
    """
    distances = np.asarray(distances, dtype=np.float64)
    if strategy != "random":
        if embedding is None:
            raise ValueError(f"negative={strategy!r} needs the current embedding.")
        embedding = np.asarray(embedding, dtype=np.float64)
    n = len(distances)
    negatives = np.full(n, -1, dtype=np.int64)
    anchors = np.flatnonzero(positives >= 0)
    for start in range(0, len(anchors), _BLOCK):
        rows = anchors[start : start + _BLOCK]
        local = np.arange(len(rows))
        block = distances[rows]
        farther = block > block[local, positives[rows]][:, None]
        if strategy == "random":
            negatives[rows] = _pick(farther.astype(np.float64), rng)
            continue
        embedded = _embedded_distances(embedding, rows)
        if strategy == "closest":
            negatives[rows] = np.argmin(np.where(farther, embedded, np.inf), axis=1)
            continue
        sigma = embedded[local, positives[rows]] / 3.0
        log_weights = np.where(farther, _log_gaussian(embedded, sigma), -np.inf)
        # sigma = 0 and no candidate at embedded distance 0: the limit is the closest.
        degenerate = np.flatnonzero(~np.isfinite(log_weights).any(axis=1))
        closest = np.argmin(np.where(farther[degenerate], embedded[degenerate], np.inf), axis=1)
        log_weights[degenerate, closest] = 0.0
        negatives[rows] = _pick_log_weights(log_weights, rng)
    return negatives


def random_triplets(distances, rng):
    """Baseline R: per anchor two distinct random others, the closer is the positive.

    Returns
    -------
    positives, negatives : ndarray of int64, shape (n,)
    """
    distances = np.asarray(distances)
    n = len(distances)
    anchors = np.arange(n)
    first = rng.randint(0, n - 1, size=n)
    first += first >= anchors
    second = rng.randint(0, n - 2, size=n)
    low, high = np.minimum(anchors, first), np.maximum(anchors, first)
    second += second >= low
    second += second >= high
    swap = distances[anchors, second] < distances[anchors, first]
    return np.where(swap, second, first), np.where(swap, first, second)


def mine_triplets(
    distances,
    *,
    mining="neighbors",
    positive="gaussian",
    negative="random",
    n_neighbors=10,
    embedding=None,
    rng,
    neighbors=None,
):
    """The (n_triplets, 3) index triplets (anchor, positive, negative) of one epoch.

    Anchors without a valid triplet are left out; the rows are in a random
    order (``rng``).
    """
    if mining == "random":
        positives, negatives = random_triplets(distances, rng)
    else:
        positives = draw_positives(distances, n_neighbors, positive, rng, neighbors)
        negatives = draw_negatives(distances, positives, negative, rng, embedding)
    anchors = np.flatnonzero(positives >= 0)
    triplets = np.stack([anchors, positives[anchors], negatives[anchors]], axis=1)
    return triplets[rng.permutation(len(triplets))].astype(np.int64)


def triplet_margins(distances, triplets, margin, anchor_scales=None):
    """Margin of each triplet: ``margin``, or scaled by the exact distance gap.

    With ``anchor_scales`` (the adaptive margin), a triplet ``(x, y, z)``
    gets ``margin * min((D(x, z) - D(x, y)) / s_x, MAX_MARGIN_RATIO)``, where
    ``s_x`` is the anchor's scale (its distance to the ``n_neighbors``-th nearest
    object): a negative barely farther than the positive asks for almost no
    gap in the embedding, a far one for a wide gap, so the embedding keeps
    the order of distances beyond the neighborhood as well as inside it.
    """
    if anchor_scales is None:
        return np.full(len(triplets), margin, dtype=np.float32)
    anchors, positives, negatives = triplets.T
    gap = distances[anchors, negatives] - distances[anchors, positives]
    ratio = np.minimum(gap / anchor_scales[anchors], MAX_MARGIN_RATIO)
    return (margin * ratio).astype(np.float32)


def anchor_scales(distances, neighbors):
    """Each object's distance to its farthest listed neighbor, zeros replaced.

    A zero scale (n duplicates of the anchor) takes the mean of the positive
    scales, or 1 if all are zero.
    """
    scales = distances[np.arange(len(distances)), neighbors[:, -1]].astype(np.float64)
    positive = scales > 0
    scales[~positive] = scales[positive].mean() if positive.any() else 1.0
    return scales


class MinedTripletDataset(Dataset):
    """Index triplets of one epoch, re-mined by :class:`MineTriplets`.

    Items are ``(indices (3,) int64, margin float32)``: the network embeds
    ``inputs[indices]`` (see :class:`sklearn_ed.nn._training.TripletNet`);
    the loss uses each triplet's margin (:func:`triplet_margins`).
    """

    def __init__(
        self,
        distances,
        *,
        mining,
        positive,
        negative,
        n_neighbors,
        rng,
        margin=0.1,
        adaptive_margin=False,
    ):
        self.distances = np.asarray(distances, dtype=np.float64)
        self.mining, self.positive, self.negative = mining, positive, negative
        self.n_neighbors = n_neighbors
        self.rng = rng
        self.margin = margin
        self.neighbors = (
            top_k_neighbors(self.distances, min(n_neighbors, len(distances) - 1))
            if mining == "neighbors" or adaptive_margin
            else None
        )
        self.scales = anchor_scales(self.distances, self.neighbors) if adaptive_margin else None
        self.triplets = torch.zeros((0, 3), dtype=torch.int64)
        self.margins = torch.zeros(0, dtype=torch.float32)

    @property
    def needs_embedding(self):
        return self.mining == "neighbors" and self.negative != "random"

    def mine(self, embedding=None):
        triplets = mine_triplets(
            self.distances,
            mining=self.mining,
            positive=self.positive,
            negative=self.negative,
            n_neighbors=self.n_neighbors,
            embedding=embedding,
            rng=self.rng,
            neighbors=self.neighbors,
        )
        self.triplets = torch.from_numpy(triplets)
        self.margins = torch.from_numpy(
            triplet_margins(self.distances, triplets, self.margin, self.scales)
        )

    def __len__(self):
        return len(self.triplets)

    def __getitem__(self, item):
        return self.triplets[item], self.margins[item]


class MineTriplets(Callback):
    """Mine the triplets of each epoch (the first included) with the current network."""

    def __init__(self, batch_size=1024):
        self.batch_size = batch_size

    def on_epoch_begin(self, net, dataset_train=None, **kwargs):
        embedding = embed_inputs(net, self.batch_size) if dataset_train.needs_embedding else None
        dataset_train.mine(embedding)


def embed_inputs(net, batch_size=1024):
    """Embedding (n, d) float64 of all of ``net.inputs`` by the module in eval mode."""
    module = net.module_
    was_training = module.training
    module.eval()
    try:
        return forward_in_batches(
            module, net.inputs, device=net.device, batch_size=batch_size, dtype=np.float64
        )
    finally:
        module.train(was_training)
