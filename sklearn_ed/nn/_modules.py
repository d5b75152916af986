"""The CNN-ED network (Dai et al. 2020, s3.1) and its lookup-table forms.

Input of every forward path: padded symbols, an int64 tensor (N, M); symbol
0 is padding and has an all-zero one-hot row, symbols ``1 .. n_symbols - 1``
(the unknown bucket and the characters) are the one-hot rows.

Two input layouts:

- ``"per_character"`` (the authors' public code): the one-hot matrix
  (n_symbols - 1, M) of a string is reshaped to (N * (n_symbols - 1), 1, M)
  and every character's row goes through the same single-input-channel
  convolutions; the final linear layer sees all rows.
- ``"channels"``: the characters are the input channels of the first
  ``Conv1d(n_symbols - 1, n_channels, 3)``. Its output is computed by three
  embedding lookups and shifted adds, so no one-hot tensor is built:
  ``out[:, t] = b + W[:, x[t-1], 0] + W[:, x[t], 1] + W[:, x[t+1], 2]``.

With ``pooling="avg"`` and ``activation=None`` the whole network is affine
in the one-hot input, so it equals ``bias + sum_t table[x[t], t]``:
:func:`affine_lookup_table` extracts that table once, and inference is a
gather-and-add per character (no convolution at all).
"""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..utils import saved_class


def pad_symbols(symbols, offsets, max_length):
    """(n, max_length) int64 array of padded symbols from flat symbols + offsets.

    Strings longer than ``max_length`` are cut; no Python loop per character.

    Parameters
    ----------
    symbols : ndarray of int
        The symbols of all strings, concatenated.
    offsets : ndarray of int64, shape (n + 1,)
        String ``i`` is ``symbols[offsets[i]:offsets[i + 1]]``.
    max_length : int
        Width of the output; longer strings are cut.

    Returns
    -------
    padded : ndarray of int64, shape (n, max_length)
        Symbols, then zeros (padding).
    """
    n = len(offsets) - 1
    lengths = np.diff(offsets)
    out = np.zeros((n, max_length), dtype=np.int64)
    if symbols.size == 0:
        return out
    rows = np.repeat(np.arange(n), lengths)
    columns = np.arange(symbols.size) - np.repeat(offsets[:-1], lengths)
    keep = columns < max_length
    out[rows[keep], columns[keep]] = symbols[keep]
    return out


def pooled_length(length, n_layers):
    """Length after ``n_layers`` poolings of size 2 (ceil mode)."""
    for _ in range(n_layers):
        length = math.ceil(length / 2)
    return length


@saved_class("torch_module")
class CNNEDModule(nn.Module):
    """Stacked Conv1d(kernel 3) + pooling blocks, then a linear layer.

    Parameters
    ----------
    n_symbols : int
        Number of symbols including padding (symbol 0).
    max_length : int
        Padded input length M.
    n_components : int, default=128
        Output dimension d.
    n_layers : int, default=8
        Number of conv + pooling blocks.
    n_channels : int, default=8
        Output channels of every convolution.
    pooling : {"avg", "max"}, default="avg"
        Pooling of size and stride 2 after every convolution.
    activation : {None, "relu"}, default=None
        Non-linearity after every pooling.
    input_mode : {"per_character", "channels"}, default="per_character"
        Layout of the one-hot input (see the module docstring).
    """

    def __init__(
        self,
        n_symbols,
        max_length,
        n_components=128,
        n_layers=8,
        n_channels=8,
        pooling="avg",
        activation=None,
        input_mode="per_character",
    ):
        super().__init__()
        self.init_args = {
            "n_symbols": n_symbols,
            "max_length": max_length,
            "n_components": n_components,
            "n_layers": n_layers,
            "n_channels": n_channels,
            "pooling": pooling,
            "activation": activation,
            "input_mode": input_mode,
        }
        self.n_symbols = n_symbols
        self.max_length = max_length
        self.n_components = n_components
        self.n_layers = n_layers
        self.n_channels = n_channels
        self.pooling = pooling
        self.activation = activation
        self.input_mode = input_mode
        n_rows = n_symbols - 1
        per_character = input_mode == "per_character"
        first_in = 1 if per_character else n_rows
        # Per-character rows keep zero rows at zero (the authors' bias-free
        # convolutions); the channel layout keeps the usual bias.
        self.convs = nn.ModuleList(
            nn.Conv1d(
                first_in if i == 0 else n_channels, n_channels, 3, padding=1, bias=not per_character
            )
            for i in range(n_layers)
        )
        self.out_length = pooled_length(max_length, n_layers)
        flat = n_channels * self.out_length * (n_rows if per_character else 1)
        self.linear = nn.Linear(flat, n_components)

    @property
    def is_affine(self):
        """Whether the network is affine in its one-hot input."""
        return self.pooling == "avg" and self.activation is None

    # ------------------------------------------------------------- forward
    def forward(self, symbols):
        """Embeddings of padded symbols, by the fastest exact path.

        Parameters
        ----------
        symbols : torch.Tensor of int64, shape (N, M)
            Padded symbols (0: padding).

        Returns
        -------
        embeddings : torch.Tensor, shape (N, n_components)
            The network's output.
        """
        if self.is_affine and self.input_mode == "per_character":
            return self.forward_collapsed(symbols)
        if self.input_mode == "channels":
            return self._tail(self._first_conv_lookup(symbols), start=1)
        return self.forward_one_hot(self.one_hot(symbols))

    def forward_one_hot(self, one_hot):
        """Reference path: a dense one-hot input through the Conv1d stack.

        Parameters
        ----------
        one_hot : torch.Tensor, shape (N, n_symbols - 1, M)
            One-hot input (:meth:`one_hot`).

        Returns
        -------
        embeddings : torch.Tensor, shape (N, n_components)
            The network's output.
        """
        n = one_hot.shape[0]
        if self.input_mode == "per_character":
            hidden = one_hot.reshape(n * (self.n_symbols - 1), 1, one_hot.shape[-1])
        else:
            hidden = one_hot
        return self._tail(hidden, start=0, n_strings=n)

    def forward_collapsed(self, symbols):
        """Affine per-character network with its conv stack collapsed (differentiable).

        The bias-free convolutions and average poolings applied to one
        character row are one linear map ``H`` (K x M, :meth:`stack_matrix`),
        so the features of a batch are a single matrix product
        ``one_hot (N, n_symbols - 1, M) @ H.T`` followed by the linear layer.
        Training uses it: with K = n_channels * out_length much smaller than
        ``n_components``, it is several times cheaper than building and
        differentiating the (n_symbols - 1, M, d) table of :meth:`forward_table`.

        Parameters
        ----------
        symbols : torch.Tensor of int64, shape (N, M)
            Padded symbols (0: padding).

        Returns
        -------
        embeddings : torch.Tensor, shape (N, n_components)
            The network's output.
        """
        rows = self.one_hot(symbols).reshape(-1, symbols.shape[1])  # 2-D: no broadcast
        features = rows @ self.stack_matrix().T
        return self.linear(features.reshape(symbols.shape[0], -1))

    def forward_table(self, symbols):
        """Affine per-character network as ``bias + sum_t table[x_t, t]`` (differentiable).

        Equal to :meth:`forward_one_hot` up to float rounding, at a fraction
        of the cost: the stack of bias-free convolutions and average poolings
        is one linear map ``H`` from a character row (length M) to
        ``K = n_channels * out_length`` values. ``H`` is built from its
        adjoint applied to the K unit vectors (K rows through transposed
        convolutions instead of N * (n_symbols - 1) rows through the
        convolutions), the linear layer folds it into a table of shape
        (n_symbols - 1, M, d), and each string sums one table row per
        character with ``embedding_bag``.

        Parameters
        ----------
        symbols : torch.Tensor of int64, shape (N, M)
            Padded symbols (0: padding).

        Returns
        -------
        embeddings : torch.Tensor, shape (N, n_components)
            The network's output.
        """
        n_rows, m, d = self.n_symbols - 1, self.max_length, self.n_components
        table = self.character_table().reshape(n_rows * m, d)
        table = torch.cat([table, table.new_zeros(1, d)])  # last row: padding
        positions = torch.arange(symbols.shape[1], device=symbols.device)
        index = torch.where(symbols > 0, (symbols - 1) * m + positions, n_rows * m)
        return F.embedding_bag(index, table, mode="sum") + self.linear.bias

    def character_table(self):
        """Table of the affine per-character network (see :meth:`forward_table`).

        Returns
        -------
        table : torch.Tensor, shape (n_symbols - 1, M, n_components)
            Contribution of each character at each position.
        """
        stack = self.stack_matrix()  # (K, M)
        weight = self.linear.weight.reshape(self.n_components, self.n_symbols - 1, -1)
        return torch.einsum("dak,km->amd", weight, stack)

    def stack_matrix(self):
        """The bias-free conv + avg-pool stack on one character row, as a matrix.

        Returns
        -------
        stack : torch.Tensor, shape (n_channels * out_length, M)
            Maps a row of length ``M`` to the stack's flattened output.
        """
        lengths = [self.max_length]
        for _ in range(self.n_layers):
            lengths.append(math.ceil(lengths[-1] / 2))
        k = self.n_channels * self.out_length
        weight = self.convs[0].weight
        hidden = torch.eye(k, dtype=weight.dtype, device=weight.device)
        hidden = hidden.reshape(k, self.n_channels, self.out_length)
        for i in reversed(range(self.n_layers)):
            hidden = _avg_pool_adjoint(hidden, lengths[i])
            hidden = F.conv_transpose1d(hidden, self.convs[i].weight, padding=1)
        return hidden.reshape(k, self.max_length)

    def one_hot(self, symbols):
        """Dense float one-hot of padded symbols; padding is an all-zero column.

        Parameters
        ----------
        symbols : torch.Tensor of int64, shape (N, M)
            Padded symbols (0: padding).

        Returns
        -------
        one_hot : torch.Tensor, shape (N, n_symbols - 1, M)
            In the dtype of the network's weights.
        """
        one_hot = F.one_hot(symbols, self.n_symbols)[..., 1:]
        return one_hot.transpose(1, 2).to(self.linear.weight.dtype)

    def _first_conv_lookup(self, symbols):
        conv = self.convs[0]
        weight = conv.weight  # (C, n_symbols - 1, 3)
        zero = weight.new_zeros(weight.shape[0], 1, 3)
        tables = torch.cat([zero, weight], dim=1).permute(2, 1, 0)  # (3, n_symbols, C)
        padded = F.pad(symbols, (1, 1))
        m = symbols.shape[1]
        out = (
            F.embedding(padded[:, :m], tables[0])
            + F.embedding(padded[:, 1 : m + 1], tables[1])
            + F.embedding(padded[:, 2:], tables[2])
        )
        if conv.bias is not None:
            out = out + conv.bias
        return self._pool_act(out.transpose(1, 2))

    def _pool_act(self, hidden):
        if self.pooling == "avg":
            hidden = F.avg_pool1d(hidden, 2, ceil_mode=True)
        else:
            hidden = F.max_pool1d(hidden, 2, ceil_mode=True)
        if self.activation == "relu":
            hidden = torch.relu(hidden)
        return hidden

    def _tail(self, hidden, start, n_strings=None):
        n_strings = hidden.shape[0] if n_strings is None else n_strings
        for conv in self.convs[start:]:
            hidden = self._pool_act(conv(hidden))
        return self.linear(hidden.reshape(n_strings, -1))


def _avg_pool_adjoint(hidden, length):
    """Adjoint of ``avg_pool1d(kernel 2, stride 2, ceil_mode=True)`` to ``length``."""
    up = hidden.repeat_interleave(2, dim=-1)[..., :length]
    weights = torch.full((length,), 0.5, dtype=hidden.dtype, device=hidden.device)
    if length % 2:
        weights[-1] = 1.0  # the last window holds one element
    return up * weights


@torch.no_grad()
def _zero_output(module):
    zero = torch.zeros(1, module.n_symbols - 1, module.max_length)
    return module.forward_one_hot(zero)[0]


def affine_lookup_table(module):
    """Table form of an affine network: ``f(x) = bias + sum_t table[x[t], t]``.

    Because the network is affine in its one-hot input ``X``, ``table[s, t]``
    is the gradient of the output with respect to ``X[s - 1, t]``; one
    backward pass over ``n_components`` copies of the zero input gives all of
    it. Row 0 (padding) is zero.

    Parameters
    ----------
    module : CNNEDModule
        An affine network (``pooling="avg"``, no activation); moved to the CPU.

    Returns
    -------
    table : ndarray of float32, shape (n_symbols, max_length, n_components)
        C-contiguous; ``table[s, t]`` is contiguous.
    bias : ndarray of float32, shape (n_components,)
    """
    if not module.is_affine:
        raise ValueError("Only a network with pooling='avg' and activation=None is affine.")
    module = module.to("cpu")
    was_training = module.training
    module.eval()
    d, m = module.n_components, module.max_length
    zero = torch.zeros(d, module.n_symbols - 1, m, requires_grad=True)
    with torch.enable_grad():
        out = module.forward_one_hot(zero)
        out.diagonal().sum().backward()
    table = np.zeros((module.n_symbols, m, d), dtype=np.float32)
    table[1:] = zero.grad.permute(1, 2, 0).numpy()
    bias = _zero_output(module).numpy().astype(np.float32)
    module.train(was_training)
    return np.ascontiguousarray(table), bias
