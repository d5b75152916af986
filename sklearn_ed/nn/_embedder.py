"""The torch embedder base: the skorch training loop, device and batched
inference (:class:`TorchEmbedderMixin`). Nothing here knows about strings:
their training sample and padding are in ``sklearn_ed.embedding._neural``.

Torch is imported inside the methods, so importing this module stays cheap."""

import contextlib
import copy
import warnings
from numbers import Integral

import numpy as np
from joblib import effective_n_jobs
from sklearn.utils._param_validation import Interval, StrOptions

# Strings per torch forward pass at inference.
TORCH_INFERENCE_BATCH = 512
# Constraints of the parameters every torch embedder has.
TORCH_PARAMETER_CONSTRAINTS = {
    "batch_size": [Interval(Integral, 1, None, closed="left")],
    "device": [StrOptions({"cpu", "cuda", "auto"})],
    "callbacks": [list, None],
    "verbose": ["verbose"],
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
}


# Torch threads while training. Two threads trained CNN-ED's small network
# 1.4x faster than one on an idle 2-core machine, but 2.8x slower when another
# process used the cores (OpenMP threads wait on each other): one thread is
# never the slow case. n_jobs parallelises the exact distances instead.
TRAINING_THREADS = 1


def distance_jobs(n_jobs):
    """Jobs of the exact distances that build a training set: all cores for ``None``.

    They are most of a fit on a CPU (27 s of 47 s for CNN-ED on 5,000 reads
    on one core), and scikit-learn's own compiled loops use every core too.
    """
    return -1 if n_jobs is None else n_jobs


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
            UserWarning,
            stacklevel=4,
        )
    return k


def squared_euclidean(fx, fy):
    """Squared Euclidean distances between the rows of ``fx`` and ``fy``, >= 0."""
    squared = (fx * fx).sum(1)[:, None] + (fy * fy).sum(1)[None, :] - 2 * fx @ fy.T
    return np.maximum(squared, 0.0)


def mean_off_diagonal(distances):
    """Mean distance between distinct training items (1.0 if all are equal)."""
    n = distances.shape[0]
    mean = distances.sum() / max(n * (n - 1), 1)
    return float(mean) if mean > 0 else 1.0


class TorchEmbedderMixin:
    """What every torch embedder shares: the skorch training loop, the device and
    batched, thread-safe inference.

    Expects the parameters ``batch_size``, ``device``, ``callbacks``,
    ``verbose`` and ``n_jobs``. Subclasses build their module, dataset and
    criterion; :meth:`_fit_net` trains it and :meth:`_keep_trained` stores
    ``module_`` (on the CPU, in eval mode) and ``history_``. The fitted
    module is saved by :func:`sklearn_ed.save` as a ``state_dict``.
    """

    @contextlib.contextmanager
    def _training(self, seed):
        """Training device inside a block with seeded torch and ``TRAINING_THREADS``."""
        from ._training import resolve_device, seeded_torch, torch_threads

        device = resolve_device(self.device)
        with torch_threads(TRAINING_THREADS), seeded_torch(seed, device):
            yield device

    def _skorch_callbacks(self, *first):
        """``first`` (name, callback) pairs, the progress bar at verbose >= 2, the user's."""
        from skorch.callbacks import ProgressBar

        callbacks = list(first)
        if self.verbose >= 2:
            callbacks.append(("progress_bar", ProgressBar()))
        callbacks += [
            (f"user_{i}", cb) if not isinstance(cb, tuple) else cb
            for i, cb in enumerate(copy.deepcopy(self.callbacks or []))
        ]
        return callbacks

    def _fit_net(self, module, dataset, inputs, device, *, callbacks, net_class=None, **net_params):
        """Train ``module`` on index triplets of ``dataset`` into ``inputs``; the fitted net."""
        from ._training import TripletNet

        net = (net_class or TripletNet)(
            module,
            batch_size=self.batch_size,
            train_split=None,
            iterator_train__shuffle=False,
            callbacks=callbacks,
            verbose=int(self.verbose),
            device=device,
            inputs=inputs,
            **net_params,
        )
        net.fit(dataset, y=None)
        return net

    def _keep_trained(self, module, history):
        self.module_ = module.to("cpu").eval()
        self.history_ = [dict(entry) for entry in history]

    def _inference_device(self):
        from ._training import inference_device

        return inference_device(self.device)

    def _run_module(self, inputs, batch_size, dtype=np.float32):
        """``module_`` on ``inputs`` in batches, on the inference device."""
        from ._training import forward_in_batches, torch_threads

        device = self._inference_device()
        # Another device gets a copy for the call, so concurrent calls never move
        # a module another thread is running (moving it in place made 2 of 8
        # concurrent GRU transforms fail).
        module = self.module_ if device == "cpu" else copy.deepcopy(self.module_).to(device)
        with torch_threads(effective_n_jobs(self.n_jobs)):
            return forward_in_batches(
                module, inputs, device=device, batch_size=batch_size, dtype=dtype
            )
