"""What the sharded classifier and regressor share: the weights parameter and the votes."""

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..neighbors import neighbor_weights
from ._base import _ShardedBase


class _ShardedSupervised(_ShardedBase):
    def __init__(
        self,
        embedder="auto",
        *,
        metric="levenshtein",
        n_neighbors=5,
        weights="uniform",
        n_candidates="auto",
        target_recall=0.95,
        check_recall=True,
        filter_algorithm="auto",
        index_params=None,
        exact=False,
        n_jobs=None,
        random_state=None,
        client=None,
        n_shards=None,
    ):
        super().__init__(
            embedder,
            metric=metric,
            n_neighbors=n_neighbors,
            n_candidates=n_candidates,
            target_recall=target_recall,
            check_recall=check_recall,
            filter_algorithm=filter_algorithm,
            index_params=index_params,
            exact=exact,
            n_jobs=n_jobs,
            random_state=random_state,
            client=client,
            n_shards=n_shards,
        )
        self.weights = weights

    _parameter_constraints: dict = {
        **_ShardedBase._parameter_constraints,
        "weights": [StrOptions({"uniform", "distance"}), callable, None],
    }

    def _votes(self, X):
        """Neighbor targets and their weights (ties broken by index)."""
        distances, _, targets = self._search(X)
        weights = neighbor_weights(distances, self.weights)
        return targets, np.ones_like(distances) if weights is None else weights
