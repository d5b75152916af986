"""What :func:`sklearn_ed.load` may build: every class and function by exact name.

A saved manifest names the classes and functions of the object tree it
describes. The loader looks each name up in these tables and nothing else:
a name that is not here is refused, and the module imported for a name that
is here is the one written below, never a module named by the file.

Each table says what the loader does with its entries:

- ``OBJECTS``: created without calling ``__init__`` and given their saved
  attributes (estimators) or their ``__setstate__`` (the others);
- ``INDEXES``: the vector indexes, rebuilt from their engine bytes;
- ``TORCH_MODULES``: networks, constructed from plain keyword arguments and
  given a ``state_dict`` read with ``torch.load(weights_only=True)``;
- ``CLASSES``: classes stored as values (a metric's lower bound);
- ``FUNCTIONS``: functions stored as values (a metric's kernels).

Saving refuses any object outside these tables (use pickle for those), so a
directory written by :func:`sklearn_ed.save` always loads.
"""

_NEIGHBORS = "sklearn_ed.neighbors."
_EMBEDDING = "sklearn_ed.embedding."
_DISTANCES = "sklearn_ed.distances."
_INDEX = "sklearn_ed.index."
_NN = "sklearn_ed.nn."


def _names(prefix, entries):
    """``{"package._module.Name": ("package._module", "Name")}`` for each entry."""
    table = {}
    for module, names in entries.items():
        for name in names.split():
            table[f"{prefix}{module}.{name}"] = (f"{prefix}{module}", name)
    return table


OBJECTS = {
    **_names(
        _NEIGHBORS,
        {
            "_unsupervised": "FilterRefineNeighbors",
            "_classification": "FilterRefineClassifier",
            "_regression": "FilterRefineRegressor",
            "_graph": "FilterRefineTransformer",
            "_recall_check": "RecallCheck",
            "_search": "FittedSearch",
        },
    ),
    **_names(
        _EMBEDDING,
        {
            "_cgk": "CGKEmbedder",
            "_qgram": "QGramEmbedder",
            "_cnned": "CNNEDEmbedder",
            "_gru": "GRUEmbedder",
            "_triplet": "TripletMinedEmbedder",
            "_fastmap": "FastMapEmbedder",
            "_cluster_metric": "ClusterMetricLearner",
        },
    ),
    **_names(
        _DISTANCES,
        {
            "_registry": "Metric",
            "_bounds": "LevenshteinBound HalvedLevenshteinBound NormalizedBound LengthRatioBound",
            "_dtw_bounds": "DTWBound",
            "_deletions": "DeletionIndex",
        },
    ),
    **_names(_INDEX, {"_codes": "EmbeddingSpec"}),
    **_names("sklearn_ed.dedup.", {"_deduplicator": "StringDeduplicator"}),
    **_names(_NN, {"_training_distances": "TrainingDistances"}),
    **_names("sklearn_ed.utils.", {"_strings": "Alphabet", "_qgrams": "CodeTable"}),
    # scikit-learn estimators that sklearn-ed's own hold or that wrap them.
    **_names("sklearn.", {"feature_extraction.text": "TfidfTransformer"}),
    **_names("sklearn.", {"pipeline": "Pipeline", "frozen._frozen": "FrozenEstimator"}),
}

INDEXES = _names(
    _INDEX,
    {
        "_faiss": "FlatIndex HNSWIndex IVFIndex",
        "_sparse": "SparseCosineIndex",
        "_nndescent": "NNDescentIndex",
    },
)

TORCH_MODULES = _names(
    _NN,
    {
        "_modules": "CNNEDModule",
        "_gru": "GRUModule LearnedCGKPrime",
        "_metric_networks": "MLPEmbeddingNet Conv1dEmbeddingNet",
    },
)

CLASSES = _names(
    _DISTANCES,
    {
        "_bounds": "LevenshteinBound HalvedLevenshteinBound NormalizedBound LengthRatioBound",
        "_dtw_bounds": "DTWBound",
    },
)

FUNCTIONS = _names(
    _DISTANCES,
    {
        "_levenshtein": "levenshtein_pairwise levenshtein_paired levenshtein_oracle",
        "_hamming": "hamming_pairwise hamming_paired hamming_oracle",
        "_euclidean": "euclidean_pairwise euclidean_oracle",
        "_dtw": "dtw_band_pairwise dtw_oracle",
        "_chamfer": "chamfer_pairwise chamfer_oracle chamfer_image_pairwise chamfer_image_oracle",
        "_deletions": "deletion_index",
        "_halves": "halves_index",
        "_string_scorers": "scorer_pairwise scorer_paired scorer_oracle",
    },
)

# Where sklearn-ed 0.1.0 kept the estimators: its directories still load.
_MOVED = {
    "sklearn_ed._cgk.": "sklearn_ed.embedding._cgk.",
    "sklearn_ed._cnned.": "sklearn_ed.embedding._cnned.",
    "sklearn_ed._gru.": "sklearn_ed.embedding._gru.",
    "sklearn_ed._triplet.": "sklearn_ed.embedding._triplet.",
    "sklearn_ed._fastmap.": "sklearn_ed.embedding._fastmap.",
    "sklearn_ed._cluster_metric.": "sklearn_ed.embedding._cluster_metric.",
    "sklearn_ed._qgram_embedder.": "sklearn_ed.embedding._qgram.",
    "sklearn_ed._strings.": "sklearn_ed.utils._strings.",
}


def current_name(name):
    """The qualified name under which a class saved by 0.1.0 lives today."""
    for old, new in _MOVED.items():
        if name.startswith(old):
            return new + name[len(old) :]
    return name
