"""The two networks of Lary (2022) (s5.2) for :class:`~sklearn_ed.TripletMinedEmbedder`.

Both map a float32 batch ``(N, channels, length)`` to ``(N, d)`` vectors in
the unit hypercube (sigmoid output), so embedded distances stay bounded.

- :class:`MLPEmbeddingNet`: 4 linear layers of 200, 100, 50 and ``d`` units
  (ReLU between them, sigmoid at the end), on the flattened input; for
  vectors, images and zero-padded series.
- :class:`Conv1dEmbeddingNet`: Conv1d to ``hidden_channels`` (256) + batch
  norm + ReLU + max pool, Conv1d to ``d`` channels + batch norm + max pool,
  average pooling over time, sigmoid (after the raw-audio network of Dai et
  al. 2017 that the thesis adapts); for series of any channel count.
"""

import torch
from torch import nn

from ..utils import saved_class
from ._losses import smooth_norm


@saved_class("torch_module")
class MLPEmbeddingNet(nn.Module):
    """Fully connected 200-100-50-d network with a sigmoid output (Lary 2022, s5.2).

    Parameters
    ----------
    in_features : int
        Flattened input size (``channels * length``).
    n_components : int
        Output dimension d.
    hidden : tuple of int, default=(200, 100, 50)
        Hidden layer widths.
    """

    def __init__(self, in_features, n_components, hidden=(200, 100, 50)):
        super().__init__()
        self.init_args = {
            "in_features": int(in_features),
            "n_components": int(n_components),
            "hidden": [int(units) for units in hidden],
        }
        layers, width = [], int(in_features)
        for units in hidden:
            layers += [nn.Linear(width, units), nn.ReLU()]
            width = units
        layers += [nn.Linear(width, n_components), nn.Sigmoid()]
        self.layers = nn.Sequential(*layers)

    def forward(self, X):
        return self.layers(X.reshape(X.shape[0], -1))


@saved_class("torch_module")
class Conv1dEmbeddingNet(nn.Module):
    """Two Conv1d + batch norm + max-pool blocks, average pooling, sigmoid (Lary 2022, s5.2).

    Parameters
    ----------
    in_channels : int
        Channels of the input series.
    n_components : int
        Output dimension d (channels of the second convolution).
    hidden_channels : int, default=256
        Channels of the first convolution.
    kernel_size : int, default=7
        Width of both convolutions (``same`` padding).
    pool_size : int, default=2
        Width and stride of both max poolings (ceil mode, so a series of
        length 1 still works).
    """

    def __init__(self, in_channels, n_components, hidden_channels=256, kernel_size=7, pool_size=2):
        super().__init__()
        self.init_args = {
            "in_channels": int(in_channels),
            "n_components": int(n_components),
            "hidden_channels": int(hidden_channels),
            "kernel_size": int(kernel_size),
            "pool_size": int(pool_size),
        }
        padding = kernel_size // 2
        self.features = nn.Sequential(
            nn.Conv1d(in_channels, hidden_channels, kernel_size, padding=padding),
            nn.BatchNorm1d(hidden_channels),
            nn.ReLU(),
            nn.MaxPool1d(pool_size, ceil_mode=True),
            nn.Conv1d(hidden_channels, n_components, kernel_size, padding=padding),
            nn.BatchNorm1d(n_components),
            nn.MaxPool1d(pool_size, ceil_mode=True),
        )
        self.output = nn.Sigmoid()

    def forward(self, X):
        if X.dim() == 2:  # (N, length): univariate
            X = X[:, None, :]
        return self.output(self.features(X).mean(dim=2))


class TripletMarginLoss(nn.Module):
    """``mean(max(0, ||F(x) - F(y)|| - ||F(x) - F(z)|| + margin))`` (Lary 2022, s4.1).

    ``forward(embeddings, margins=None)`` takes embeddings of shape
    (batch, 3, d) in the order anchor, positive, negative, and optionally one
    margin per triplet (shape (batch,)), which replaces ``margin``.
    """

    def __init__(self, margin=0.1):
        super().__init__()
        self.margin = margin

    def forward(self, embeddings, margins=None):
        anchor, positive, negative = embeddings.unbind(dim=1)
        to_positive = smooth_norm(anchor - positive)
        to_negative = smooth_norm(anchor - negative)
        margin = self.margin if margins is None else margins.to(to_positive.dtype)
        return torch.relu(to_positive - to_negative + margin).mean()
