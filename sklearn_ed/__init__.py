"""sklearn-ed: nearest neighbours under expensive distances, for scikit-learn.

Strings (or any objects) are embedded into vectors; candidates are filtered
by cheap vector distance and refined with the exact distance.
"""

from ._cgk import CGKEmbedder
from ._cnned import CNNEDEmbedder
from ._cluster_metric import ClusterMetricLearner
from ._fastmap import FastMapEmbedder
from ._gru import GRUEmbedder
from ._triplet import TripletMinedEmbedder
from ._persistence import load, save
from ._qgram_embedder import QGramEmbedder
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
