"""Torch building blocks of the neural embedders, and their skorch glue.

- :mod:`._modules`: :class:`CNNEDModule` (Dai et al., 2020) and the reduction of an
  affine network over one-hot input to a lookup table.
- :mod:`._losses`: :class:`TripletApproximationLoss` (triplet loss with a
  per-triplet margin plus ``alpha`` times the approximation error), and the
  GRU's :class:`PairAbsoluteLoss` and :class:`HalfSquaredTripletLoss`.
- :mod:`._triplets`: top-k neighbor lists from an exact distance matrix and
  :class:`TopKTripletDataset`, which draws fresh triplets every epoch.
- :mod:`._training`: :class:`TripletNet` (a ``skorch.NeuralNet`` whose batches
  are index triplets into a tensor of inputs), device and thread helpers.
- :mod:`._gru`: :class:`GRUModule` (Zhang, Yuan and Indyk, 2020), its learned CGK' walk
  :class:`LearnedCGKPrime` and the Phase 3 net :class:`HashLearningNet`.
- :mod:`._kernels`: numba kernels of the lookup-table inference and the
  learned CGK' walk.
- :mod:`._metric_networks` and :mod:`._mining`: the networks, loss and triplet
  mining of the triplet-mined embedder (Lary, 2022).
- :mod:`._embedder`: the torch-free half of the torch embedder base (training
  loop settings, batched inference) and the exact distances of the training
  pairs (:class:`TrainingDistances`), imported eagerly. The string side of
  CNN-ED and GRU (training sample, padding) is ``sklearn_ed.embedding._neural``.

Nothing here knows about strings: the embedders reuse the sampler, the
losses and the skorch glue with their own module and tensor of encoded inputs.
"""

import importlib
import warnings

from ..utils import defer_saved_classes, require_neural
from ._embedder import (
    TORCH_INFERENCE_BATCH,
    TORCH_PARAMETER_CONSTRAINTS,
    TRAINING_THREADS,
    TorchEmbedderMixin,
    adapted_n_neighbors,
    distance_jobs,
    mean_off_diagonal,
    squared_euclidean,
)
from ._training_distances import TrainingDistances

# Torch is imported on first use of a torch name, so ``import sklearn_ed`` stays
# fast for users of the numeric and CGK/q-gram paths.
_LAZY = {
    "GRUModule": "_gru",
    "HashLearningNet": "_gru",
    "LearnedCGKPrime": "_gru",
    "HalfSquaredTripletLoss": "_losses",
    "PairAbsoluteLoss": "_losses",
    "TripletApproximationLoss": "_losses",
    "CNNEDModule": "_modules",
    "affine_lookup_table": "_modules",
    "pad_symbols": "_modules",
    "ResampleTriplets": "_training",
    "TripletNet": "_training",
    "resolve_device": "_training",
    "seeded_torch": "_training",
    "torch_threads": "_training",
    "inference_device": "_training",
    "forward_in_batches": "_training",
    "TopKTripletDataset": "_triplets",
    "top_k_neighbors": "_triplets",
    "lookup_sum": "_kernels",
    "embedding_bag_lookup": "_embedding_bag",
    "Conv1dEmbeddingNet": "_metric_networks",
    "MLPEmbeddingNet": "_metric_networks",
    "TripletMarginLoss": "_metric_networks",
    "MineTriplets": "_mining",
    "MinedTripletDataset": "_mining",
}


def _import_networks():
    """Import the networks sklearn_ed.load builds: each registers itself
    (``saved_class``) as its module is imported, which imports torch."""
    from . import _gru, _metric_networks, _modules  # noqa: F401


# The loader imports them only for a file that holds a network.
defer_saved_classes("torch_module", _import_networks)

# Names of 0.1.0, spelt as scikit-learn spells them since.
_RENAMED = {"top_k_neighbours": "top_k_neighbors"}


def __getattr__(name):
    if name in _RENAMED:
        warnings.warn(
            f"sklearn_ed.nn.{name} was renamed {_RENAMED[name]} in 0.2.0; the old "
            "name will be removed in 0.3.0.",
            FutureWarning,
            stacklevel=2,
        )
        return __getattr__(_RENAMED[name])
    if name in _LAZY:
        if _LAZY[name] != "_kernels":
            require_neural(f"sklearn_ed.nn.{name}")
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "CNNEDModule",
    "GRUModule",
    "HalfSquaredTripletLoss",
    "HashLearningNet",
    "LearnedCGKPrime",
    "PairAbsoluteLoss",
    "ResampleTriplets",
    "TopKTripletDataset",
    "TrainingDistances",
    "TripletApproximationLoss",
    "TripletNet",
    "affine_lookup_table",
    "pad_symbols",
    "resolve_device",
    "seeded_torch",
    "top_k_neighbors",
    "torch_threads",
]
