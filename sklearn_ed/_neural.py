"""Pieces shared by the neural string embedders (training sample, cached exact
distances, skorch callbacks, inference device and batched torch inference)."""

import copy
import hashlib
import warnings

import numpy as np
from joblib import effective_n_jobs

from .distances import symmetric_pairwise_distances

# Strings per torch forward pass at inference.
TORCH_INFERENCE_BATCH = 512


def adapted_n_neighbors(n_neighbors, n_train, owner):
    """``n_neighbors`` capped at ``n_train - 1``, with a warning when capped."""
    if n_train < 3:
        raise ValueError(
            f"{owner} needs at least 3 training strings to draw triplets, got {n_train}."
        )
    k = min(n_neighbors, n_train - 1)
    if k < n_neighbors:
        warnings.warn(
            f"n_neighbors={n_neighbors} needs at least {n_neighbors + 1} training strings, "
            f"got {n_train}; using n_neighbors={k}.",
            UserWarning, stacklevel=4,
        )
    return k


def mean_off_diagonal(distances):
    """Mean distance between distinct training items (1.0 if all are equal)."""
    n = distances.shape[0]
    mean = distances.sum() / max(n * (n - 1), 1)
    return float(mean) if mean > 0 else 1.0


class NeuralEmbedderMixin:
    """Methods of the skorch-trained string embedders.

    Expects the parameters ``n_train``, ``n_jobs``, ``device``, ``verbose``
    and ``callbacks`` and the fitted ``alphabet_`` and ``max_length_``.
    """

    def _training_strings(self, strings, rng):
        """``n_train`` strings sampled without replacement (kept in order), or all."""
        if self.n_train is not None and len(strings) > self.n_train:
            chosen = np.sort(rng.choice(len(strings), self.n_train, replace=False))
            return strings[chosen]
        return strings

    def _train_distances(self, train):
        """Exact distance matrix of the training strings, cached across fits."""
        digest = hashlib.sha1()
        for string in train:
            digest.update(string.encode("utf-8", "surrogatepass"))
            digest.update(b"\x00\xff")
        key = digest.hexdigest()
        cached = getattr(self, "train_distances_", None)
        if cached is not None and getattr(self, "_train_key", None) == key:
            return cached
        self.train_distances_ = symmetric_pairwise_distances(train, n_jobs=self.n_jobs)
        self._train_key = key
        return self.train_distances_

    def _skorch_callbacks(self):
        """Triplet resampling, the progress bar at verbose >= 2, then the user's."""
        from skorch.callbacks import ProgressBar

        from .nn import ResampleTriplets

        callbacks = [("resample_triplets", ResampleTriplets())]
        if self.verbose >= 2:
            callbacks.append(("progress_bar", ProgressBar()))
        callbacks += [(f"user_{i}", cb) if not isinstance(cb, tuple) else cb
                      for i, cb in enumerate(copy.deepcopy(self.callbacks or []))]
        return callbacks

    def _pad(self, strings):
        from .nn import pad_symbols

        symbols, offsets = self.alphabet_.encode(strings)
        return pad_symbols(symbols, offsets, self.max_length_)

    def _inference_device(self):
        """The training device when it is available here, else the CPU."""
        import torch

        if self.device in ("cuda", "auto") and torch.cuda.is_available():
            return "cuda"
        return "cpu"

    def _embed_torch(self, strings, device, dtype=np.float32):
        """Run ``module_`` on padded strings in batches of ``TORCH_INFERENCE_BATCH``."""
        import torch

        from .nn import torch_threads

        padded = self._pad(strings)
        module = self.module_.to(device)
        out = None
        try:
            with torch_threads(effective_n_jobs(self.n_jobs)), torch.inference_mode():
                for start in range(0, len(padded), TORCH_INFERENCE_BATCH):
                    batch = torch.from_numpy(padded[start:start + TORCH_INFERENCE_BATCH])
                    block = module(batch.to(device)).cpu().numpy()
                    if out is None:
                        out = np.empty((len(padded), block.shape[1]), dtype=dtype)
                    out[start:start + len(block)] = block
        finally:
            self.module_.to("cpu")
        return out
