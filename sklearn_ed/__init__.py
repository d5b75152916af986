"""sklearn-ed: nearest neighbors under expensive distances, for scikit-learn.

Strings (or any objects) are embedded into vectors; candidates are filtered
by cheap vector distance and refined with the exact distance.
"""

from .dedup import StringDeduplicator
from .embedding import (
    CGKEmbedder,
    ClusterMetricLearner,
    CNNEDEmbedder,
    FastMapEmbedder,
    GRUEmbedder,
    QGramEmbedder,
    TripletMinedEmbedder,
)
from .neighbors import (
    FilterRefineClassifier,
    FilterRefineNeighbors,
    FilterRefineRegressor,
    FilterRefineTransformer,
    iter_similarity_join,
    similarity_join,
)
from .utils import load, save

__version__ = "0.2.0.dev0"

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
    "StringDeduplicator",
    "TripletMinedEmbedder",
    "__version__",
    "iter_similarity_join",
    "load",
    "save",
    "similarity_join",
]
