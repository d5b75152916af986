"""Choosing a backend: ``filter_algorithm`` names and the "auto" rule."""

from ._codes import packed_width
from ._faiss import FlatIndex, HNSWIndex, IVFIndex
from ._nndescent import NNDescentIndex
from ._sparse import SparseCosineIndex

#: The ``filter_algorithm`` names and the index class each one builds.
INDEX_ALGORITHMS = {
    "brute": FlatIndex,
    "hnsw": HNSWIndex,
    "ivf": IVFIndex,
    "nndescent": NNDescentIndex,
}

# "auto" scans every item while a query reads at most this many bytes of
# codes: about half a millisecond per query on 2 cores (100,000 CGK-coded
# words, 216 bytes each, benchmarks/results/index_words.txt), where HNSW's
# build cost is not yet repaid by its faster queries.
AUTO_SCAN_MAX_BYTES = 32 * 2**20
# Symbol codes wider than this many packed bytes stay on the exact scan: on
# 100,000 simulated 1 kbp reads (2.5 KB of bits each) neither binary HNSW nor
# inverted lists kept the scan's candidates (IVF: 3.5 % of them probing 5 % of
# the lists; benchmarks/results/index_reads_100k.txt). For long strings a dense
# learned embedding (CNNEDEmbedder) is what a graph index can serve.
AUTO_GRAPH_MAX_CODE_BYTES = 512


def resolve_algorithm(algorithm, spec, n_items, n_features):
    """The backend name "auto" stands for, given the data; others unchanged.

    Parameters
    ----------
    algorithm : {"auto", "brute", "hnsw", "ivf", "nndescent"}
        Requested backend.
    spec : EmbeddingSpec
        The embedder's declaration.
    n_items : int
        Number of items to index.
    n_features : int
        Width of the embedding.

    Returns
    -------
    name : {"brute", "hnsw", "ivf", "nndescent", "sparse"}
        The backend to build ("sparse" for cosine embeddings).
    """
    if spec.metric == "cosine":
        if algorithm not in ("auto", "brute"):
            raise ValueError(
                f"filter_algorithm={algorithm!r} needs dense vectors; sparse cosine "
                "embeddings (QGramEmbedder) use the sparse top-n search: "
                "filter_algorithm='auto' or 'brute'."
            )
        return "sparse"
    if algorithm != "auto":
        if algorithm not in INDEX_ALGORITHMS:
            raise ValueError(
                f"filter_algorithm must be 'auto' or one of {sorted(INDEX_ALGORITHMS)}, "
                f"got {algorithm!r}."
            )
        return algorithm
    item_bytes = (
        packed_width(n_features, spec.n_symbols) if spec.metric == "hamming" else 4 * n_features
    )
    if n_items * item_bytes <= AUTO_SCAN_MAX_BYTES:
        return "brute"
    if spec.metric == "hamming" and item_bytes > AUTO_GRAPH_MAX_CODE_BYTES:
        return "brute"
    return "hnsw"


def make_index(
    algorithm, spec, *, n_items, n_features, params=None, random_state=None, n_jobs=None
):
    """An empty index for embeddings declared by ``spec``.

    Parameters
    ----------
    algorithm : {"auto", "brute", "hnsw", "ivf", "nndescent"}
        Backend; "auto" chooses by :func:`resolve_algorithm`.
    spec : EmbeddingSpec
        The embedder's declaration (metric, symbol count).
    n_items : int
        Expected number of items (sizes inverted lists, decides "auto").
    n_features : int
        Width of the embedding.
    params : dict, default=None
        Construction parameters of the backend (for example ``{"M": 16}``).
    random_state : int or None, default=None
        Seed of backends that draw at random.
    n_jobs : int or None, default=None
        Threads of backends that build in parallel.

    Returns
    -------
    index : BaseIndex
        The empty index; fill it with ``add``.
    """
    name = resolve_algorithm(algorithm, spec, n_items, n_features)
    params = dict(params or {})
    if name == "sparse":
        params.setdefault("n_threads", _threads(n_jobs))
        return _build(SparseCosineIndex, spec.metric, params, name)
    if name == "ivf":
        params.setdefault("n_items_hint", n_items)
        params.setdefault("random_state", random_state if isinstance(random_state, int) else 0)
    elif name == "nndescent":
        params.setdefault("random_state", random_state)
        params.setdefault("n_jobs", n_jobs)
    return _build(INDEX_ALGORITHMS[name], spec.metric, dict(params, n_symbols=spec.n_symbols), name)


def _build(cls, metric, params, name):
    try:
        return cls(metric, **params)
    except TypeError as error:
        raise ValueError(
            f"index_params {sorted(params)} do not fit filter_algorithm={name!r}: {error}"
        ) from None


def _threads(n_jobs):
    from joblib import effective_n_jobs

    n_threads = effective_n_jobs(n_jobs)
    return None if n_threads <= 1 else n_threads
