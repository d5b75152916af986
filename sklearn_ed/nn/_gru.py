"""The three-phase GRU embedding of Zhang, Yuan and Indyk (2020).

- :class:`GRUModule`: one-hot input, two stacked GRUs with a Bernoulli mask
  ``delta_i`` on every step of the first layer's output, and a linear layer
  at every step (s4, eqs. 1-4). Its output is the sequence of step vectors
  ``y_1 .. y_M``, concatenated; with a :class:`LearnedCGKPrime` attached the
  sequence first goes through the learned CGK' walk (Algorithm 3).
- :class:`LearnedCGKPrime`: Algorithm 3 (each step written once or twice,
  decided by a learned hash table ``H`` and threshold ``thres``) and the
  update rule of Algorithm 4.
- :class:`HashLearningNet`: the skorch net of Phase 3, which applies
  Algorithm 4 after every gradient step.

Embedding distance: ``d_H(u, v) = ||u - v||^2 / 2`` (s4).
"""

import numpy as np
import torch
import torch.nn.functional as F
from skorch.dataset import unpack_data
from torch import nn

from ..utils import saved_class
from ._kernels import learned_cgk_prime_walk
from ._losses import squared_norm
from ._training import TripletNet


@saved_class("torch_module")
class GRUModule(nn.Module):
    """Two-layer GRU with step dropout masks and a per-step linear layer (Zhang et al. 2020, s4).

    ``h1_i = GRU1(x_i, h1_{i-1})``, ``h2_i = GRU2(h1_i * delta_i, h2_{i-1})``,
    ``y_i = W h2_i + b``, output ``(y_1, ..., y_M)`` flattened. ``delta_i`` is
    0 with probability ``dropout`` for a whole step (all hidden units at
    once), independently per string and step, and ``1 / (1 - dropout)``
    otherwise, so the expected input of the second layer is unchanged and
    inference runs without masks (inverted dropout; the paper does not say
    how it rescales). Steps past the end of a string output zero, so a
    shorter string differs from a longer one by the longer one's extra steps
    (the GRUs are causal: padding never changes earlier steps).

    Parameters
    ----------
    n_symbols : int
        Number of symbols including padding (symbol 0, an all-zero input).
    max_length : int
        Padded input length M.
    hidden_size : int, default=64
        Units of both GRU layers.
    n_step_components : int, default=8
        Dimension of every step vector ``y_i``.
    dropout : float, default=0.1
        Probability that ``delta_i`` is zero.
    """

    def __init__(self, n_symbols, max_length, hidden_size=64, n_step_components=8, dropout=0.1):
        super().__init__()
        self.init_args = {
            "n_symbols": n_symbols,
            "max_length": max_length,
            "hidden_size": hidden_size,
            "n_step_components": n_step_components,
            "dropout": dropout,
        }
        self.n_symbols = n_symbols
        self.max_length = max_length
        self.dropout = dropout
        self.gru1 = nn.GRU(n_symbols - 1, hidden_size, batch_first=True)
        self.gru2 = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.linear = nn.Linear(hidden_size, n_step_components)
        self.cgk = None

    def prepare_for_state_dict(self, state_dict):
        """Add the Phase 3 walk when ``state_dict`` holds one (before loading it).

        Parameters
        ----------
        state_dict : dict
            The state about to be loaded with ``load_state_dict``.
        """
        if any(key.startswith("cgk.") for key in state_dict):
            self.attach_cgk()

    def attach_cgk(self, generator=None):
        """Add the learned CGK' walk of Phase 3 (random ``H``, ``thres = 0.5``).

        Parameters
        ----------
        generator : torch.Generator, default=None
            Source of the random hash table (torch's global one if None).
        """
        if self.cgk is None:
            self.cgk = LearnedCGKPrime(self.n_symbols, self.max_length, generator=generator)

    @property
    def steps_out(self):
        """Number of step vectors in the output (2M with the CGK' walk)."""
        return self.max_length * (1 if self.cgk is None else 2)

    def steps(self, symbols):
        """Step vectors of the GRU for each input position.

        Parameters
        ----------
        symbols : torch.Tensor of int64, shape (N, M)
            Padded symbols (0: padding).

        Returns
        -------
        steps : torch.Tensor, shape (N, M, n_step_components)
            Zero at padding positions.
        """
        one_hot = F.one_hot(symbols, self.n_symbols)[..., 1:].to(self.linear.weight.dtype)
        first, _ = self.gru1(one_hot)
        if self.training and self.dropout > 0:
            keep = torch.rand(first.shape[:2] + (1,), device=first.device) >= self.dropout
            first = first * keep.to(first.dtype) / (1.0 - self.dropout)
        second, _ = self.gru2(first)
        real = (symbols > 0).unsqueeze(-1).to(second.dtype)
        return self.linear(second) * real

    def forward(self, symbols):
        """Embeddings of padded symbols (through the CGK' walk after Phase 3).

        Parameters
        ----------
        symbols : torch.Tensor of int64, shape (N, M)
            Padded symbols (0: padding).

        Returns
        -------
        embeddings : torch.Tensor, shape (N, steps_out * n_step_components)
            Flattened step vectors.
        """
        steps = self.steps(symbols)
        if self.cgk is not None:
            steps, _ = self.cgk(steps, symbols)
        return steps.flatten(1)


@saved_class("torch_module")
class LearnedCGKPrime(nn.Module):
    """CGK' with a learned hash table and threshold (Zhang et al. 2020, Algorithms 3 and 4).

    Input step ``i`` of a string goes to output position ``j`` (the number of
    positions written so far); it is written twice (``j`` and ``j + 1``) when
    ``H[x_i, j] >= thres`` and once otherwise, where ``x_i`` is the input
    character: ``H[x_i, j]`` is ``h_j . x_i`` for the one-hot ``x_i`` of
    Algorithm 3. The copied values are the network's step vectors, so the
    decisions read characters (as CGK' does) and the gradients flow into the
    network through the copies. ``H`` starts uniform in [0, 1) and ``thres``
    at 0.5: before learning this is CGK' with a random hash. Padding steps
    are written once.

    ``H`` and ``thres`` are buffers: the optimiser never touches them; only
    :meth:`learn_from_pairs` (Algorithm 4) does.

    Parameters
    ----------
    n_symbols : int
        Symbols of the alphabet, padding included.
    max_length : int
        Input length ``M``; the output has ``2 M`` positions.
    generator : torch.Generator, default=None
        Source of the random hash table (torch's global one if None).
    """

    def __init__(self, n_symbols, max_length, generator=None):
        super().__init__()
        table = torch.rand(n_symbols, 2 * max_length, generator=generator)
        self.register_buffer("table", table)
        self.register_buffer("threshold", torch.tensor(0.5))

    def walk(self, symbols):
        """Where each input step is written, and whether it is written twice.

        Parameters
        ----------
        symbols : torch.Tensor of int64, shape (N, M)
            Padded symbols (0: padding).

        Returns
        -------
        positions : torch.Tensor of int64, shape (N, M)
            Output position of every input step.
        duplicated : torch.Tensor of bool, shape (N, M)
            Steps also written at ``position + 1``.
        """
        symbols_np = symbols.detach().cpu().numpy()
        positions = np.empty(symbols_np.shape, dtype=np.int64)
        duplicated = np.empty(symbols_np.shape, dtype=np.bool_)
        learned_cgk_prime_walk(
            symbols_np,
            self.table.detach().cpu().numpy(),
            float(self.threshold),
            positions,
            duplicated,
        )
        device = symbols.device
        return torch.from_numpy(positions).to(device), torch.from_numpy(duplicated).to(device)

    def forward(self, steps, symbols):
        """Write the step vectors along the walk of their symbols.

        Parameters
        ----------
        steps : torch.Tensor, shape (N, M, d)
            Step vectors of the network.
        symbols : torch.Tensor of int64, shape (N, M)
            The symbols the walk reads.

        Returns
        -------
        walked : torch.Tensor, shape (N, 2 M, d)
            The walk's output (zero where nothing is written).
        duplicated : torch.Tensor of bool, shape (N, M)
            Steps written twice.
        """
        positions, duplicated = self.walk(symbols)
        n, m, d = steps.shape
        rows = torch.arange(n, device=steps.device).unsqueeze(1).expand(n, m)
        out = steps.new_zeros(n, 2 * m, d)
        out = out.index_put((rows, positions), steps)
        out = out.index_put((rows[duplicated], positions[duplicated] + 1), steps[duplicated])
        return out, duplicated

    @torch.no_grad()
    def learn_from_pairs(
        self, walked_x, walked_y, symbols_x, distances, threshold_lr, hash_lr, walk_x=None
    ):
        """One step of Algorithm 4 for a batch of pairs, from the side of ``x``.

        For every input step of ``x``, the walk output is changed at that
        step only (its second copy removed if it was duplicated, a second
        copy inserted otherwise, later positions shifting) and the absolute
        loss ``| d_H(g(x), f'(y)) - d_E(x, y) |`` is compared with the
        current one. Where the change lowers the loss, ``thres`` and
        ``h_j[x_i]`` move by ``threshold_lr`` and ``hash_lr`` towards making
        that change; the moves are averaged over the pairs of the batch (the
        paper applies them pair by pair). Every change is scored in O(1)
        from prefix sums of the per-position squared differences of the
        unshifted, left-shifted and right-shifted walk of ``x``.

        Parameters
        ----------
        walked_x, walked_y : tensor of shape (P, 2M, d)
            Walk outputs ``f'(x)``, ``f'(y)``.
        symbols_x : tensor of shape (P, M), int64
            Padded input symbols of ``x``.
        distances : tensor of shape (P,)
            ``d_E(x, y)`` in the units of ``d_H``.
        threshold_lr, hash_lr : float
            epsilon and eta of Algorithm 4.
        walk_x : (positions, duplicated) or None
            :meth:`walk` of ``symbols_x`` when the caller already has it.
        """
        positions, duplicated = self.walk(symbols_x) if walk_x is None else walk_x
        zero = walked_x.new_zeros(walked_x.shape[0], 1, walked_x.shape[2])
        same = squared_norm(walked_x - walked_y)
        left = squared_norm(torch.cat([walked_x[:, 1:], zero], 1) - walked_y)
        right = squared_norm(torch.cat([zero, walked_x[:, :-1]], 1) - walked_y)
        prefix_same = same.cumsum(1)
        total = prefix_same[:, -1:]
        suffix_left = _suffix_sums(left)
        suffix_right = _suffix_sums(right)
        kept = prefix_same.gather(1, positions)
        after = positions + 1
        changed = kept + torch.where(
            duplicated, suffix_left.gather(1, after), suffix_right.gather(1, after)
        )
        target = distances.to(walked_x.dtype).unsqueeze(1)
        better = (0.5 * changed - target).abs() < (0.5 * total - target).abs()
        better &= symbols_x > 0
        undo_duplicate = better & duplicated
        add_duplicate = better & ~duplicated
        n_pairs = walked_x.shape[0]
        votes = (undo_duplicate.sum() - add_duplicate.sum()).to(self.threshold.dtype)
        self.threshold += threshold_lr * votes / n_pairs
        moves = (
            hash_lr
            * (add_duplicate.to(self.table.dtype) - undo_duplicate.to(self.table.dtype))
            / n_pairs
        )
        flat_index = symbols_x * self.table.shape[1] + positions
        self.table.view(-1).index_add_(0, flat_index.reshape(-1), moves.reshape(-1))


def _suffix_sums(values):
    """``out[:, k] = values[:, k:].sum(1)`` for k in 0..K (out[:, K] = 0)."""
    suffix = values.flip(1).cumsum(1).flip(1)
    return torch.cat([suffix, suffix.new_zeros(suffix.shape[0], 1)], 1)


class HashLearningNet(TripletNet):
    """Phase 3: the absolute loss (7) on CGK' outputs trains the network by
    gradient, and Algorithm 4 updates the module's hash table and threshold
    after every batch, for each of the batch's three pairs in both directions.

    The insertion loss (8), ``|d_H(f'(x), f'(y)) - d_E| - |d_H(f(x), f(y)) -
    d_E|`` (negative when the walk brings the embedding distance closer to
    the edit distance), is recorded per batch as ``"insertion_loss"``; add
    ``PassthroughScoring("insertion_loss", on_train=True)`` to see its epoch
    mean in the history.

    Parameters
    ----------
    *args, **kwargs
        Passed to :class:`TripletNet` (``module``, ``criterion``, ``inputs``,
        and skorch's parameters).
    threshold_lr : float, default=1e-4
        Learning rate epsilon of the threshold in Algorithm 4.
    hash_lr : float, default=1e-3
        Learning rate eta of the hash table in Algorithm 4.
    """

    def __init__(self, *args, threshold_lr=1e-4, hash_lr=1e-3, **kwargs):
        super().__init__(*args, **kwargs)
        self.threshold_lr = threshold_lr
        self.hash_lr = hash_lr

    def train_step_single(self, batch, **fit_params):
        """One gradient step, then Algorithm 4 on the batch's pairs.

        Parameters
        ----------
        batch : tuple
            ``(indices, distances)`` of a batch of triplets.
        **fit_params : dict
            Passed to the module.

        Returns
        -------
        step : dict
            skorch's ``{"loss": ..., "y_pred": ...}`` of the step.
        """
        step = super().train_step_single(batch, **fit_params)
        indices, distances = unpack_data(batch)
        indices = indices.to(self.device)
        distances = distances.to(self.device)
        walked = step["y_pred"].detach()
        batch_size = walked.shape[0]
        walked = walked.reshape(batch_size, 3, self.module_.steps_out, -1)
        symbols = self._device_inputs[indices]  # (B, 3, M), filled by infer
        positions, duplicated = (
            part.reshape(batch_size, 3, -1) for part in self.module_.cgk.walk(symbols.flatten(0, 1))
        )
        pairs = ((0, 1, 0), (0, 2, 1), (1, 2, 2))  # (x, y, column of d(x, y))
        first = [x for x, _, _ in pairs] + [y for _, y, _ in pairs]
        second = [y for _, y, _ in pairs] + [x for x, _, _ in pairs]
        columns = [c for _, _, c in pairs] * 2
        self.history.record_batch(
            "insertion_loss", self._insertion_loss(walked, positions, distances, pairs)
        )
        self.module_.cgk.learn_from_pairs(
            walked[:, first].flatten(0, 1),
            walked[:, second].flatten(0, 1),
            symbols[:, first].flatten(0, 1),
            distances[:, columns].flatten(0, 1),
            self.threshold_lr,
            self.hash_lr,
            walk_x=(positions[:, first].flatten(0, 1), duplicated[:, first].flatten(0, 1)),
        )
        return step

    def _insertion_loss(self, walked, positions, distances, pairs):
        """Batch mean of eq. 8 over the three pairs of every triplet.

        ``walked`` (B, 3, 2M, d) are the walk outputs, ``positions`` (B, 3, M)
        where each input step went; the plain step sequence is read back
        from the walk output at those positions.
        """
        batch_size, _, _, width = walked.shape
        flat = walked.flatten(0, 1)
        steps = flat.gather(1, positions.flatten(0, 1).unsqueeze(-1).expand(-1, -1, width))
        steps = steps.reshape(batch_size, 3, -1)
        walked = walked.reshape(batch_size, 3, -1)
        total = 0.0
        for x, y, column in pairs:
            target = distances[:, column].to(walked.dtype)
            with_walk = 0.5 * squared_norm(walked[:, x] - walked[:, y])
            without = 0.5 * squared_norm(steps[:, x] - steps[:, y])
            total += ((with_walk - target).abs() - (without - target).abs()).mean()
        return float(total) / len(pairs)
