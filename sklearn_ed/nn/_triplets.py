"""Triplets (anchor, positive, negative) drawn from exact top-k neighbors."""

import numpy as np
import torch
from sklearn.utils import check_random_state
from torch.utils.data import Dataset


def top_k_neighbors(distances, k):
    """Indices of the ``k`` nearest other items of each row (self excluded).

    Ties are broken by index (stable sort), so the result is deterministic.

    Parameters
    ----------
    distances : ndarray of shape (n, n)
        Exact distances between the training items.
    k : int
        Number of neighbors, at most ``n - 1``.

    Returns
    -------
    neighbors : ndarray of int64, shape (n, k)
    """
    distances = np.asarray(distances)
    n = distances.shape[0]
    if not 1 <= k <= n - 1:
        raise ValueError(f"k must be in [1, n - 1] = [1, {n - 1}], got {k}.")
    keyed = distances.astype(np.float64, copy=True)
    np.fill_diagonal(keyed, np.inf)
    order = np.argsort(keyed, axis=1, kind="stable")
    return order[:, :k].astype(np.int64)


class TopKTripletDataset(Dataset):
    """Random triplets of a training set, redrawn by :meth:`resample`.

    Dai et al. (2020), s3.1: an anchor is drawn uniformly from the training set, two
    distinct items from its top-k exact neighbors; the closer one (ties:
    the one earlier in the neighbor list) is the positive. An epoch is
    ``n_triplets`` triplets (the training-set size in the paper).

    Items are ``(indices, distances)``: ``indices`` (3,) int64 (anchor,
    positive, negative) index the training items; ``distances`` (3,)
    float32 are d(a, p), d(a, n), d(p, n) divided by ``scale``.

    Parameters
    ----------
    distances : ndarray of shape (n, n) or TrainingDistances
        Exact distances between the training items: a matrix, or an object
        indexed like one by ``(rows, cols)`` arrays that may compute pairs
        on demand (:class:`~sklearn_ed.nn.TrainingDistances`).
    neighbors : ndarray of int, shape (n, k)
        Top-k neighbor lists (:func:`top_k_neighbors`), ``k >= 2``.
    n_triplets : int
        Triplets per epoch.
    scale : float, default=1.0
        Distances are divided by it (e.g. the mean training distance).
    random_state : int, RandomState instance or None
        Seeds the draws; successive :meth:`resample` calls continue it.
    n_epochs : int, default=1
        Epochs whose anchors and neighbor slots are drawn at construction
        (the same draws, in the same order, as epoch by epoch), so that
        ``distances`` with a ``prefetch(rows, cols)`` method computes every
        pair they need in one call, before training.
    """

    def __init__(self, distances, neighbors, n_triplets, scale=1.0, random_state=None, n_epochs=1):
        self.distances = distances if hasattr(distances, "prefetch") else np.asarray(distances)
        self.neighbors = np.asarray(neighbors)
        if self.neighbors.shape[1] < 2:
            raise ValueError("Triplets need at least 2 neighbors per anchor.")
        self.n_triplets = int(n_triplets)
        self.scale = float(scale)
        self._rng = check_random_state(random_state)
        self._drawn = [self._draw_slots() for _ in range(max(int(n_epochs), 1))]
        if hasattr(self.distances, "prefetch"):
            anchors, first, second = (np.concatenate(part) for part in zip(*self._drawn))
            near, far = self.neighbors[anchors, first], self.neighbors[anchors, second]
            self.distances.prefetch(
                np.concatenate([anchors, anchors, near]), np.concatenate([near, far, far])
            )
        self.resample()

    def _draw_slots(self):
        """One epoch's anchors and, for each, two distinct slots of its neighbor list."""
        n, k = self.neighbors.shape
        anchors = self._rng.randint(0, n, size=self.n_triplets)
        first = self._rng.randint(0, k, size=self.n_triplets)
        second = (first + self._rng.randint(1, k, size=self.n_triplets)) % k
        return anchors, first, second

    def resample(self):
        """Draw the triplets of the next epoch."""
        anchors, first, second = self._drawn.pop(0) if self._drawn else self._draw_slots()
        a_first = self.neighbors[anchors, first]
        a_second = self.neighbors[anchors, second]
        d_first = self.distances[anchors, a_first]
        d_second = self.distances[anchors, a_second]
        swap = (d_second < d_first) | ((d_second == d_first) & (second < first))
        positive = np.where(swap, a_second, a_first)
        negative = np.where(swap, a_first, a_second)
        indices = np.stack([anchors, positive, negative], axis=1).astype(np.int64)
        triplet_distances = np.stack(
            [
                self.distances[anchors, positive],
                self.distances[anchors, negative],
                self.distances[positive, negative],
            ],
            axis=1,
        ).astype(np.float32) / np.float32(self.scale)
        self.indices = torch.from_numpy(indices)
        self.triplet_distances = torch.from_numpy(triplet_distances)

    def __len__(self):
        return self.n_triplets

    def __getitem__(self, item):
        return self.indices[item], self.triplet_distances[item]
