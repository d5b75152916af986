"""Losses on embedded triplets."""

import torch
from torch import nn


class TripletApproximationLoss(nn.Module):
    """Triplet loss with a per-triplet margin plus ``alpha`` x approximation error.

    Seed 001 (Dai et al. 2020, s3.1)::

        L_t = max(0, |y_a - y_p| - |y_a - y_n| + (d(a, n) - d(a, p)))
        L_p = sum over (a,p), (a,n), (p,n) of | |y_i - y_j| - d(i, j) |
        L   = triplet_weight * L_t + alpha * L_p      (mean over the batch)

    Parameters
    ----------
    alpha : float, default=0.1
        Weight of the approximation error.
    triplet_weight : float, default=1.0
        Weight of the triplet loss (0 gives the pure "pairwise" ablation).

    Input of ``forward``: ``embeddings`` of shape (batch, 3, d) in the order
    anchor, positive, negative, and ``distances`` of shape (batch, 3): exact
    d(a, p), d(a, n), d(p, n), in the units the embedding should reproduce.
    """

    def __init__(self, alpha=0.1, triplet_weight=1.0):
        super().__init__()
        self.alpha = alpha
        self.triplet_weight = triplet_weight

    def forward(self, embeddings, distances):
        anchor, positive, negative = embeddings.unbind(dim=1)
        distances = distances.to(embeddings.dtype)
        d_ap, d_an, d_pn = distances.unbind(dim=1)
        e_ap = _norm(anchor - positive)
        e_an = _norm(anchor - negative)
        e_pn = _norm(positive - negative)
        triplet = torch.relu(e_ap - e_an + (d_an - d_ap))
        approximation = (e_ap - d_ap).abs() + (e_an - d_an).abs() + (e_pn - d_pn).abs()
        return (self.triplet_weight * triplet + self.alpha * approximation).mean()


def _norm(difference, eps=1e-12):
    # sqrt with a floor: the gradient of |x| at x = 0 would be NaN.
    return torch.sqrt((difference * difference).sum(dim=-1) + eps)
