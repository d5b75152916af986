"""sklearn_ed.load of a hostile or damaged directory: nothing in it picks code.

The crafted directories below are the ones that made the loader of format 1
import a module shipped in the directory and truncate a file of the user's;
the fuzz test mutates saved manifests at random (node kinds, class names,
shapes, dtypes, missing keys, array references).
"""

import builtins
import copy
import importlib
import json
import os

import numpy as np
import pytest
from _testing import needs_neural

import sklearn_ed
from sklearn_ed import FilterRefineNeighbors, GRUEmbedder, load
from sklearn_ed.utils._external_classes import register_scikit_learn_classes
from sklearn_ed.utils._persistence import _tree_sha256
from sklearn_ed.utils._saved_classes import registered, saved_classes

# Read by load besides the directory: the memory available, which sizes the
# deletion lookup that a loaded search rebuilds (never written, never code).
SYSTEM_FILES = {"/proc/meminfo"}

HOSTILE_NAMES = [
    "os.system",
    "builtins.eval",
    "sklearn.utils._bunch.Bunch",
    "sklearn.datasets._covtype.GzipFile",
    "sklearn_ed.datasets._lazy._import_optional",
    "torch.nn.modules.linear.Linear",
    "evil_module.Payload",
]
# What load imports: the fixed list of sklearn-ed's subpackages whose classes
# register themselves for loading, never a module a file names.
ALLOWED_MODULES = {f"sklearn_ed.{name}" for name in sklearn_ed._SAVED_CLASSES_IN}


def _registered_names(*kinds):
    """Every name (today's and former) of the registered classes of ``kinds``."""
    for module in sorted(ALLOWED_MODULES):
        importlib.import_module(module)
    register_scikit_learn_classes()
    return sorted(name for name, saved in saved_classes().items() if saved.kind in kinds)


def _manifest(directory):
    with open(os.path.join(directory, "manifest.json")) as file:
        return json.load(file)


def _write_manifest(directory, manifest, rehash=True):
    if rehash:
        manifest["sha256"]["tree"] = _tree_sha256(manifest["tree"])
    with open(os.path.join(directory, "manifest.json"), "w") as file:
        json.dump(manifest, file)


@pytest.fixture
def saved_search(families, tmp_path):
    strings, _ = families
    search = FilterRefineNeighbors(n_neighbors=3, random_state=0).fit(strings)
    return search, search.save(tmp_path / "search")


@pytest.fixture
def payload(tmp_path, monkeypatch):
    """A module file beside the index and its directory on sys.path (as with ``python -c``)."""
    marker = tmp_path / "payload-ran"
    (tmp_path / "search_payload.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return marker


@needs_neural
def test_a_node_that_would_import_a_shipped_module_is_refused(saved_search, payload):
    _, directory = saved_search
    manifest = _manifest(directory)
    # The loader of format 1 built Bunch(load_state_dict=_import_optional), then
    # called module.load_state_dict(<a string from torch.pt>): an import.
    manifest["tree"] = {
        "kind": "torch_module",
        "class": "sklearn.utils._bunch.Bunch",
        "init_args": {
            "kind": "dict",
            "items": {
                "load_state_dict": {
                    "kind": "function",
                    "name": "sklearn_ed.datasets._lazy._import_optional",
                }
            },
        },
        "training": False,
        "state": "m0",
    }
    import torch

    torch.save({"m0": "search_payload"}, os.path.join(directory, "torch.pt"))
    manifest["files"] = ["arrays.npz", "torch.pt"]
    manifest["sha256"]["torch.pt"] = _sha256_of(directory, "torch.pt")
    _write_manifest(directory, manifest)
    with pytest.raises(ValueError, match=r"node tree: network 'sklearn\.utils\._bunch\.Bunch'"):
        load(directory)
    assert not payload.exists()
    assert "search_payload" not in importlib.sys.modules


def test_a_node_that_would_create_a_file_is_refused(saved_search, tmp_path):
    _, directory = saved_search
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's data")
    manifest = _manifest(directory)
    manifest["tree"]["state"]["items"]["index_"] = {
        "kind": "torch_module",
        "class": "sklearn.datasets._covtype.GzipFile",
        "init_args": {
            "kind": "dict",
            "items": {
                "filename": {"kind": "value", "value": str(victim)},
                "mode": {"kind": "value", "value": "wb"},
            },
        },
        "training": False,
        "state": "m0",
    }
    _write_manifest(directory, manifest)
    with pytest.raises(ValueError, match=r"node tree\.state\.index_: network 'sklearn\.datasets"):
        load(directory)
    assert victim.read_text() == "the user's data"


def test_an_attribute_standing_in_for_a_method_is_refused(saved_search):
    _, directory = saved_search
    manifest = _manifest(directory)
    manifest["tree"]["state"]["items"]["kneighbors"] = {
        "kind": "object",
        "class": "sklearn_ed.distances._registry.Metric",
        "state": {
            "kind": "dict",
            "items": {"registered": {"kind": "value", "value": "levenshtein"}},
        },
    }
    _write_manifest(directory, manifest)
    with pytest.raises(ValueError, match=r"tree\.state\.kneighbors: 'kneighbors' would replace"):
        load(directory)


def test_unknown_format_versions_are_refused_by_number(saved_search):
    _, directory = saved_search
    manifest = _manifest(directory)
    manifest["version"] = 99
    _write_manifest(directory, manifest)
    with pytest.raises(ValueError, match="format version 99; this sklearn-ed reads versions 1"):
        load(directory)


@needs_neural
def test_format_1_directories_still_load(saved_search):
    """Format 1 wrote both files always and had no tree hash."""
    search, directory = saved_search
    manifest = _manifest(directory)
    import torch

    torch.save({}, os.path.join(directory, "torch.pt"))
    manifest = {
        "format": "sklearn-ed",
        "version": 1,
        "tree": manifest["tree"],
        "sha256": {name: _sha256_of(directory, name) for name in ("arrays.npz", "torch.pt")},
    }
    _write_manifest(directory, manifest, rehash=False)
    queries = ["ACGTACGTAC", "TTTT"]
    np.testing.assert_array_equal(
        load(directory).kneighbors(queries)[1], search.kneighbors(queries)[1]
    )


def test_a_model_without_a_network_writes_and_reads_no_torch_file(saved_search):
    _, directory = saved_search
    assert sorted(os.listdir(directory)) == ["arrays.npz", "manifest.json"]


@needs_neural
def test_a_network_round_trips_through_torch_pt(families, tmp_path):
    strings, _ = families
    embedder = GRUEmbedder(
        n_step_components=2, hidden_size=4, epochs_per_phase=1, n_neighbors=5, random_state=0
    ).fit(strings)
    directory = tmp_path / "gru"
    from sklearn_ed import save

    save(embedder, directory)
    assert "torch.pt" in _manifest(directory)["files"]
    np.testing.assert_array_equal(load(directory).transform(strings), embedder.transform(strings))


def _sha256_of(directory, name):
    from sklearn_ed.utils._persistence import _sha256

    return _sha256(os.path.join(directory, name))


# ------------------------------------------------------------------ fuzzing
def _nodes(tree, path="tree"):
    """Every node of a manifest tree with its path."""
    yield path, tree
    for key in ("state", "init_args", "keywords", "function"):
        if isinstance(tree.get(key), dict):
            yield from _nodes(tree[key], f"{path}.{key}")
    items = tree.get("items")
    if isinstance(items, dict):
        for key, child in items.items():
            yield from _nodes(child, f"{path}.{key}")
    elif isinstance(items, list):
        for i, child in enumerate(items):
            yield from _nodes(child, f"{path}[{i}]")


def _mutate(tree, array_keys, rng):
    """One random structural change of a copy of ``tree``: kind, class name,
    shape, dtype, a missing key or attribute, or another array's reference."""
    tree = copy.deepcopy(tree)
    nodes = list(_nodes(tree))
    _, node = nodes[rng.integers(len(nodes))]
    names = HOSTILE_NAMES + _registered_names("object", "index")
    choice = rng.integers(6)
    if choice == 0:
        node["kind"] = rng.choice(["object", "index", "torch_module", "function", "array", "spam"])
    elif choice == 1 and ("class" in node or "name" in node):
        node["class" if "class" in node else "name"] = str(rng.choice(names))
    elif choice == 2 and "shape" in node:
        node["shape"] = [int(n) + int(rng.integers(-1, 2)) for n in node["shape"]] + [1]
    elif choice == 3 and "dtype" in node:
        node["dtype"] = str(rng.choice(["|O", "<U3", "|V8", "float128x", "<M8[s]"]))
    elif choice == 4 and isinstance(node.get("items"), dict) and node["items"]:
        del node["items"][str(rng.choice(sorted(node["items"])))]
    elif choice == 4:
        del node[str(rng.choice(sorted(node)))]
    elif choice == 5 and any(k in node for k in ("key", "data", "lengths", "engine")):
        key = next(k for k in ("key", "data", "lengths", "engine") if k in node)
        node[key] = str(rng.choice(array_keys + ["missing"]))
    else:
        node["kind"] = "lock" if node.get("kind") != "lock" else "value"
    return tree


@pytest.mark.parametrize("rehash", [False, True], ids=["damaged", "tampered"])
def test_mutated_manifests_load_as_saved_or_raise_value_error(saved_search, monkeypatch, rehash):
    """Damaged (hash kept): every mutation is refused with ValueError.
    Tampered (hash rewritten): ValueError or an estimator of the allowed
    classes; either way only the directory's files are opened, for reading,
    and only the allow-list's modules are imported."""
    search, directory = saved_search
    original = _manifest(directory)
    with np.load(os.path.join(directory, "arrays.npz")) as arrays:
        array_keys = sorted(arrays.files)
    queries = ["ACGTTGCA", "GGGTTTAAACCC"]
    expected = search.kneighbors(queries)
    opened, imported = [], []
    real_open, real_import = builtins.open, importlib.import_module

    def recording_open(file, mode="r", *args, **kwargs):
        opened.append((os.fspath(file) if not isinstance(file, int) else file, mode))
        return real_open(file, mode, *args, **kwargs)

    def recording_import(name, *args, **kwargs):
        imported.append(name)
        return real_import(name, *args, **kwargs)

    rng = np.random.default_rng(0)
    outcomes = {"refused": 0, "loaded": 0}
    for _ in range(150):
        manifest = dict(original, tree=_mutate(original["tree"], array_keys, rng))
        if manifest["tree"] == original["tree"]:
            continue
        _write_manifest(directory, manifest, rehash=rehash)
        opened.clear(), imported.clear()
        monkeypatch.setattr(builtins, "open", recording_open)
        monkeypatch.setattr(importlib, "import_module", recording_import)
        try:
            restored = load(directory)
        except ValueError:
            outcomes["refused"] += 1
            restored = None
        finally:
            monkeypatch.setattr(builtins, "open", real_open)
            monkeypatch.setattr(importlib, "import_module", real_import)
        assert not rehash and restored is None or rehash
        for file, mode in opened:
            assert set(mode) <= {"r", "b"}, (file, mode)
            if file in SYSTEM_FILES:
                continue
            assert os.path.dirname(os.path.abspath(file)) == os.path.abspath(directory)
        assert set(imported) <= ALLOWED_MODULES, set(imported) - ALLOWED_MODULES
        if restored is not None:
            outcomes["loaded"] += 1
            qualified = f"{type(restored).__module__}.{type(restored).__qualname__}"
            assert registered(qualified, "object") is not None
    assert outcomes["refused"] > 0
    _write_manifest(directory, original)
    for got, want in zip(load(directory).kneighbors(queries), expected):
        np.testing.assert_array_equal(got, want)


def test_an_archive_that_is_not_one_is_refused_with_value_error(saved_search):
    """A member whose bytes fail their CRC raised zipfile.BadZipFile."""
    _, directory = saved_search
    path = os.path.join(directory, "arrays.npz")
    with open(path, "rb") as file:
        content = bytearray(file.read())
    content[len(content) // 2] ^= 0xFF
    with open(path, "wb") as file:
        file.write(content)
    manifest = _manifest(directory)
    manifest["sha256"]["arrays.npz"] = _sha256_of(directory, "arrays.npz")
    _write_manifest(directory, manifest)
    with pytest.raises(ValueError, match="arrays.npz is not a NumPy archive"):
        load(directory)


# 100,000 nested lists: json's parser recursed until RecursionError.
DEEP = "[" * 100_000 + "]" * 100_000


def test_a_deeply_nested_manifest_is_refused_with_value_error(saved_search):
    _, directory = saved_search
    with open(os.path.join(directory, "manifest.json"), "w") as file:
        file.write('{"format": "sklearn-ed", "version": 2, "sha256": {}, "tree": ' + DEEP + "}")
    with pytest.raises(ValueError, match="nests lists and objects more than 200 deep"):
        load(directory)


def test_a_tree_nested_deeper_than_any_saved_one_is_refused(saved_search):
    """Parsed, but deeper than the bound: the check, the build and the tree's
    hash recurse per level, so it is refused before any of them."""
    _, directory = saved_search
    manifest = _manifest(directory)
    node = {"kind": "value", "value": 1}
    for _ in range(150):
        node = {"kind": "list", "items": [node]}
    manifest["tree"] = node
    _write_manifest(directory, manifest)
    with pytest.raises(ValueError, match="nests lists and objects more than 200 deep"):
        load(directory)


def test_the_command_line_reports_a_deeply_nested_index_as_bad_input(tmp_path, capsys):
    """Exit 3 (malformed input) with one line, not a RecursionError's traceback."""
    from sklearn_ed.cli import main

    words = tmp_path / "words.txt"
    words.write_text("kitten\nsitting\nmitten\nbitten\n")
    index = tmp_path / "words.sked"
    assert main(["index", str(words), "-o", str(index), "-k", "1", "-q"]) == 0
    knn = ["knn", str(index), str(words), "-k", "1", "-q", "-o", str(tmp_path / "out.tsv")]
    for name in ("index.json", os.path.join("estimator", "manifest.json")):
        original = (index / name).read_text()
        (index / name).write_text(DEEP)
        capsys.readouterr()
        assert main(knn) == 3
        error = capsys.readouterr().err
        assert "more than 200 deep" in error and "Traceback" not in error
        (index / name).write_text(original)
    assert main(knn) == 0


def test_an_attribute_the_class_does_not_declare_is_refused(saved_search):
    _, directory = saved_search
    manifest = _manifest(directory)
    manifest["tree"]["state"]["items"]["extra_"] = {"kind": "value", "value": 1}
    _write_manifest(directory, manifest)
    with pytest.raises(ValueError, match=r"\['extra_'\] are not attributes that Filter"):
        load(directory)


def test_saving_an_undeclared_attribute_is_refused(saved_search, tmp_path):
    from sklearn_ed import save

    search, _ = saved_search
    search.extra_ = 1
    with pytest.raises(TypeError, match=r"holding \['extra_'\]: attributes its class does not"):
        save(search, tmp_path / "extra")
