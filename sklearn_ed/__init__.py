"""sklearn-ed: nearest neighbours under expensive distances, for scikit-learn.

Strings (or any objects) are embedded into vectors; candidates are filtered
by cheap vector distance and refined with the exact distance.
"""

from .embedding import (
    CGKEmbedder,
    CNNEDEmbedder,
    ClusterMetricLearner,
    FastMapEmbedder,
    GRUEmbedder,
    QGramEmbedder,
    TripletMinedEmbedder,
)
from .utils import load, save
from .neighbors import (
    FilterRefineClassifier,
    FilterRefineNeighbors,
    FilterRefineRegressor,
    FilterRefineTransformer,
)

__version__ = "0.1.0"

__all__ = [
    "CGKEmbedder",
    "CNNEDEmbedder",
    "ClusterMetricLearner",
    "FastMapEmbedder",
    "FilterRefineClassifier",
    "FilterRefineNeighbors",
    "FilterRefineRegressor",
    "FilterRefineTransformer",
    "GRUEmbedder",
    "QGramEmbedder",
    "TripletMinedEmbedder",
    "__version__",
    "load",
    "save",
]
