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
    "save": "utils",
}

__all__ = sorted([*_PUBLIC, "load", "__version__"])

# The subpackages that define the classes sklearn_ed.load builds. Each class
# registers itself where it is defined (sklearn_ed.utils.saved_class) as its
# module is imported, so load imports this fixed list first: the allow-list is
# then complete, and no module is imported because a file names it.
_SAVED_CLASSES_IN = (
    "utils",
    "distances",
    "nn",
    "embedding",
    "index",
    "search",
    "neighbors",
    "dedup",
    "records",
)


def load(path):
    """Read an estimator written by :func:`save`; nothing in the files picks code.

    The manifest is checked whole before anything is built: its depth (at
    most 200 nested lists and objects), each node's kind, keys and types,
    array references, dtypes and shapes, and every class it names against
    the classes of sklearn-ed registered for saving where they are defined
    (and scikit-learn's ``Pipeline``, ``TfidfTransformer`` and
    ``FrozenEstimator``), with the version of its saved layout. No module
    named by a file is imported, no attribute may stand in for a method, and
    networks are read with ``torch.load(weights_only=True)``. Every saved
    array that compiled code indexes with (the index engines' bytes and
    arrays, parsed and range-checked before faiss, scipy or numba read them;
    the embedders' walks, alphabets and vocabularies; the networks' shapes)
    is checked against the invariants its class declares as the object is
    rebuilt.

    The hashes detect files damaged or edited after saving; whoever can
    write the directory can rewrite them. Such an edited directory cannot
    run code, open other files, or crash the interpreter through its arrays:
    ``load`` raises ``ValueError``. It can describe an estimator that
    answers differently or wrongly (other parameters, items or consistent
    values), raises ordinary exceptions when queried, or takes much time or
    memory. The user guide's persistence section says what is checked.

    Parameters
    ----------
    path : str or path-like
        Directory written by :func:`save`.

    Returns
    -------
    estimator : estimator
        The estimator, answering as the saved one did (an index grown by
        ``partial_fit`` keeps its segments, so ties are kept alike).

    Raises
    ------
    ValueError
        When a file is missing, truncated or was changed after saving, the
        format version or a class's layout version is unknown, the manifest
        nests too deep or names a class that ``load`` does not build, or a
        saved array breaks its class's invariants (the message names the
        manifest node); no estimator is returned then.
    """
    for subpackage in _SAVED_CLASSES_IN:
        importlib.import_module(f"{__name__}.{subpackage}")
    return importlib.import_module(f"{__name__}.utils").load(path)


def __getattr__(name):
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))
