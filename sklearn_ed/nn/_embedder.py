"""The torch embedder base: the skorch training loop, device and batched
inference (:class:`TorchEmbedderMixin`), and for the string embedders the
training sample, cached exact distances and padding (:class:`NeuralEmbedderMixin`).

Torch is imported inside the methods, so importing this module stays cheap."""

import contextlib
import copy
import hashlib
import warnings
from numbers import Integral, Real

import numpy as np
from joblib import effective_n_jobs
from sklearn.utils._param_validation import Interval, StrOptions
from tqdm.auto import tqdm

from ..distances import candidate_distances
from ..utils import qgram_profiles
from ._training_distances import TrainingDistances

# Strings per torch forward pass at inference.
TORCH_INFERENCE_BATCH = 512
# train_sampling="neighborhoods": proxy candidates per neighbor, refined exactly.
_NEIGHBORHOOD_CANDIDATES = 10
# Anchors whose q-gram similarities are computed in one sparse product.
_ANCHOR_BATCH = 64
# Ranked candidates: q-gram candidates per top-k neighbor, ranked by exact distance.
RANKED_CANDIDATES = 2
# train_neighbors="auto" ranks candidates from this mean training length on:
# measured on 1 kbp reads (same recall over 6 seeds, bench_cnned_fit_time);
# shorter strings keep the paper's whole matrix, which costs less there.
_LONG_STRINGS = 500
# Ranked candidates: random pairs whose mean exact distance is the training unit.
_SCALE_PAIRS = 2_000
# Ranked candidates: rows of the q-gram similarity computed at once (memory bound).
_SIMILARITY_ROWS = 1_024

# Constraints of the parameters every torch embedder has.
TORCH_PARAMETER_CONSTRAINTS = {
    "batch_size": [Interval(Integral, 1, None, closed="left")],
    "device": [StrOptions({"cpu", "cuda", "auto"})],
    "callbacks": [list, None],
    "verbose": ["verbose"],
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
}
# ... and those of the string embedders trained on top-k triplets (CNN-ED, GRU).
NEURAL_PARAMETER_CONSTRAINTS = {
    **TORCH_PARAMETER_CONSTRAINTS,
    "n_neighbors": [Interval(Integral, 2, None, closed="left")],
    "n_train": [Interval(Integral, 3, None, closed="left"), None],
    "train_sampling": [StrOptions({"uniform", "neighborhoods"})],
    "neighborhood_size": [Interval(Integral, 1, None, closed="left")],
    "lr": [Interval(Real, 0, None, closed="neither")],
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
        from . import resolve_device, seeded_torch, torch_threads

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
        from . import TripletNet

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
        from . import inference_device

        return inference_device(self.device)

    def _run_module(self, inputs, batch_size, dtype=np.float32):
        """``module_`` on ``inputs`` in batches, on the inference device."""
        from . import forward_in_batches, torch_threads

        device = self._inference_device()
        # Another device gets a copy for the call, so concurrent calls never move
        # a module another thread is running (moving it in place made 2 of 8
        # concurrent GRU transforms fail).
        module = self.module_ if device == "cpu" else copy.deepcopy(self.module_).to(device)
        with torch_threads(effective_n_jobs(self.n_jobs)):
            return forward_in_batches(
                module, inputs, device=device, batch_size=batch_size, dtype=dtype
            )


class NeuralEmbedderMixin(TorchEmbedderMixin):
    """The torch base of the string embedders (CNN-ED, GRU): training sample,
    cached exact distances of the training strings and padded inputs.

    Expects, besides the :class:`TorchEmbedderMixin` parameters, ``n_train``,
    ``train_sampling`` and ``neighborhood_size``, and the fitted ``alphabet_``
    and ``max_length_``.
    """

    def _top_k_triplets(self, strings, rng, *, train_neighbors="exact", n_epochs=1):
        """The training strings, their exact distances, a triplet sampler over them
        and the seed of the training.

        ``train_neighbors="candidates"`` ranks the top-k lists among each
        string's ``RANKED_CANDIDATES * k`` most q-gram-similar training strings
        (:meth:`_candidate_neighbors`) and computes only the pairs the lists
        and the triplets of ``n_epochs`` epochs use; ``"exact"`` computes the
        whole matrix (Dai et al. 2020); ``"auto"`` is ``"candidates"`` for
        long strings when the candidates are at most a quarter of the
        training strings (:meth:`_auto_train_neighbors`). Sets
        ``n_train_``, ``train_indices_``, ``n_neighbors_``,
        ``train_neighbors_`` and ``distance_scale_`` (the mean distance the
        triplets are divided by).
        """
        from . import TopKTripletDataset, top_k_neighbors

        train, self.train_indices_ = self._training_strings(strings, rng)
        self.n_train_ = n = len(train)
        self.n_neighbors_ = adapted_n_neighbors(self.n_neighbors, n, type(self).__name__)
        if train_neighbors == "auto":
            train_neighbors = self._auto_train_neighbors(train)
        self.train_neighbors_ = train_neighbors
        ranked_candidates = train_neighbors == "candidates"
        distances = self._train_distances(train, whole=not ranked_candidates)
        if ranked_candidates:
            neighbors = self._candidate_neighbors(train, distances)
            self.distance_scale_ = distances.mean_of_random_pairs(_SCALE_PAIRS, rng)
        else:
            neighbors = top_k_neighbors(distances.matrix, self.n_neighbors_)
            self.distance_scale_ = mean_off_diagonal(distances.matrix)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        dataset = TopKTripletDataset(
            distances,
            neighbors,
            n_triplets=n,
            scale=self.distance_scale_,
            random_state=seed,
            n_epochs=n_epochs,
        )
        return train, distances.matrix, dataset, seed

    def _auto_train_neighbors(self, train):
        """``"candidates"`` for long strings whose candidates are at most a quarter
        of the training strings (then the lists need far fewer pairs than the
        whole matrix), else ``"exact"``."""
        width = RANKED_CANDIDATES * self.n_neighbors_
        mean_length = np.mean([len(string) for string in train])
        if mean_length >= _LONG_STRINGS and 4 * width <= len(train) - 1:
            return "candidates"
        return "exact"

    def _candidate_neighbors(self, train, distances):
        """Top-``n_neighbors_`` lists ranked by exact distance among q-gram candidates.

        Each string's candidates are the ``RANKED_CANDIDATES * n_neighbors_``
        training strings with the most similar q-gram sets (the profiles of
        the neighborhood sampling); ties are broken by index, as in
        :func:`~sklearn_ed.nn.top_k_neighbors`.
        """
        n, k = len(train), self.n_neighbors_
        width = min(RANKED_CANDIDATES * k, n - 1)
        if self.verbose:
            tqdm.write(
                f"[{type(self).__name__}] exact distances of the {n} training strings "
                f"to their {width} q-gram candidates"
            )
        profiles = qgram_profiles(train, self.alphabet_)
        candidates = np.empty((n, width), dtype=np.int64)
        for start in range(0, n, _SIMILARITY_ROWS):
            rows = np.arange(start, min(start + _SIMILARITY_ROWS, n))
            similarity = (profiles[rows] @ profiles.T).toarray()
            similarity[np.arange(rows.size), rows] = -np.inf
            nearest = np.argpartition(-similarity, width - 1, axis=1)[:, :width]
            candidates[rows] = np.sort(nearest, axis=1)
        exact = distances[np.repeat(np.arange(n), width).reshape(n, width), candidates]
        order = np.argsort(exact, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(candidates, order, axis=1)

    def _training_strings(self, strings, rng):
        """The training strings and their sorted indices (int64) in ``strings``.

        All of ``strings`` when there are at most ``n_train``, else a sample
        drawn as ``train_sampling`` says.
        """
        if self.n_train is None or len(strings) <= self.n_train:
            return strings, np.arange(len(strings), dtype=np.int64)
        if self.train_sampling == "uniform":
            chosen = np.sort(rng.choice(len(strings), self.n_train, replace=False))
        else:
            chosen = self._neighborhood_sample(strings, rng)
        return strings[chosen], chosen.astype(np.int64)

    def _neighborhood_sample(self, strings, rng):
        """``train_sampling="neighborhoods"``: random anchors plus their nearest strings.

        Anchors are visited in a random order; each not yet chosen anchor
        adds itself and its ``neighborhood_size - 1`` nearest not yet chosen
        strings, until ``n_train`` are chosen. Neighbors are found by filter
        and refine: the ``_NEIGHBORHOOD_CANDIDATES`` times as many most
        similar strings by q-gram profile (cosine of q-gram sets,
        :func:`~sklearn_ed.utils.qgram_profiles`), then exact distances to those candidates.
        """
        n, m = len(strings), self.n_train
        size = min(self.neighborhood_size, m)
        profiles = qgram_profiles(strings, self.alphabet_) if size > 1 else None
        chosen = np.zeros(n, dtype=bool)
        picked = []
        n_picked = 0
        order = rng.permutation(n)
        similar, batch_start = None, -1
        progress = tqdm(
            total=m,
            desc="neighborhood sampling",
            unit="string",
            disable=not self.verbose,
            leave=False,
        )
        for position, anchor in enumerate(order):
            progress.update(n_picked - progress.n)
            if n_picked >= m:
                break
            if chosen[anchor]:
                continue
            chosen[anchor] = True
            picked.append(np.array([anchor]))
            n_picked += 1
            take = min(size - 1, m - n_picked, n - n_picked)
            if take <= 0:
                continue
            if similar is None or position >= batch_start + _ANCHOR_BATCH:
                batch_start = position
                block = order[position : position + _ANCHOR_BATCH]
                similar = (profiles @ profiles[block].T).toarray()
            score = -similar[:, position - batch_start]
            score[chosen] = np.inf
            n_candidates = min(take * _NEIGHBORHOOD_CANDIDATES, n - n_picked)
            candidates = np.argpartition(score, n_candidates - 1)[:n_candidates]
            if n_candidates > take:
                exact = candidate_distances(
                    strings[anchor : anchor + 1],
                    strings,
                    candidates[None, :],
                    n_jobs=distance_jobs(self.n_jobs),
                )[0]
                candidates = candidates[np.argsort(exact, kind="stable")[:take]]
            chosen[candidates] = True
            picked.append(candidates)
            n_picked += take
        progress.close()
        return np.sort(np.concatenate(picked))

    def _train_distances(self, train, *, whole=True):
        """The exact distances of the training strings (:class:`TrainingDistances`),
        kept in ``train_distances_`` and reused by a refit on the same strings."""
        digest = hashlib.sha1()
        for string in train:
            digest.update(string.encode("utf-8", "surrogatepass"))
            digest.update(b"\x00\xff")
        key = digest.hexdigest()
        cached = getattr(self, "_train_pairs", None)
        if cached is None or getattr(self, "_train_key", None) != key:
            cached = TrainingDistances(train, n_jobs=distance_jobs(self.n_jobs))
        cached.n_jobs = distance_jobs(self.n_jobs)
        if whole and not cached.is_whole:
            if self.verbose:
                tqdm.write(
                    f"[{type(self).__name__}] exact distances among the {len(train)} "
                    f"training strings ({len(train) * (len(train) - 1) // 2} pairs)"
                )
            cached.compute_whole()
        self._train_pairs, self._train_key = cached, key
        self.train_distances_ = cached.matrix
        return cached

    def _pad(self, strings):
        from . import pad_symbols

        symbols, offsets = self.alphabet_.encode(strings)
        return pad_symbols(symbols, offsets, self.max_length_)

    def _embed_torch(self, strings, dtype=np.float32):
        """``module_`` on padded strings in batches of ``TORCH_INFERENCE_BATCH``."""
        return self._run_module(self._pad(strings), TORCH_INFERENCE_BATCH, dtype)
