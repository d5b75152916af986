"""Shared pieces of the supervised FilterRefine estimators."""

import numpy as np
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_consistent_length, validate_data

from ..search import SearchPolicy
from ._base import FilterRefineBase

WEIGHTS_CONSTRAINT = [StrOptions({"uniform", "distance"}), callable, None]


def neighbor_weights(distances, weights):
    """Weights of the neighbors (``None`` for uniform), as sklearn does.

    With ``"distance"``, a query at distance zero of some neighbors gets
    weight 1 on those and 0 on the others.
    """
    if weights in (None, "uniform"):
        return None
    if weights == "distance":
        with np.errstate(divide="ignore"):
            inverse = 1.0 / distances
        exact_hits = np.isinf(inverse)
        rows = exact_hits.any(axis=1)
        inverse[rows] = exact_hits[rows]
        return inverse
    return np.asarray(weights(distances), dtype=np.float64)


def vote_shares(labels, weights, n_classes):
    """Share of the (weighted) votes of each class, per query row.

    ``labels`` and ``weights`` have one column per voting neighbor; a row
    without votes gets zeros.
    """
    votes = np.zeros((labels.shape[0], n_classes))
    rows = np.repeat(np.arange(labels.shape[0]), labels.shape[1])
    np.add.at(votes, (rows, labels.ravel()), weights.ravel())
    totals = votes.sum(axis=1, keepdims=True)
    totals[totals == 0] = 1.0
    return votes / totals


def index_voters(distances, indices, weights):
    """``ties="index"``: the neighbors and their weights."""
    weighted = neighbor_weights(distances, weights)
    return indices, np.ones_like(distances) if weighted is None else weighted


def tie_sharing_voters(distances, indices, tied, n_neighbors, weights):
    """``ties="include"``: the closer neighbors, then every item of ``tied[i]``
    (all those at the k-th distance) sharing the remaining votes; padded
    rows of indices and weights (padding: index 0, weight 0)."""
    kth = distances[:, -1]
    rows = [
        _shared_row(d, i, k_dist, t, n_neighbors)
        for d, i, k_dist, t in zip(distances, indices, kth, tied)
    ]
    width = max(len(row[0]) for row in rows)
    padded = np.zeros((len(rows), width), dtype=np.int64)
    padded_distances = np.repeat(kth[:, None], width, axis=1)
    shares = np.zeros((len(rows), width))
    for position, (row_indices, row_distances, row_shares) in enumerate(rows):
        padded[position, : len(row_indices)] = row_indices
        padded_distances[position, : len(row_indices)] = row_distances
        shares[position, : len(row_indices)] = row_shares
    weighted = neighbor_weights(padded_distances, weights)
    return padded, shares if weighted is None else weighted * shares


class SupervisedFilterRefineBase(FilterRefineBase):
    """Validation of (X, y) shared by the classifier and the regressor."""

    __sklearn_ed_saved__ = FilterRefineBase.__sklearn_ed_saved__ + ("_y",)

    _parameter_constraints: dict = {
        **FilterRefineBase._parameter_constraints,
        "weights": WEIGHTS_CONSTRAINT,
        "ties": [StrOptions({"include", "index"})],
    }

    def _search_policy(self, X):
        # Votes with ties="include" use every item tied at the k-th distance.
        return SearchPolicy.decide(
            self._metric_spec, X, exact=self.exact, all_ties=self.ties == "include"
        )

    def _voters(self, X):
        """Indices of the voting neighbors and their weights, padded rows.

        ``ties="index"``: the ``n_neighbors`` neighbors, ties at the k-th
        distance broken by training index. ``ties="include"``: every
        neighbor closer than the k-th distance with its weight, and every
        item at the k-th distance with an equal share of the remaining
        ``n_neighbors - n_closer`` votes: the expected vote over all orders
        of the training data, so predictions do not depend on that order.
        Padding has index 0 and weight 0.
        """
        if self.ties == "index":
            distances, indices = self.kneighbors(X)
            return index_voters(distances, indices, self.weights)
        return tie_sharing_voters(*self._neighbors_and_ties(X), self.n_neighbors, self.weights)

    def _neighbors_and_ties(self, X):
        """The k neighbors and, per query, every item at the k-th exact distance
        the search sees (:meth:`FittedSearch.neighbors_and_ties`)."""
        queries, exclude, k, n_candidates = self._query_plan(X, self.n_neighbors)
        distances, indices, tied = [], [], []
        for _, batch, batch_exclude in self._query_batches(queries, exclude):
            found = self.search_.neighbors_and_ties(batch, k, n_candidates, batch_exclude)
            distances.append(found[0])
            indices.append(found[1])
            tied.extend(found[2])
        if not distances:
            return *(np.empty((0, k), dtype) for dtype in (np.float64, np.int64)), tied
        return np.concatenate(distances), np.concatenate(indices), tied

    def _validate_X_y(self, X, y):
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        if self._metric_spec.input_type == "vectors":
            return validate_data(self, X, y, dtype=[np.float64, np.float32], multi_output=True)
        X = self._validate_X(X, reset=True)
        y = np.asarray(y)
        check_consistent_length(X, y)
        return X, y


def _shared_row(distances, indices, kth, tied, n_neighbors):
    """Voters of one query: the closer neighbors, then the tied items sharing the rest."""
    closer = distances < kth
    n_closer = int(closer.sum())
    tied = np.sort(tied)
    voters = np.concatenate([indices[closer], tied])
    voter_distances = np.concatenate([distances[closer], np.full(len(tied), kth)])
    shares = np.concatenate(
        [np.ones(n_closer), np.full(len(tied), (n_neighbors - n_closer) / max(len(tied), 1))]
    )
    return voters, voter_distances, shares
