"""Losses on embedded triplets."""

import torch
from torch import nn


class TripletApproximationLoss(nn.Module):
    """Triplet loss with a per-triplet margin plus ``alpha`` x approximation error.

    Dai et al. (2020), s3.1::

        L_t = max(0, |y_a - y_p| - |y_a - y_n| + (d(a, n) - d(a, p)))
        L_p = sum over (a,p), (a,n), (p,n) of | |y_i - y_j| - d(i, j) |
        L   = triplet_weight * L_t + alpha * L_p      (mean over the batch)

    Parameters
    ----------
    alpha : float, default=0.1
        Weight of the approximation error.
    triplet_weight : float, default=1.0
        Weight of the triplet loss (0 gives the pure "pairwise" ablation).

    Notes
    -----
    ``forward`` takes ``embeddings`` of shape (batch, 3, d) in the order
    anchor, positive, negative, and ``distances`` of shape (batch, 3): exact
    d(a, p), d(a, n), d(p, n), in the units the embedding should reproduce.
    """

    def __init__(self, alpha=0.1, triplet_weight=1.0):
        super().__init__()
        self.alpha = alpha
        self.triplet_weight = triplet_weight

    def forward(self, embeddings, distances):
        """The loss of a batch of embedded triplets.

        Parameters
        ----------
        embeddings : torch.Tensor, shape (batch, 3, d)
            Anchor, positive and negative embeddings.
        distances : torch.Tensor, shape (batch, 3)
            Exact ``d(a, p)``, ``d(a, n)``, ``d(p, n)``.

        Returns
        -------
        loss : torch.Tensor
            Scalar, the mean over the batch.
        """
        anchor, positive, negative = embeddings.unbind(dim=1)
        distances = distances.to(embeddings.dtype)
        d_ap, d_an, d_pn = distances.unbind(dim=1)
        e_ap = smooth_norm(anchor - positive)
        e_an = smooth_norm(anchor - negative)
        e_pn = smooth_norm(positive - negative)
        triplet = torch.relu(e_ap - e_an + (d_an - d_ap))
        approximation = (e_ap - d_ap).abs() + (e_an - d_an).abs() + (e_pn - d_pn).abs()
        return (self.triplet_weight * triplet + self.alpha * approximation).mean()


def smooth_norm(difference, eps=1e-12):
    """Euclidean norm over the last axis, with a floor under the square root.

    The gradient of ``|x|`` at ``x = 0`` would be NaN.
    """
    return torch.sqrt(squared_norm(difference) + eps)


def squared_norm(difference):
    """Squared Euclidean norm over the last axis."""
    return (difference * difference).sum(dim=-1)


def _half_squared(difference):
    return 0.5 * squared_norm(difference)


class PairAbsoluteLoss(nn.Module):
    """Absolute loss ``| d_E(x, y) - d_H(f(x), f(y)) |`` (Zhang et al. 2020, eqs. 5 and 7).

    ``d_H(u, v) = ||u - v||^2 / 2``. Input of ``forward`` as in
    :class:`TripletApproximationLoss`; the loss is the mean over the batch of
    the sum over the triplet's three pairs (a, p), (a, n), (p, n).

    Parameters
    ----------
    *args, **kwargs
        Passed to :class:`torch.nn.Module` (none are used).
    """

    def forward(self, embeddings, distances):
        """The loss of a batch of embedded triplets.

        Parameters
        ----------
        embeddings : torch.Tensor, shape (batch, 3, d)
            Anchor, positive and negative embeddings.
        distances : torch.Tensor, shape (batch, 3)
            Exact ``d(a, p)``, ``d(a, n)``, ``d(p, n)``.

        Returns
        -------
        loss : torch.Tensor
            Scalar, the mean over the batch.
        """
        anchor, positive, negative = embeddings.unbind(dim=1)
        d_ap, d_an, d_pn = distances.to(embeddings.dtype).unbind(dim=1)
        return (
            (_half_squared(anchor - positive) - d_ap).abs()
            + (_half_squared(anchor - negative) - d_an).abs()
            + (_half_squared(positive - negative) - d_pn).abs()
        ).mean()


class HalfSquaredTripletLoss(nn.Module):
    """Triplet loss on ``d_H`` with the margin ``d_E(a, n) - d_E(a, p)`` (Zhang et al. 2020, eq. 6).

    ``max(0, d_H(a, p) - d_H(a, n) + d_E(a, n) - d_E(a, p))``, mean over the batch.

    Parameters
    ----------
    *args, **kwargs
        Passed to :class:`torch.nn.Module` (none are used).
    """

    def forward(self, embeddings, distances):
        """The loss of a batch of embedded triplets.

        Parameters
        ----------
        embeddings : torch.Tensor, shape (batch, 3, d)
            Anchor, positive and negative embeddings.
        distances : torch.Tensor, shape (batch, 3)
            Exact ``d(a, p)``, ``d(a, n)``, ``d(p, n)``.

        Returns
        -------
        loss : torch.Tensor
            Scalar, the mean over the batch.
        """
        anchor, positive, negative = embeddings.unbind(dim=1)
        d_ap, d_an, _ = distances.to(embeddings.dtype).unbind(dim=1)
        margin = d_an - d_ap
        return torch.relu(
            _half_squared(anchor - positive) - _half_squared(anchor - negative) + margin
        ).mean()
