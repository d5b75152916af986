"""The torch base of the string embedders (CNN-ED, GRU): the training sample,
the cached exact distances of the training strings, and padded inputs.

Torch is imported inside the methods, so importing this module stays cheap.
"""

import hashlib
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from tqdm.auto import tqdm

from ..distances import candidate_distances
from ..nn import (
    TORCH_INFERENCE_BATCH,
    TORCH_PARAMETER_CONSTRAINTS,
    TorchEmbedderMixin,
    TrainingDistances,
    adapted_n_neighbors,
    distance_jobs,
    mean_off_diagonal,
)
from ..utils import Alphabet, SavedStateError, log_progress, qgram_profiles, saved_int

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

# The parameters the string embedders trained on top-k triplets (CNN-ED, GRU).
NEURAL_PARAMETER_CONSTRAINTS = {
    **TORCH_PARAMETER_CONSTRAINTS,
    "n_neighbors": [Interval(Integral, 2, None, closed="left")],
    "n_train": [Interval(Integral, 3, None, closed="left"), None],
    "train_sampling": [StrOptions({"uniform", "neighborhoods"})],
    "neighborhood_size": [Interval(Integral, 1, None, closed="left")],
    "lr": [Interval(Real, 0, None, closed="neither")],
}


class NeuralEmbedderMixin(TorchEmbedderMixin):
    """The torch base of the string embedders (CNN-ED, GRU): training sample,
    cached exact distances of the training strings and padded inputs.

    Expects, besides the :class:`TorchEmbedderMixin` parameters, ``n_train``,
    ``train_sampling`` and ``neighborhood_size``, and the fitted ``alphabet_``
    and ``max_length_``.
    """

    @classmethod
    def _check_saved_state(cls, state):
        """The saved network takes the alphabet's symbols up to ``max_length_`` and
        gives ``n_features_out_`` values (sklearn_ed.load): CNN-ED's lookup
        kernel and the learned walk index with them unchecked."""
        module = state.get("module_")
        if module is None:  # saved unfitted
            return
        alphabet = state.get("alphabet_")
        if not isinstance(alphabet, Alphabet) or module.n_symbols != alphabet.n_symbols:
            raise SavedStateError("module_", "a network of another alphabet")
        saved_int(state.get("max_length_"), "max_length_", module.max_length, module.max_length + 1)
        width = cls._network_width(module)
        saved_int(state.get("n_features_out_"), "n_features_out_", width, width + 1)

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
        from ..nn import TopKTripletDataset, top_k_neighbors

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
        log_progress(
            self,
            f"exact distances of the {n} training strings to their {width} q-gram candidates",
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
            log_progress(
                self,
                f"exact distances among the {len(train)} training strings "
                f"({len(train) * (len(train) - 1) // 2} pairs)",
            )
            cached.compute_whole()
        self._train_pairs, self._train_key = cached, key
        self.train_distances_ = cached.matrix
        return cached

    def _pad(self, strings):
        from ..nn import pad_symbols

        symbols, offsets = self.alphabet_.encode(strings)
        return pad_symbols(symbols, offsets, self.max_length_)

    def _embed_torch(self, strings, dtype=np.float32):
        """``module_`` on padded strings in batches of ``TORCH_INFERENCE_BATCH``."""
        return self._run_module(self._pad(strings), TORCH_INFERENCE_BATCH, dtype)
