"""The registry of saved classes: complete in a fresh process, layout versions
written and checked, defaults of older layouts, registration kept to sklearn-ed."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from _testing import needs_neural

from sklearn_ed import FilterRefineNeighbors, GRUEmbedder, QGramEmbedder, load, save
from sklearn_ed.utils import saved_class
from sklearn_ed.utils._persistence import _tree_sha256
from sklearn_ed.utils._saved_classes import (
    qualified_name,
    register_class,
    registered,
    registration_of,
)

QUERIES = ["ACGTTGCA", "GGGTTTAAACCC"]


@pytest.fixture
def saved_search(families, tmp_path):
    strings, _ = families
    search = FilterRefineNeighbors(QGramEmbedder(), n_neighbors=2, random_state=0).fit(strings)
    return search, save(search, tmp_path / "search")


def _manifest(directory):
    with open(os.path.join(directory, "manifest.json")) as file:
        return json.load(file)


def _write(directory, manifest):
    manifest["sha256"]["tree"] = _tree_sha256(manifest["tree"])
    with open(os.path.join(directory, "manifest.json"), "w") as file:
        json.dump(manifest, file)


def _class_nodes(node):
    """Every node of the tree that names a class."""
    if isinstance(node, dict):
        if "class" in node:
            yield node
        for child in node.values():
            yield from _class_nodes(child)
    elif isinstance(node, list):
        for child in node:
            yield from _class_nodes(child)


def _load_in_a_fresh_process(directory):
    """``(class name, whether torch was imported)`` of a load in a new interpreter,
    where only what ``sklearn_ed.load`` imports has registered itself."""
    code = (
        "import sys, sklearn_ed\n"
        f"estimator = sklearn_ed.load({os.fspath(directory)!r})\n"
        "print(type(estimator).__name__, 'torch' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300
    )
    assert result.returncode == 0, result.stderr
    name, torch_imported = result.stdout.split()
    return name, torch_imported == "True"


def test_a_fresh_process_loads_without_importing_torch(saved_search):
    _, directory = saved_search
    assert _load_in_a_fresh_process(directory) == ("FilterRefineNeighbors", False)


@needs_neural
def test_a_fresh_process_registers_the_networks_a_file_holds(families, tmp_path):
    strings, _ = families
    embedder = GRUEmbedder(
        n_step_components=2, hidden_size=4, epochs_per_phase=1, n_neighbors=5, random_state=0
    ).fit(strings)
    directory = save(embedder, tmp_path / "gru")
    assert _load_in_a_fresh_process(directory) == ("GRUEmbedder", True)


def test_each_class_is_written_with_its_layout_version(saved_search):
    _, directory = saved_search
    manifest = _manifest(directory)
    assert manifest["version"] == 3
    versions = {node["class"]: node["version"] for node in _class_nodes(manifest["tree"])}
    assert versions["sklearn_ed.neighbors._unsupervised.FilterRefineNeighbors"] == 3
    assert versions["sklearn_ed.embedding._qgram.QGramEmbedder"] == 2
    assert versions["sklearn_ed.search._fitted.FittedSearch"] == 1


def test_a_directory_of_format_2_still_loads(saved_search):
    """Format 2 wrote no layout versions: its classes are read as version 1."""
    search, directory = saved_search
    manifest = _manifest(directory)
    for node in _class_nodes(manifest["tree"]):
        del node["version"]
    manifest["version"] = 2
    _write(directory, manifest)
    for got, want in zip(load(directory).kneighbors(QUERIES), search.kneighbors(QUERIES)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("version", [4, 0, "2", True, None])
def test_a_layout_version_the_class_never_had_is_refused(saved_search, version):
    _, directory = saved_search
    manifest = _manifest(directory)
    manifest["tree"]["version"] = version
    _write(directory, manifest)
    with pytest.raises(ValueError, match=r"node tree: layout version .* of sklearn_ed\.neighbors"):
        load(directory)


def test_an_older_layout_gets_the_defaults_of_what_was_added_since(saved_search):
    """The defaults a class's registration declares fill what a version-1
    layout lacks; a current layout lacking them is refused."""
    search, directory = saved_search
    manifest = _manifest(directory)
    items = manifest["tree"]["state"]["items"]
    del items["processor"], items["search_method_"]
    embedder = items["embedder_"]
    del embedder["state"]["items"]["density"], embedder["state"]["items"]["density_"]
    _write(directory, manifest)
    with pytest.raises(ValueError, match=r"parameters \[.*\] are missing"):
        load(directory)
    manifest["tree"]["version"] = embedder["version"] = 1
    _write(directory, manifest)
    loaded = load(directory)
    assert loaded.processor is None and loaded.embedder_.density_ == 1.0
    assert loaded.search_method_ == "filter_refine"
    for got, want in zip(loaded.kneighbors(QUERIES), search.kneighbors(QUERIES)):
        np.testing.assert_array_equal(got, want)


def test_only_sklearn_ed_classes_register_themselves():
    foreign = type("Foreign", (), {})
    with pytest.raises(TypeError, match="is not a class of sklearn_ed"):
        saved_class()(foreign)
    with pytest.raises(ValueError, match="kind must be one of"):
        register_class(foreign, "function")
    with pytest.raises(ValueError, match="above 1 with added"):
        register_class(foreign, "object", added={"x": 1})
    with pytest.raises(ValueError, match="already the name of"):
        register_class(foreign, "object", formerly=("sklearn_ed._cgk.CGKEmbedder",))
    assert registration_of(foreign) is None
    assert registered(qualified_name(foreign), "object") is None
