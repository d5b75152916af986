"""Torch building blocks of the neural embedders, and their skorch glue.

- :mod:`._modules`: :class:`CNNEDModule` (Dai et al., 2020) and the reduction of an
  affine network over one-hot input to a lookup table.
- :mod:`._losses`: :class:`TripletApproximationLoss` (triplet loss with a
  per-triplet margin plus ``alpha`` times the approximation error), and the
  GRU's :class:`PairAbsoluteLoss` and :class:`HalfSquaredTripletLoss`.
- :mod:`._triplets`: top-k neighbour lists from an exact distance matrix and
  :class:`TopKTripletDataset`, which draws fresh triplets every epoch.
- :mod:`._training`: :class:`TripletNet` (a ``skorch.NeuralNet`` whose batches
  are index triplets into a tensor of inputs), device and thread helpers.
- :mod:`._gru`: :class:`GRUModule` (Zhang, Yuan and Indyk, 2020), its learned CGK' walk
  :class:`LearnedCGKPrime` and the Phase 3 net :class:`HashLearningNet`.
- :mod:`._kernels`: numba kernels of the lookup-table inference and the
  learned CGK' walk.

Nothing here knows about strings: the embedders reuse the sampler, the
losses and the skorch glue with their own module and tensor of encoded inputs.
"""

from ._gru import GRUModule, HashLearningNet, LearnedCGKPrime
from ._losses import HalfSquaredTripletLoss, PairAbsoluteLoss, TripletApproximationLoss
from ._modules import CNNEDModule, affine_lookup_table, pad_symbols
from ._training import ResampleTriplets, TripletNet, resolve_device, torch_threads, seeded_torch
from ._triplets import TopKTripletDataset, top_k_neighbours

__all__ = [
    "CNNEDModule",
    "GRUModule",
    "HalfSquaredTripletLoss",
    "HashLearningNet",
    "LearnedCGKPrime",
    "PairAbsoluteLoss",
    "ResampleTriplets",
    "TopKTripletDataset",
    "TripletApproximationLoss",
    "TripletNet",
    "affine_lookup_table",
    "pad_symbols",
    "resolve_device",
    "seeded_torch",
    "top_k_neighbours",
    "torch_threads",
]
