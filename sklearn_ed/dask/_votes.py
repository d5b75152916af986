"""The votes of a sharded classifier or regressor, counted after the merge.

Labels and targets stay in the client process; the shards return neighbors
(and, with ``ties="include"``, their items at the global k-th distance), and
the votes are those of the wrapped estimator.
"""

import numpy as np
from sklearn.base import is_classifier, is_regressor
from sklearn.utils._available_if import available_if
from sklearn.utils.validation import check_is_fitted

from ..neighbors import index_voters, tie_sharing_voters, vote_shares
from ..utils import check_items
from ._executor import scatter_to_workers
from ._shards import tied_items

# Queries sent to the shards at once for the tie round.
QUERY_BATCH_SIZE = 2_048


def required_targets(y):
    if y is None:
        raise ValueError("The wrapped estimator is supervised: fit needs y.")
    return y


def _supervised(estimator):
    return is_classifier(estimator) or is_regressor(estimator)


class ShardedVotesMixin:
    """``predict``, ``predict_proba`` and ``score`` of a sharded supervised estimator."""

    @available_if(lambda self: _supervised(self._wrapped()))
    def predict(self, X):
        """The wrapped estimator's prediction: most voted class, or mean target.

        Parameters
        ----------
        X : array-like
            Queries.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,)
            Predicted labels or targets.
        """
        if is_classifier(self._wrapped()):
            return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
        indices, weights = self._voters(X)
        return (self._targets[indices] * weights).sum(axis=1) / weights.sum(axis=1)

    @available_if(lambda self: is_classifier(self._wrapped()))
    def predict_proba(self, X):
        """Share of (weighted) neighbor votes for each class.

        Parameters
        ----------
        X : array-like
            Queries.

        Returns
        -------
        proba : ndarray of shape (n_queries, n_classes)
            Class probabilities, columns in the order of ``classes_``.
        """
        indices, weights = self._voters(X)
        return vote_shares(self._targets[indices], weights, len(self.classes_))

    @available_if(lambda self: _supervised(self._wrapped()))
    def score(self, X, y):
        """Accuracy (classifier) or R^2 (regressor) on ``X``, as the wrapped estimator scores.

        Parameters
        ----------
        X : array-like
            Queries.
        y : array-like
            True labels or targets.

        Returns
        -------
        score : float
        """
        from sklearn.metrics import accuracy_score, r2_score

        score = accuracy_score if is_classifier(self._wrapped()) else r2_score
        return float(score(y, self.predict(X)))

    def _voters(self, X):
        """Voting neighbors and weights, merged over the shards, as the wrapped
        estimator votes (``ties="include"``: every shard's items at the global
        k-th distance share the remaining votes)."""
        check_is_fitted(self, "n_shards_")
        wrapped = self._wrapped()
        distances, indices = self._search(X)
        if wrapped.ties == "index":
            return index_voters(distances, indices, wrapped.weights)
        tied = self._tied(X, distances[:, -1])
        return tie_sharing_voters(distances, indices, tied, wrapped.n_neighbors, wrapped.weights)

    def _tied(self, X, kth):
        """Per query, the items of every shard at exactly its k-th distance."""
        queries = check_items(X, self._input_type, name="X")
        client = self._client()
        tied = []
        for start in range(0, len(queries), QUERY_BATCH_SIZE):
            rows = slice(start, start + QUERY_BATCH_SIZE)
            batch = scatter_to_workers(client, queries[rows])
            parts = client.gather(
                [client.submit(tied_items, shard, batch, kth[rows]) for shard in self._shards]
            )
            tied.extend(np.sort(np.concatenate(lists)) for lists in zip(*parts))
        return tied
