"""Filter-and-refine nearest neighbors, classification, regression and graphs."""

from ..join import iter_similarity_join, similarity_join
from . import _filter_method  # noqa: F401  (registers the join method "filter")
from ._classification import FilterRefineClassifier
from ._graph import FilterRefineTransformer
from ._regression import FilterRefineRegressor

# For the sharded estimators of sklearn_ed.dask (not in __all__).
from ._supervised import index_voters, neighbor_weights, tie_sharing_voters, vote_shares
from ._unsupervised import FilterRefineNeighbors

__all__ = [
    "FilterRefineClassifier",
    "FilterRefineNeighbors",
    "FilterRefineRegressor",
    "FilterRefineTransformer",
    "iter_similarity_join",
    "similarity_join",
]
