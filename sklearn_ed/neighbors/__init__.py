"""Filter-and-refine nearest neighbours, classification, regression and graphs."""

from ._classification import FilterRefineClassifier
from ._graph import FilterRefineTransformer
from ._regression import FilterRefineRegressor
from ._supervised import neighbour_weights, vote_shares
from ._unsupervised import FilterRefineNeighbors

__all__ = [
    "FilterRefineClassifier",
    "FilterRefineNeighbors",
    "FilterRefineRegressor",
    "FilterRefineTransformer",
]
