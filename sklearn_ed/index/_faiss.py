"""faiss backends: exact scans, HNSW graphs and binary inverted lists.

Dense vectors go to faiss's float indexes, symbol codes (one-hot packed into
bits) to its binary indexes, whose Hamming distance is a popcount.
"""

import threading
import warnings

import faiss
import numpy as np

from ..utils import saved_class
from ._base import BaseIndex
from ._codes import packed_width
from ._faiss_format import METRIC_INNER_PRODUCT, METRIC_L2, check_faiss_bytes


def _serialize(index):
    if isinstance(index, faiss.IndexBinary):
        return faiss.serialize_index_binary(index)
    return faiss.serialize_index(index)


def _on_gpu(index, device):
    """``index`` moved to every GPU for ``device="cuda"``, when faiss can; else as is."""
    if device != "cuda" or isinstance(index, faiss.IndexBinary):
        if device == "cuda":
            warnings.warn(
                "faiss has no GPU version of binary indexes; the symbol-code "
                "index stays on the CPU.",
                UserWarning,
                stacklevel=4,
            )
        return index
    if not hasattr(faiss, "StandardGpuResources") or faiss.get_num_gpus() == 0:
        warnings.warn(
            "index_params device='cuda' but this faiss build sees no GPU "
            "(install faiss-gpu on a CUDA machine); the index runs on the CPU.",
            UserWarning,
            stacklevel=4,
        )
        return index
    return faiss.index_cpu_to_all_gpus(index)


class FaissIndex(BaseIndex):
    """Shared plumbing of the faiss backends: serialization and the exact scan."""

    #: The faiss structure of the backend's engine (see ``check_faiss_bytes``).
    _structure = "flat"

    def __init__(self, metric, *, n_symbols=None, chunk_size=4096, device="cpu"):
        super().__init__(metric, n_symbols=n_symbols, chunk_size=chunk_size)
        if device not in ("cpu", "cuda"):
            raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}.")
        self.device = device

    def _serialize(self, index):
        if (
            self.device == "cuda"
            and hasattr(faiss, "index_gpu_to_cpu")
            and not isinstance(index, faiss.IndexBinary)
            and faiss.get_num_gpus()
        ):
            index = faiss.index_gpu_to_cpu(index)
        return _serialize(index)

    def _deserialize(self, data):
        # faiss trusts the sizes and ids it reads: the bytes are checked first.
        if self.metric == "hamming":
            check_faiss_bytes(data, self._structure, 8 * packed_width(self._dim, self.n_symbols))
            return _on_gpu(faiss.deserialize_index_binary(data), self.device)
        metric = METRIC_L2 if self.metric == "euclidean" else METRIC_INNER_PRODUCT
        check_faiss_bytes(data, self._structure, self._dim, metric)
        return _on_gpu(faiss.deserialize_index(data), self.device)

    def _n_bits(self, vectors):
        return vectors.shape[1] * 8

    def _flat(self, vectors):
        """An exact-scan faiss index for rows like ``vectors``."""
        if self.metric == "hamming":
            return faiss.IndexBinaryFlat(self._n_bits(vectors))
        if self.metric == "euclidean":
            return faiss.IndexFlatL2(vectors.shape[1])
        return faiss.IndexFlatIP(vectors.shape[1])


@saved_class("index")
class FlatIndex(FaissIndex):
    """Exact scan of every item (faiss flat indexes: BLAS, or popcount on bits).

    Ties at the k-th distance keep the items of smallest index, so the
    candidates of symbol codes equal the first ``k`` of a stable sort of the
    symbol Hamming distances.

    Parameters
    ----------
    metric : {"hamming", "euclidean", "inner_product"}
        Distance between embedded items.
    n_symbols : int, default=None
        Number of symbol values of ``"hamming"`` codes.
    chunk_size : int, default=4096
        Queries searched at once.
    device : {"cpu", "cuda"}, default="cpu"
        ``"cuda"`` moves dense indexes to every GPU when faiss has GPU
        support, and warns and stays on the CPU otherwise (binary indexes
        have no GPU version).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.index import FlatIndex
    >>> codes = np.array([[2, 3, 4], [2, 3, 5], [5, 5, 5]])
    >>> index = FlatIndex("hamming", n_symbols=6).add(codes)
    >>> index.search(np.array([[2, 3, 4]]), k=2)
    (array([[0., 1.]]), array([[0, 1]]))
    """

    def _create(self, vectors):
        return _on_gpu(self._flat(vectors), self.device)


@saved_class("index")
class HNSWIndex(FaissIndex):
    """Hierarchical navigable small-world graph (faiss ``IndexHNSWFlat`` or
    ``IndexBinaryHNSW``): approximate search whose cost grows slowly with the
    number of items.

    The search breadth of a query asking for ``k`` items is
    ``max(ef_search, ef_factor * k)``; it is passed with each search, never
    stored, so concurrent searches do not interfere.

    Parameters
    ----------
    metric : {"hamming", "euclidean", "inner_product"}
        Distance between embedded items.
    n_symbols : int, default=None
        Number of symbol values of ``"hamming"`` codes.
    M : int, default=32
        Graph degree (faiss ``M``): more links, better recall, more memory.
    ef_construction : int, default=80
        Search breadth while inserting items.
    ef_search : int, default=64
        Least search breadth of a query.
    ef_factor : float, default=1.0
        Search breadth per requested item.
    chunk_size : int, default=4096
        Queries searched at once.
    """

    _structure = "hnsw"
    _saved_bounds = {"M": (1, None), "ef_construction": (1, None), "ef_search": (1, None)}

    def __init__(
        self,
        metric,
        *,
        n_symbols=None,
        M=32,
        ef_construction=80,
        ef_search=64,
        ef_factor=1.0,
        chunk_size=4096,
    ):
        # faiss has no GPU HNSW: the graph always runs on the CPU.
        super().__init__(metric, n_symbols=n_symbols, chunk_size=chunk_size)
        self.M = M
        self.ef_construction = ef_construction
        self.ef_search = ef_search
        self.ef_factor = ef_factor

    def _create(self, vectors):
        if self.metric == "hamming":
            index = faiss.IndexBinaryHNSW(self._n_bits(vectors), self.M)
        else:
            faiss_metric = (
                faiss.METRIC_L2 if self.metric == "euclidean" else faiss.METRIC_INNER_PRODUCT
            )
            index = faiss.IndexHNSWFlat(vectors.shape[1], self.M, faiss_metric)
        index.hnsw.efConstruction = self.ef_construction
        return index

    def _search(self, vectors, k):
        breadth = max(self.ef_search, int(np.ceil(self.ef_factor * k)))
        return self._index.search(vectors, k, params=faiss.SearchParametersHNSW(efSearch=breadth))

    def _search_exhaustive(self, vectors, k):
        return self._index.storage.search(vectors, k)

    def _range_search(self, vectors, radius):
        # Exact: the graph's own storage is a flat index.
        return self._index.storage.range_search(vectors, radius)


# Training rows per list of the inverted lists' k-means.
_TRAIN_PER_LIST = 40


@saved_class("index")
class IVFIndex(FaissIndex):
    """Inverted lists (faiss ``IndexBinaryIVF`` / ``IndexIVFFlat``): items are
    grouped around ``n_lists`` centroids learnt from the first items added,
    and a query scans the ``n_probe`` nearest lists.

    Long symbol codes (reads of a thousand characters) suit inverted lists
    better than a graph: the lists grow with the square root of the items.

    Parameters
    ----------
    metric : {"hamming", "euclidean", "inner_product"}
        Distance between embedded items.
    n_symbols : int, default=None
        Number of symbol values of ``"hamming"`` codes.
    n_lists : int, default=None
        Number of lists; ``None`` means ``sqrt(n_items_hint)``, at most one
        list per 39 items of the first :meth:`add` (its k-means sample).
    n_probe : int, default=None
        Lists scanned per query; ``None`` means ``max(1, n_lists // 8)``.
    n_items_hint : int, default=None
        Expected number of items (sizes ``n_lists``); ``None`` uses the rows
        of the first :meth:`add`. The centroids are learnt from up to 40
        random rows per list of the first :meth:`add`.
    chunk_size : int, default=4096
        Queries searched at once.
    random_state : int, default=0
        Seeds the k-means that learns the centroids.
    device : {"cpu", "cuda"}, default="cpu"
        As for :class:`FlatIndex`.
    """

    _structure = "ivf"
    _saved_bounds = {"n_lists": (1, None), "n_probe": (1, None)}
    _made_on_load = {"_range_lock": threading.Lock}

    def __init__(
        self,
        metric,
        *,
        n_symbols=None,
        n_lists=None,
        n_probe=None,
        n_items_hint=None,
        chunk_size=4096,
        random_state=0,
        device="cpu",
    ):
        super().__init__(metric, n_symbols=n_symbols, chunk_size=chunk_size, device=device)
        self.n_lists = n_lists
        self.n_probe = n_probe
        self.n_items_hint = n_items_hint
        self.random_state = random_state
        self._range_lock = threading.Lock()

    def _resolved_lists(self, n_first):
        if self.n_lists is not None:
            return max(1, min(self.n_lists, n_first))
        n_items = self.n_items_hint or n_first
        # k-means wants ~39 training items per centroid.
        return int(np.clip(np.sqrt(n_items), 1, max(1, min(65536, n_first // 39))))

    def _create(self, vectors):
        n_lists = self._resolved_lists(len(vectors))
        quantizer = self._flat(vectors)
        if self.metric == "hamming":
            index = faiss.IndexBinaryIVF(quantizer, self._n_bits(vectors), n_lists)
        else:
            faiss_metric = (
                faiss.METRIC_L2 if self.metric == "euclidean" else faiss.METRIC_INNER_PRODUCT
            )
            index = faiss.IndexIVFFlat(quantizer, vectors.shape[1], n_lists, faiss_metric)
        index.cp.seed = int(self.random_state or 0)
        index.cp.min_points_per_centroid = 1  # n_lists is sized above; no warning
        # k-means on a sample: faiss converts binary training rows to floats
        # (4 bytes per bit), so all of a large first batch would not fit.
        sample = np.random.default_rng(self.random_state or 0).permutation(len(vectors))
        index.train(np.ascontiguousarray(vectors[np.sort(sample[: _TRAIN_PER_LIST * n_lists])]))
        return _on_gpu(index, self.device)

    def _probes(self):
        if self.n_probe is not None:
            return self.n_probe
        n_lists = self._index.nlist
        return n_lists if n_lists <= 8 else n_lists // 8

    def _params(self, n_probe):
        return faiss.SearchParametersIVF(nprobe=int(min(n_probe, self._index.nlist)))

    def _search(self, vectors, k):
        return self._index.search(vectors, k, params=self._params(self._probes()))

    def _search_exhaustive(self, vectors, k):
        return self._index.search(vectors, k, params=self._params(self._index.nlist))

    def _range_search(self, vectors, radius):
        if self.metric != "hamming":
            return self._index.range_search(vectors, radius, params=self._params(self._probes()))
        # faiss's binary inverted lists take no per-call parameters in a range
        # search: set the probes under a lock (plain searches pass theirs).
        with self._range_lock:
            self._index.nprobe = int(min(self._probes(), self._index.nlist))
            return self._index.range_search(vectors, radius)
