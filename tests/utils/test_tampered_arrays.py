"""sklearn_ed.load of a folder whose arrays were edited, its hashes rewritten.

The hashes detect damage, not an editor: whoever edits ``arrays.npz`` can
rewrite its SHA-256. Every array that compiled code indexes with (the sparse
rows, the faiss bytes, the walks and alphabet of CGK, the q-gram vocabulary,
a format-1 deletion lookup) is checked before that code reads it, so each
edit below is refused with a ValueError naming its manifest node. Several
crashed the interpreter before (SIGSEGV in scipy's sparse product or in
faiss's graph search, a double free in the CGK kernel), so every folder is
loaded in a child process: a crash fails the test with the folder it died
on, instead of ending the run.
"""

import io
import json
import os
import shutil
import subprocess
import sys

import faiss
import numpy as np
import pytest
from _testing import HAS_NEURAL, random_strings

from sklearn_ed import (
    CGKEmbedder,
    CNNEDEmbedder,
    FastMapEmbedder,
    FilterRefineNeighbors,
    QGramEmbedder,
    save,
)
from sklearn_ed.utils._persistence import _sha256, _tree_sha256

WORDS = random_strings(200, (4, 9), seed=1)
SEARCH = "tree.state.search_.state"
ENGINE = f"{SEARCH}.index.engine"
EMBEDDER = f"{SEARCH}.embedder.state"
# The child's exit status when every folder it was given was refused, each
# with a ValueError naming the node expected.
ALL_REFUSED = 3

REFUSE_ALL = """
import sys
from sklearn_ed import load

for folder, node in zip(sys.argv[1::2], sys.argv[2::2]):
    print(folder, flush=True)
    try:
        load(folder)
    except ValueError as error:
        expected = f"sklearn_ed.load refused the manifest node {node}"
        assert str(error).startswith(expected), (node, str(error))
    else:
        sys.exit(f"{folder} loaded")
sys.exit(3)
"""


def _child(script, *args):
    return subprocess.run(
        [sys.executable, "-c", script, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _estimator(engine):
    settings = {"n_neighbors": 3, "n_candidates": 8, "random_state": 0, "check_recall": False}
    if engine == "sparse":
        return FilterRefineNeighbors(QGramEmbedder(), **settings)
    embedder = {
        "float_hnsw": FastMapEmbedder(n_components=3, random_state=0),
        "cnned": CNNEDEmbedder(
            n_components=8, n_layers=3, max_epochs=1, n_neighbors=5, random_state=0
        ),
    }.get(engine, CGKEmbedder(random_state=0))
    algorithm = {"flat": "brute", "float_hnsw": "hnsw", "cnned": "brute"}.get(engine, engine)
    # Few links per item: the graph then has items on levels above the first.
    params = {"M": 4} if algorithm == "hnsw" else None
    return FilterRefineNeighbors(
        embedder, filter_algorithm=algorithm, index_params=params, **settings
    )


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """``saved(engine)``: a folder of a search fitted with that engine (made once)."""
    folders = {}

    def folder(engine):
        if engine not in folders:
            folders[engine] = save(
                _estimator(engine).fit(WORDS), tmp_path_factory.mktemp(engine) / "saved"
            )
        return folders[engine]

    return folder


def _tampered(source, destination, edit):
    """A copy of the folder ``source`` whose tree and arrays ``edit(tree, arrays)``
    changed in place, with the hashes rewritten as an editor would."""
    shutil.copytree(source, destination)
    with open(os.path.join(destination, "manifest.json")) as file:
        manifest = json.load(file)
    with np.load(os.path.join(destination, "arrays.npz")) as arrays:
        arrays = dict(arrays)
    edit(manifest["tree"], arrays)
    np.savez(os.path.join(destination, "arrays.npz"), **arrays)
    manifest["sha256"]["arrays.npz"] = _sha256(os.path.join(destination, "arrays.npz"))
    manifest["sha256"]["tree"] = _tree_sha256(manifest["tree"])
    with open(os.path.join(destination, "manifest.json"), "w") as file:
        json.dump(manifest, file)
    return destination


def _node(tree, path):
    """The manifest node at ``path`` (as the loader names it) of ``tree``."""
    node = tree
    for name in path.split(".")[1:]:
        node = node[name] if name == "state" else node["items"][name]
    return node


def _engine(edit):
    """An edit of the index's engine bytes by ``edit(bytes) -> bytes``."""

    def edited(tree, arrays):
        key = _node(tree, f"{SEARCH}.index")["engine"]
        arrays[key] = np.frombuffer(bytes(edit(arrays[key].tobytes())), dtype=np.uint8)

    return edited


def _array(path, edit):
    """An edit of the array at ``path`` by ``edit(array) -> array``."""

    def edited(tree, arrays):
        key = _node(tree, path)["key"]
        arrays[key] = edit(arrays[key])

    return edited


def _csr(edit):
    """An edit of the sparse engine's arrays (data, indices, indptr, shape, starts)."""

    def engine(data):
        with np.load(io.BytesIO(data)) as parts:
            parts = dict(parts)
        edit(parts)
        buffer = io.BytesIO()
        np.savez(buffer, **parts)
        return buffer.getvalue()

    return _engine(engine)


def _faiss_index(edit, binary=True):
    """An edit of the deserialized faiss index, serialized again by faiss."""
    read, write = (
        (faiss.deserialize_index_binary, faiss.serialize_index_binary)
        if binary
        else (faiss.deserialize_index, faiss.serialize_index)
    )

    def engine(data):
        index = read(np.frombuffer(data, dtype=np.uint8))
        edit(index)
        return write(index).tobytes()

    return _engine(engine)


def _graph(edit, binary=True):
    """An edit of the HNSW graph's arrays by ``edit(arrays)`` (a dict of them)."""
    names = ("neighbors", "levels", "offsets", "cum_nneighbor_per_level")

    def edited(index):
        arrays = {name: faiss.vector_to_array(getattr(index.hnsw, name)) for name in names}
        edit(arrays, index.hnsw)
        for name in names:
            faiss.copy_array_to_vector(arrays[name], getattr(index.hnsw, name))

    return _faiss_index(edited, binary)


def _off_level(arrays, hnsw):
    """Link every upper-level slot to an item of the first level only: faiss's
    search then reads that item's upper levels, past its slots (SIGSEGV)."""
    levels, first = arrays["levels"], arrays["cum_nneighbor_per_level"]
    offsets = arrays["offsets"].astype(np.int64)
    lowest = np.flatnonzero(levels == 1)[-1]
    for item in np.flatnonzero(levels > 1):
        arrays["neighbors"][offsets[item] + first[1] : offsets[item] + first[levels[item]]] = lowest


def _list_ids(edit):
    """An edit of the inverted lists' ids, list by list, in place."""

    def edited(index):
        lists = faiss.downcast_InvertedLists(index.invlists)
        for number in range(index.nlist):
            if lists.list_size(number):
                edit(faiss.rev_swig_ptr(lists.get_ids(number), lists.list_size(number)))

    return _faiss_index(edited)


def _patched(offset, value, after=b""):
    """Bytes with the int at ``offset`` (past the first ``after``) replaced."""

    def engine(data):
        start = data.index(after) + len(after) + offset if after else offset
        field = np.array(value, dtype=np.int64 if value > 2**31 else np.int32).tobytes()
        return data[:start] + field + data[start + len(field) :]

    return _engine(engine)


def _set(path, value):
    def edited(tree, arrays):
        _node(tree, path)["value"] = value

    return edited


def _fewer_items(tree, arrays):
    """The saved items without their last one (their index still holds it)."""
    items = _node(tree, f"{SEARCH}.items")
    lengths = arrays[items["lengths"]][:-1]
    arrays[items["lengths"]] = lengths
    arrays[items["data"]] = arrays[items["data"]][: lengths.sum()]


def _legacy_near(tree, arrays):
    """A format-1 deletion lookup (``_near``) whose items lie past the base."""
    for key, value in {
        "near_hashes": np.array([1, 2, 3], dtype=np.uint64),
        "near_items": np.array([0, 1, 10**6], dtype=np.int32),
        "near_deleted": np.zeros(3, dtype=np.int8),
    }.items():
        arrays[key] = value
    state = {
        "depth": {"kind": "value", "value": 2},
        "n_items": {"kind": "value", "value": 3},
        "_longest": {"kind": "value", "value": 5},
        "_hashes": {"kind": "array", "key": "near_hashes"},
        "_items": {"kind": "array", "key": "near_items"},
        "_deleted": {"kind": "array", "key": "near_deleted"},
    }
    tree["state"]["items"]["_near"] = {
        "kind": "object",
        "class": "sklearn_ed.distances._deletions.DeletionIndex",
        "state": {"kind": "dict", "items": state},
    }


def _nndescent(edit_engine=lambda data: data, n_neighbors=30):
    """The flat folder's index node made an NNDescentIndex over the same rows
    (fitting one compiles pynndescent for a minute; its engine is the rows)."""

    def edited(tree, arrays):
        node = _node(tree, f"{SEARCH}.index")
        node["class"] = "sklearn_ed.index._nndescent.NNDescentIndex"
        state = node["state"]["items"]
        del state["device"]
        state.update(
            n_neighbors={"kind": "value", "value": n_neighbors},
            random_state={"kind": "value", "value": 0},
            n_jobs={"kind": "value", "value": None},
        )
        rows = faiss.vector_to_array(faiss.deserialize_index_binary(arrays[node["engine"]]).xb)
        arrays[node["engine"]] = np.frombuffer(edit_engine(rows.tobytes()), dtype=np.uint8)

    return edited


def _put(parts, name, edit):
    parts[name] = edit(parts[name])


def _lookup_cut(tree, arrays):
    """CNN-ED's saved lookup table without its last symbol's row."""
    key = _node(tree, f"{EMBEDDER}._lookup")["items"][0]["key"]
    arrays[key] = arrays[key][:-1].copy()


# engine -> {edit: (the edit, the node the refusal names)}
EDITS = {
    "sparse": {
        "columns_past_the_width": (_csr(lambda p: p["indices"].fill(10**9)), ENGINE),
        "negative_column": (_csr(lambda p: p["indices"].__setitem__(0, -1)), ENGINE),
        "row_pointers_not_monotone": (
            _csr(lambda p: p["indptr"].__setitem__(1, p["indptr"][-1] + 5)),
            ENGINE,
        ),
        "row_pointers_past_the_entries": (
            _csr(lambda p: p["indptr"].__setitem__(-1, p["indptr"][-1] + 100)),
            ENGINE,
        ),
        "narrowed_shape": (_csr(lambda p: p["shape"].__setitem__(1, 2)), ENGINE),
        "more_rows_than_pointers": (_csr(lambda p: p["shape"].__setitem__(0, 500)), ENGINE),
        "float_columns": (_csr(lambda p: _put(p, "indices", lambda a: a * 1.0)), ENGINE),
        "columns_in_2d": (_csr(lambda p: _put(p, "indices", lambda a: a[:, None])), ENGINE),
        "segment_past_the_rows": (_csr(lambda p: p.update(starts=np.array([0, 900]))), ENGINE),
        "truncated": (_engine(lambda data: data[: len(data) // 2]), ENGINE),
        "vocabulary_unsorted": (
            _array(f"{EMBEDDER}.vocabulary_", lambda a: a[::-1].copy()),
            f"{EMBEDDER}.vocabulary_",
        ),
        "code_point_past_unicode": (
            _array(f"{EMBEDDER}.alphabet_", lambda a: np.append(a, np.uint32(2**32 - 1))),
            f"{EMBEDDER}.alphabet_",
        ),
        "fewer_items_than_indexed": (_fewer_items, f"{SEARCH}.index"),
        # OpenMP exits the process when it cannot start the threads.
        "a_million_threads": (
            _set(f"{SEARCH}.index.state.n_threads", 10**6),
            f"{SEARCH}.index.state.n_threads",
        ),
        "format_1_deletion_lookup_past_its_items": (_legacy_near, "tree.state._near.state._items"),
    },
    "flat": {
        "more_items_than_codes": (_patched(12, 10**6), ENGINE),
        "no_candidates": (_set("tree.state.n_candidates_", 0), "tree.state.n_candidates_"),
        "brute_force_cost_in_words": (
            _set("tree.state._brute_query_limit", "fast"),
            "tree.state._brute_query_limit",
        ),
        "wider_codes_than_bits": (_patched(8, 1000), ENGINE),
        "truncated": (_engine(lambda data: data[:-9]), ENGINE),
        "walks_shorter_than_codes": (
            _array(f"{EMBEDDER}.walk_bits_", lambda a: a[:, :3].copy()),
            f"{EMBEDDER}.walk_bits_",
        ),
        "fewer_features_than_walked": (
            _set(f"{EMBEDDER}.n_features_out_", 2),
            f"{EMBEDDER}.n_features_out_",
        ),
        "characters_unsorted": (
            _array(f"{EMBEDDER}.alphabet_.state.characters", lambda a: a[::-1].copy()),
            f"{EMBEDDER}.alphabet_.state.characters",
        ),
    },
    "hnsw": {
        "neighbor_past_the_items": (
            _graph(lambda a, h: a["neighbors"].__setitem__(a["neighbors"] >= 0, 10**6)),
            ENGINE,
        ),
        "negative_neighbor": (_graph(lambda a, h: a["neighbors"].fill(-7)), ENGINE),
        "neighbor_off_its_level": (_graph(_off_level), ENGINE),
        "entry_point_past_the_items": (
            _graph(lambda a, h: setattr(h, "entry_point", 10**6)),
            ENGINE,
        ),
        "levels_unlike_offsets": (_graph(lambda a, h: a["levels"].fill(3)), ENGINE),
        "truncated": (_engine(lambda data: data[: len(data) // 3]), ENGINE),
    },
    "float_hnsw": {
        "neighbor_past_the_items": (
            _graph(lambda a, h: a["neighbors"].fill(10**6), binary=False),
            ENGINE,
        ),
        "other_dimension": (_patched(4, 7), ENGINE),
        # faiss's graph search would read the storage's rows past each query.
        "storage_of_another_dimension": (_patched(0, 7, after=b"IxF2"), ENGINE),
        "storage_of_another_metric": (
            _engine(lambda data: data.replace(b"IxF2", b"IxFI")),
            ENGINE,
        ),
    },
    "ivf": {
        "id_past_the_items": (_list_ids(lambda ids: ids.fill(10**9)), ENGINE),
        "negative_id": (_list_ids(lambda ids: ids.fill(-3)), ENGINE),
        "items_listed_twice": (_list_ids(lambda ids: ids.fill(0)), ENGINE),
        # faiss would allocate the 2**36 ids (512 GiB) before finding them missing.
        "list_of_2_36_items": (_patched(8, 2**36, after=b"full"), ENGINE),
        "wider_codes_than_bits": (_patched(8, 1000), ENGINE),
    },
    # A network: its lookup kernel wrote past the output row (heap corruption).
    "cnned": {
        "fewer_features_than_the_network": (
            _set(f"{EMBEDDER}.n_features_out_", 1),
            f"{EMBEDDER}.n_features_out_",
        ),
        "lookup_table_cut": (_lookup_cut, f"{EMBEDDER}._lookup"),
        "more_items_than_codes": (_patched(8, 10**6), ENGINE),
    },
    "nndescent": {
        "rows_cut": (_nndescent(lambda data: data[:-3]), ENGINE),
        "no_neighbors": (_nndescent(n_neighbors=0), f"{SEARCH}.index.state.n_neighbors"),
    },
}


def test_edited_arrays_are_refused_naming_the_node(saved, tmp_path):
    arguments = []
    for engine, edits in EDITS.items():
        if engine == "cnned" and not HAS_NEURAL:
            continue
        source = saved("flat" if engine == "nndescent" else engine)
        for name, (edit, node) in edits.items():
            arguments += [_tampered(source, tmp_path / f"{engine}-{name}", edit), node]
    # One child for all: each costs seconds of imports. A crash names its folder last.
    result = _child(REFUSE_ALL, *arguments)
    assert result.returncode == ALL_REFUSED, (result.returncode, result.stdout, result.stderr)


RANDOM_EDITS = """
import json
import sys
from sklearn_ed import load

outcomes = {"refused": 0, "answered": 0, "raised": 0}
for folder in sys.argv[1:]:
    print(folder, flush=True)
    try:
        search = load(folder)
    except ValueError:
        outcomes["refused"] += 1
        continue
    try:
        search.kneighbors(["ACGTA", "GGG"])
        search.radius_neighbors(["ACGTA"], radius=2)
        outcomes["answered"] += 1
    except Exception:
        outcomes["raised"] += 1
print(json.dumps(outcomes))
"""


def _array_keys(tree):
    """The keys of every array a tree refers to (index engines included)."""
    pending, keys = [tree], []
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            keys += [node[name] for name in ("key", "engine") if name in node]
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return sorted(keys)


def _random_edit(rng):
    """Out-of-range, negative, reshaped, retyped or truncated: one array, at random."""

    def edited(tree, arrays):
        key = str(rng.choice(_array_keys(tree)))
        array, choice = arrays[key], int(rng.integers(6))
        if array.size == 0 or choice == 5:
            arrays[key] = array[: len(array) // 2]
        elif choice == 0 and array.dtype == np.uint8:  # bytes: a few of them changed
            flat = array.reshape(-1).copy()
            flat[rng.integers(array.size, size=4)] = rng.integers(256, size=4)
            arrays[key] = flat.reshape(array.shape)
        elif choice <= 1:
            array = array.astype(np.int64 if array.dtype.kind in "iub" else array.dtype)
            array.flat[rng.integers(array.size)] = rng.choice([-1, 10**9, -(2**40)])
            arrays[key] = array
        elif choice == 2:
            arrays[key] = array.reshape(-1)[:, None] if array.ndim == 1 else array.reshape(-1)
        elif choice == 3:
            arrays[key] = array.astype(np.float64 if array.dtype.kind != "f" else np.int32)
        else:
            arrays[key] = np.concatenate([array, array])

    return edited


def test_randomly_edited_arrays_never_crash_the_interpreter(saved, tmp_path):
    """Any array edited at random: the folder is refused with ValueError, or it
    loads and answers (perhaps otherwise, perhaps by raising), never crashes."""
    rng = np.random.default_rng(0)
    folders = [
        _tampered(saved(engine), tmp_path / f"{engine}{i}", _random_edit(rng))
        for engine in ("sparse", "flat", "hnsw", "ivf", "float_hnsw")
        for i in range(6)
    ]
    result = _child(RANDOM_EDITS, *folders)
    assert result.returncode == 0, (result.returncode, result.stdout[-2000:], result.stderr)
    # Both outcomes occur: the edited folders are loadable when their edit is.
    outcomes = json.loads(result.stdout.splitlines()[-1])
    assert outcomes["refused"] and outcomes["answered"], outcomes
