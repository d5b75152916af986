"""The bytes of a serialized faiss index, checked before faiss reads them.

faiss deserializes what it is given without checking it against itself: a
size is trusted before the bytes behind it are read (a list of 2**39
entries is allocated, then found missing), and nothing checks that a graph
neighbor, a list's id or a row size fits the index. A search then reads or
writes outside its arrays. So the bytes of a saved index are parsed here
first, in faiss's layout (``faiss/impl/index_read.cpp``), for the seven
indexes that sklearn-ed writes (flat, HNSW and inverted lists, float and
binary), and refused unless every size fits the bytes and the index's
invariants hold: the dimension and metric expected, ``ntotal`` rows of
stored codes, graph levels and neighbors within the index, inverted lists
holding each item once.
"""

import struct

import numpy as np

from ..utils import SavedStateError, saved_array

# faiss's metric codes in an index header.
METRIC_INNER_PRODUCT, METRIC_L2 = 0, 1
# The fourcc of each index: flat by metric (None: binary), the others by
# structure and whether binary.
_FLAT = {METRIC_INNER_PRODUCT: "IxFI", METRIC_L2: "IxF2", None: "IBxF"}
_STRUCTURES = {"hnsw": ("IHNf", "IBHf"), "ivf": ("IwFl", "IBwF")}
_PART = "_index"


def check_faiss_bytes(data, kind, d, metric=None):
    """Raise :class:`SavedStateError` unless ``data`` is a faiss index as sklearn-ed saves it.

    Parameters
    ----------
    data : ndarray of uint8
        What ``faiss.serialize_index`` (or ``serialize_index_binary``) wrote.
    kind : {"flat", "hnsw", "ivf"}
        The structure expected.
    d : int
        Its dimension (bits for a binary index).
    metric : {0, 1} or None
        faiss metric code of a float index; ``None`` for a binary index.

    Returns
    -------
    ntotal : int
        The number of items it holds.
    """
    reader = _Reader(data)
    if kind == "flat":
        ntotal = _flat(reader, d, metric)
    else:
        fourcc = reader.fourcc()
        if fourcc != _STRUCTURES[kind][metric is None]:
            raise SavedStateError(_PART, f"a faiss {fourcc!r} index, not a {kind} one")
        header = _header(reader, d, metric)
        ntotal = header["ntotal"]
        if kind == "hnsw":
            _check_graph(reader, ntotal)
            if _flat(reader, d, metric) != ntotal:
                raise SavedStateError(_PART, "the graph and its storage hold different items")
        else:
            _check_inverted_lists(reader, header, d, metric)
    if reader.left():
        raise SavedStateError(_PART, f"{reader.left()} bytes after the index")
    return ntotal


class _Reader:
    """Reads faiss's little-endian fields, never past the end of the bytes."""

    def __init__(self, data):
        self.data, self.at = memoryview(np.ascontiguousarray(data, dtype=np.uint8)), 0

    def left(self):
        return len(self.data) - self.at

    def take(self, size):
        if not 0 <= size <= self.left():
            raise SavedStateError(_PART, "the faiss index is truncated")
        self.at += size
        return self.data[self.at - size : self.at]

    def field(self, code):
        return struct.unpack("<" + code, self.take(struct.calcsize(code)))[0]

    def fourcc(self):
        return bytes(self.take(4)).decode("latin-1")

    def vector(self, dtype, scale=1):
        """A faiss vector: its length (times ``scale`` items), then its items."""
        size = self.field("Q") * scale
        itemsize = np.dtype(dtype).itemsize
        if size > self.left() // itemsize:
            raise SavedStateError(_PART, "a faiss vector is longer than the bytes left")
        return np.frombuffer(self.take(size * itemsize), dtype=dtype)


def _header(reader, d, metric):
    """An index header of dimension ``d`` and ``metric``, trained."""
    if metric is None:
        found, code_size, ntotal, trained, _ = (reader.field(c) for c in "iiq?i")
        if found % 8 or code_size != found // 8:
            raise SavedStateError(_PART, f"{code_size} bytes per code of {found} bits")
    else:
        found, ntotal, _, _, trained, found_metric = (reader.field(c) for c in "iqqq?i")
        code_size = 4 * found
        if found_metric != metric:
            raise SavedStateError(_PART, f"metric {found_metric}, not {metric}")
    if found != d or d <= 0:
        raise SavedStateError(_PART, f"dimension {found}, not {d}")
    if ntotal < 0 or not trained:
        raise SavedStateError(_PART, f"{ntotal} items, {'' if trained else 'un'}trained")
    return {"ntotal": ntotal, "size": code_size}


def _flat(reader, d, metric):
    """A flat index (an index, a graph's storage, the lists' centroids): its
    ``ntotal`` rows of codes. Returns ``ntotal``."""
    fourcc = reader.fourcc()
    if fourcc != _FLAT[metric]:
        raise SavedStateError(_PART, f"a faiss {fourcc!r} index, not {_FLAT[metric]!r}")
    header = _header(reader, d, metric)
    # Float codes are counted in floats (faiss's READXBVECTOR), binary ones in bytes.
    codes = reader.vector(np.uint8, scale=1 if metric is None else 4)
    if len(codes) != header["ntotal"] * header["size"]:
        raise SavedStateError(_PART, f"{len(codes)} bytes of codes for {header['ntotal']} items")
    return header["ntotal"]


def _check_graph(reader, ntotal):
    """An HNSW graph: each item's neighbors at each of its levels are items
    that reach that level (faiss's search walks them unchecked)."""
    probas = reader.vector(np.float64)
    cumulative = saved_array(
        reader.vector(np.int32), "_index (hnsw)", "i", shape=(len(probas) + 1,), low=0
    )
    if cumulative[0] != 0 or (np.diff(cumulative) < 0).any():
        raise SavedStateError(_PART, "the HNSW neighbors per level do not add up")
    levels = saved_array(
        reader.vector(np.int32), "_index (hnsw)", "i", shape=(ntotal,), low=1, high=len(probas) + 1
    )
    offsets = reader.vector(np.uint64).astype(np.int64)
    sizes = cumulative[levels]
    if len(offsets) != ntotal + 1 or offsets[0] != 0 or (np.diff(offsets) != sizes).any():
        raise SavedStateError(_PART, "the HNSW offsets do not match the levels")
    neighbors = reader.vector(np.int32)
    entry, max_level = reader.field("i"), reader.field("i")
    ef_construction, ef_search, _ = (reader.field("i") for _ in range(3))
    if len(neighbors) != offsets[-1] or min(ef_construction, ef_search) < 1:
        raise SavedStateError(_PART, "the HNSW neighbors do not fill the offsets")
    top = levels.max(initial=0)
    entered = entry == -1 if ntotal == 0 else 0 <= entry < ntotal and levels[entry] == top
    if max_level != top - 1 or not entered:
        raise SavedStateError(_PART, "the HNSW entry point is not an item of the top level")
    # The level of each neighbor slot: its position in its item's slots, placed
    # among the cumulative counts of neighbors per level.
    position = np.arange(len(neighbors)) - np.repeat(offsets[:-1], sizes)
    slot_level = np.searchsorted(cumulative, position, side="right") - 1
    saved_array(neighbors, "_index (hnsw neighbors)", "i", shape=(None,), low=-1, high=ntotal)
    linked = neighbors >= 0
    if (levels[neighbors[linked]] <= slot_level[linked]).any():
        raise SavedStateError(_PART, "an HNSW neighbor is not on the level it is linked at")


def _check_inverted_lists(reader, header, d, metric):
    """Inverted lists: a flat quantizer of ``nlist`` centroids, no direct map,
    and lists of codes whose ids are each item once."""
    nlist, nprobe = reader.field("Q"), reader.field("Q")
    centroids = _flat(reader, d, metric)
    if nlist < 1 or nprobe < 1 or centroids != nlist:
        raise SavedStateError(_PART, f"{nlist} lists, {centroids} centroids")
    map_type = reader.field("b")
    if map_type != 0 or len(reader.vector(np.int64)):
        raise SavedStateError(_PART, "an inverted index with a direct map")
    if reader.fourcc() != "ilar" or reader.field("Q") != nlist:
        raise SavedStateError(_PART, "not array inverted lists, one per centroid")
    code_size = reader.field("Q")
    if code_size != header["size"] or reader.fourcc() != "full":
        raise SavedStateError(_PART, f"lists of {code_size}-byte codes")
    sizes = reader.vector(np.uint64)
    if len(sizes) != nlist or sizes.sum(dtype=np.float64) != header["ntotal"]:
        raise SavedStateError(_PART, "the lists' sizes do not add up to the items")
    ids = []
    for size in map(int, sizes[sizes > 0]):
        reader.take(size * code_size)
        ids.append(np.frombuffer(reader.take(size * 8), dtype=np.int64))
    ids = np.concatenate([np.zeros(0, dtype=np.int64), *ids])
    saved_array(ids, "_index (ivf ids)", "i", shape=(None,), low=0, high=header["ntotal"])
    if (np.bincount(ids, minlength=header["ntotal"]) != 1).any():
        raise SavedStateError(_PART, "the inverted lists do not hold each item once")
