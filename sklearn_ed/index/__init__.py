"""The filter stage: vector indexes over embedded items.

Every backend follows one contract (:class:`BaseIndex`): ``add`` embedded
items, ``search`` the k nearest, ``range_search`` within a distance, pickle
(the engine index is serialized, not rebuilt). Searches are read-only and
safe from many threads.

======================  ======================================================
``filter_algorithm``    backend
======================  ======================================================
``"brute"``             :class:`FlatIndex`: exact scan (faiss flat; popcount)
``"hnsw"``              :class:`HNSWIndex`: faiss HNSW graph
``"ivf"``               :class:`IVFIndex`: faiss inverted lists
``"nndescent"``         :class:`NNDescentIndex`: pynndescent graph
(sparse embeddings)     :class:`SparseCosineIndex`: top-n cosine product
``"auto"``              exact scan while a query reads at most 32 MiB of
                        codes, then HNSW; symbol codes wider than 512
                        packed bytes (long reads) always take the scan
======================  ======================================================
"""

from ._base import BaseIndex, sort_by_value, sort_rows
from ._codes import (
    EmbeddingSpec,
    embed_for_index,
    embedder_pairwise_distances,
    embedding_spec,
    pack_symbol_codes,
    paired_embedding_distances,
    pairwise_embedding_distances,
)
from ._factory import INDEX_ALGORITHMS, make_index, resolve_algorithm
from ._faiss import FlatIndex, HNSWIndex, IVFIndex
from ._nndescent import NNDescentIndex
from ._sparse import SparseCosineIndex

__all__ = [
    "INDEX_ALGORITHMS",
    "BaseIndex",
    "EmbeddingSpec",
    "FlatIndex",
    "HNSWIndex",
    "IVFIndex",
    "NNDescentIndex",
    "SparseCosineIndex",
    "embed_for_index",
    "embedder_pairwise_distances",
    "embedding_spec",
    "make_index",
    "pack_symbol_codes",
    "paired_embedding_distances",
    "pairwise_embedding_distances",
    "resolve_algorithm",
]
