"""sklearn-ed: nearest neighbors under expensive distances, for scikit-learn.

Strings (or any objects) are embedded into vectors; candidates are filtered
by cheap vector distance and refined with the exact distance.
"""

import importlib

__version__ = "0.2.0.dev0"

# Each public name and the subpackage it lives in. A name's subpackage (and
# scikit-learn, numba, faiss behind it) is imported on first use, so
# ``import sklearn_ed`` and ``sklearn-ed --help`` cost milliseconds.
_PUBLIC = {
    "StringDeduplicator": "dedup",
    "CGKEmbedder": "embedding",
    "CNNEDEmbedder": "embedding",
    "ClusterMetricLearner": "embedding",
    "FastMapEmbedder": "embedding",
    "GRUEmbedder": "embedding",
    "QGramEmbedder": "embedding",
    "TripletMinedEmbedder": "embedding",
    "FilterRefineClassifier": "neighbors",
    "FilterRefineNeighbors": "neighbors",
    "FilterRefineRegressor": "neighbors",
    "FilterRefineTransformer": "neighbors",
    "iter_similarity_join": "neighbors",
    "similarity_join": "neighbors",
    "load": "utils",
    "save": "utils",
}

__all__ = sorted([*_PUBLIC, "__version__"])


def __getattr__(name):
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))
