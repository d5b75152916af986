"""How an embedder's output is compared: the declaration the index reads.

An embedder declares its output with the class attribute
``embedding_metric``:

- ``"hamming"``: integer symbol codes compared position by position. The
  embedder provides ``transform_symbols(X)`` (compact integer codes) and the
  fitted attribute ``n_symbols_`` (codes are in ``[0, n_symbols_)``).
- ``"euclidean"`` or ``"inner_product"``: dense float vectors from
  ``transform(X)``.
- ``"cosine"``: sparse rows from ``transform(X)`` (scipy CSR), compared by
  cosine similarity (:class:`~sklearn_ed.QGramEmbedder`).

A :class:`~sklearn.pipeline.Pipeline` declares what its last step declares,
and embeds through its earlier steps first, so a Pipeline ending in an
embedder is indexed exactly like the embedder itself.
"""

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.pipeline import Pipeline

from ..utils import saved_class
from ._kernels import pack_one_hot

EMBEDDING_METRICS = ("hamming", "euclidean", "inner_product", "cosine")


@dataclass(frozen=True)
@saved_class()
class EmbeddingSpec:
    """What the index needs to know about a fitted embedder's output.

    Parameters
    ----------
    metric : {"hamming", "euclidean", "inner_product", "cosine"}
        Distance between embedded items.
    n_symbols : int or None
        Number of distinct symbol values (``"hamming"`` only).
    """

    metric: str
    n_symbols: int | None = None


def _last_step(embedder):
    return embedder.steps[-1][1] if isinstance(embedder, Pipeline) else embedder


def embedding_spec(embedder):
    """The :class:`EmbeddingSpec` a fitted embedder (or Pipeline) declares.

    Parameters
    ----------
    embedder : transformer or Pipeline
        A fitted embedder. Transformers that declare nothing (scikit-learn
        transformers, the identity) are compared by Euclidean distance.

    Returns
    -------
    spec : EmbeddingSpec
        The declared metric, and the symbol count of symbol codes.
    """
    last = _last_step(embedder)
    metric = getattr(last, "embedding_metric", "euclidean")
    if metric not in EMBEDDING_METRICS:
        raise ValueError(
            f"{type(last).__name__}.embedding_metric must be one of "
            f"{EMBEDDING_METRICS}, got {metric!r}."
        )
    if metric != "hamming":
        return EmbeddingSpec(metric)
    missing = [name for name in ("transform_symbols", "n_symbols_") if not hasattr(last, name)]
    if missing:
        raise ValueError(
            f"{type(last).__name__} declares embedding_metric='hamming' but has no "
            f"{' and no '.join(missing)}: a Hamming embedder must provide "
            "transform_symbols(X) (integer codes) and the fitted n_symbols_."
        )
    return EmbeddingSpec(metric, int(last.n_symbols_))


def embed_for_index(embedder, X):
    """Embed ``X`` in the form the index stores (symbol codes or float32 vectors).

    Parameters
    ----------
    embedder : transformer or Pipeline
        A fitted embedder.
    X : array-like
        Items to embed.

    Returns
    -------
    embedding : ndarray of shape (n_samples, n_features)
        Integer symbol codes for ``"hamming"`` embedders, float32 otherwise.
    """
    spec = embedding_spec(embedder)
    if isinstance(embedder, Pipeline):
        for _, step in embedder.steps[:-1]:
            if step is not None and step != "passthrough":
                X = step.transform(X)
    last = _last_step(embedder)
    if spec.metric == "hamming":
        return last.transform_symbols(X)
    output = last.transform(X)
    if spec.metric == "cosine":
        return output.tocsr() if sparse.issparse(output) else sparse.csr_matrix(output)
    if sparse.issparse(output):
        raise ValueError(
            f"{type(last).__name__} returns sparse rows but declares "
            f"embedding_metric={spec.metric!r}; sparse embeddings are compared by cosine: "
            "declare embedding_metric = 'cosine'."
        )
    return np.ascontiguousarray(output, dtype=np.float32)


def pack_symbol_codes(symbols, n_symbols):
    """Pack symbol codes one-hot into bytes (bit Hamming = 2 x symbol Hamming).

    Parameters
    ----------
    symbols : ndarray of int, shape (n_samples, n_positions)
        Codes in ``[0, n_symbols)``.
    n_symbols : int
        Number of symbol values.

    Returns
    -------
    packed : ndarray of uint8, shape (n_samples, n_bytes)
        ``n_bytes`` is ``n_positions * n_symbols`` bits rounded up to a
        multiple of 8 bytes (faiss binary indexes read whole words).
    """
    symbols = np.ascontiguousarray(symbols)
    if symbols.ndim != 2:
        raise ValueError(f"symbol codes must be 2-D, got shape {symbols.shape}.")
    if symbols.size and (symbols.min() < 0 or symbols.max() >= n_symbols):
        raise ValueError(
            f"symbol codes must lie in [0, {n_symbols}); got values in "
            f"[{symbols.min()}, {symbols.max()}]."
        )
    n_bytes = packed_width(symbols.shape[1], n_symbols)
    out = np.empty((symbols.shape[0], n_bytes), dtype=np.uint8)
    pack_one_hot(symbols, n_symbols, out)
    return out


def packed_width(n_positions, n_symbols):
    """Bytes per item of one-hot packed codes, a multiple of 8."""
    n_bits = max(n_positions * n_symbols, 1)
    return -(-n_bits // 64) * 8


def pairwise_embedding_distances(query_embedding, base_embedding, metric, n_symbols=None):
    """Full matrix of embedding distances (for evaluation, not for search).

    Parameters
    ----------
    query_embedding, base_embedding : ndarray of shape (n, n_features)
        Symbol codes (``"hamming"``) or float vectors.
    metric : {"hamming", "euclidean", "inner_product"}
        Distance between embedded items.
    n_symbols : int, default=None
        Number of symbol values; ``None`` takes the largest code plus one.

    Returns
    -------
    distances : ndarray of float64, shape (n_queries, n_base)
        Symbol mismatches, Euclidean distances or negated inner products.
    """
    import faiss

    if metric == "hamming":
        if n_symbols is None:
            n_symbols = (
                int(max(np.max(query_embedding, initial=0), np.max(base_embedding, initial=0))) + 1
            )
        queries = pack_symbol_codes(np.asarray(query_embedding, dtype=np.int64), n_symbols)
        base = pack_symbol_codes(np.asarray(base_embedding, dtype=np.int64), n_symbols)
        out = np.empty((len(queries), len(base)), dtype=np.int32)
        faiss.hammings(
            faiss.swig_ptr(queries),
            faiss.swig_ptr(base),
            len(queries),
            len(base),
            queries.shape[1],
            faiss.swig_ptr(out),
        )
        return out / 2.0
    if metric == "cosine":
        from sklearn.preprocessing import normalize

        similarity = (
            normalize(sparse.csr_matrix(query_embedding))
            @ normalize(sparse.csr_matrix(base_embedding)).T
        )
        return 1.0 - similarity.toarray().astype(np.float64)
    queries = np.ascontiguousarray(query_embedding, dtype=np.float32)
    base = np.ascontiguousarray(base_embedding, dtype=np.float32)
    if metric == "inner_product":
        return -(queries.astype(np.float64) @ base.T.astype(np.float64))
    squared = faiss.pairwise_distances(queries, base, faiss.METRIC_L2).astype(np.float64)
    return np.sqrt(np.maximum(squared, 0.0))


def paired_embedding_distances(a, b, metric):
    """Embedding distance of row ``a[i]`` to row ``b[i]``, for every i.

    Parameters
    ----------
    a, b : ndarray or sparse matrix of shape (n, n_features)
        Symbol codes, float vectors or sparse rows, as the metric takes.
    metric : {"hamming", "euclidean", "inner_product", "cosine"}
        Distance between embedded items.

    Returns
    -------
    distances : ndarray of float64, shape (n,)
        In the units of :func:`pairwise_embedding_distances`.
    """
    if metric == "cosine":
        from sklearn.preprocessing import normalize

        products = normalize(sparse.csr_matrix(a)).multiply(normalize(sparse.csr_matrix(b)))
        return 1.0 - np.asarray(products.sum(axis=1), dtype=np.float64).ravel()
    if metric == "hamming":
        return (np.asarray(a) != np.asarray(b)).sum(axis=1).astype(np.float64)
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if metric == "inner_product":
        return -np.einsum("ij,ij->i", a, b)
    difference = a - b
    return np.sqrt(np.einsum("ij,ij->i", difference, difference))


def embedder_pairwise_distances(embedder, X, Y=None):
    """Embedding distances between items as a fitted embedder declares them.

    Parameters
    ----------
    embedder : transformer or Pipeline
        A fitted embedder.
    X : array-like
        Query items.
    Y : array-like, default=None
        Base items; ``None`` means ``X``.

    Returns
    -------
    distances : ndarray of float64, shape (n_x, n_y)
        Embedding distances in the units of the declared metric.
    """
    spec = embedding_spec(embedder)
    query_embedding = embed_for_index(embedder, X)
    base_embedding = query_embedding if Y is None else embed_for_index(embedder, Y)
    return pairwise_embedding_distances(
        query_embedding, base_embedding, spec.metric, spec.n_symbols
    )
