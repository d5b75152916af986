"""A metric in a directory of sklearn_ed.save is its registry name (and a
variant's parameters), never its functions; load takes the registered one."""

import copy
import json
import os
import pickle
from dataclasses import replace

import numpy as np
import pytest

from sklearn_ed import FilterRefineNeighbors, QGramEmbedder, load, save
from sklearn_ed.distances import get_metric, make_dtw_metric, register_metric

DATA = os.path.join(os.path.dirname(__file__), "data")
WORDS = ["kitten", "sitting", "mitten", "bitten", "fitting", "smitten", "kitchen", "sit"]


def _nodes(node):
    if isinstance(node, dict):
        yield node
        for child in node.values():
            yield from _nodes(child)
    elif isinstance(node, list):
        for child in node:
            yield from _nodes(child)


def _saved(estimator, path):
    save(estimator, path)
    with open(os.path.join(path, "manifest.json")) as file:
        return json.load(file)["tree"]


def _fitted(metric):
    return FilterRefineNeighbors(
        QGramEmbedder(), metric=metric, n_neighbors=2, n_candidates=3, exact=True
    ).fit(WORDS)


def test_a_metric_is_saved_as_its_name_not_its_functions(tmp_path):
    tree = _saved(_fitted("normalized_levenshtein"), tmp_path / "search")
    metrics = [node for node in _nodes(tree) if node.get("class", "").endswith(".Metric")]
    assert metrics
    for node in metrics:
        items = node["state"]["items"]
        assert items["registered"]["value"] == "normalized_levenshtein"
        assert items["parameters"]["items"] == {}
    kinds = {node.get("kind") for node in _nodes(tree)}
    assert not kinds & {"function", "class", "partial"}


def test_a_variant_is_saved_as_its_family_and_parameters():
    metric = make_dtw_metric(window=0.25)
    state = metric.__getstate__()
    assert state["registered"] == "dtw" and state["parameters"] == {"window": 0.25}
    rebuilt = copy.copy(get_metric("dtw"))
    rebuilt.__setstate__(state)
    assert rebuilt.name == "dtw(window=0.25)" and rebuilt.parameters == (("window", 0.25),)
    series = list(np.random.default_rng(0).normal(size=(5, 9)))
    np.testing.assert_array_equal(rebuilt.pairwise(series, series), metric.pairwise(series, series))


def test_an_unregistered_name_is_refused_naming_the_registered_ones(tmp_path, restored_registry):
    from sklearn_ed.distances import _registry

    mine = register_metric(replace(get_metric("levenshtein"), name="mine"))
    path = tmp_path / "mine"
    search = _fitted("mine")
    save(search, path)
    del _registry._REGISTRY["mine"]
    with pytest.raises(ValueError, match=r"no metric is registered as 'mine'.*'levenshtein'"):
        load(path)
    register_metric(mine)  # registered again: it loads
    for got, expected in zip(load(path).kneighbors(WORDS), search.kneighbors(WORDS)):
        np.testing.assert_array_equal(got, expected)


def test_a_metric_registered_differently_since_is_refused(tmp_path, restored_registry):
    register_metric(replace(get_metric("levenshtein"), name="mine"))
    path = tmp_path / "mine"
    save(_fitted("mine"), path)
    other = replace(get_metric("normalized_levenshtein"), name="mine")
    register_metric(other, overwrite=True)
    with pytest.raises(ValueError, match=r"registered as 'mine' is not the one saved.*normalized"):
        load(path)


def test_parameters_for_a_metric_that_takes_none_are_refused():
    state = {**get_metric("levenshtein").__getstate__(), "parameters": {"window": 0.2}}
    with pytest.raises(ValueError, match="takes no parameters"):
        copy.copy(get_metric("levenshtein")).__setstate__(state)


def test_a_metric_never_registered_is_saved_by_pickle_only(tmp_path):
    unregistered = replace(get_metric("levenshtein"), name="unregistered")
    search = _fitted(unregistered)
    with pytest.raises(TypeError, match="'unregistered'.*Use pickle"):
        save(search, tmp_path / "search")
    copied = pickle.loads(pickle.dumps(search))
    assert copied.search_.metric.name == "unregistered"
    for got, expected in zip(copied.kneighbors(WORDS), search.kneighbors(WORDS)):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", ["dtw_window", "normalized_indel"])
def test_directories_that_saved_the_functions_load_by_the_name(name):
    """Saved by the code of commit 06eeaf1 (a metric's functions by qualified
    name), with that code's answers."""
    with open(os.path.join(DATA, "format2_answers.json")) as file:
        answers = json.load(file)[name]
    restored = load(os.path.join(DATA, f"format2_{name}"))
    assert restored.search_.metric is not None
    queries = answers["queries"]
    if name == "dtw_window":
        queries = [np.asarray(query) for query in queries]
        assert restored.metric.name == "dtw(window=0.2)"
    distances, indices = restored.kneighbors(queries)
    np.testing.assert_allclose(distances, answers["distances"], rtol=0, atol=0)
    np.testing.assert_array_equal(indices, answers["indices"])


def test_a_variant_of_the_earlier_layout_is_read_with_its_window():
    from sklearn_ed.distances._saved_metric import upgraded_node

    with open(os.path.join(DATA, "format2_dtw_window", "manifest.json")) as file:
        tree = json.load(file)["tree"]
    node = upgraded_node(tree["state"]["items"]["_metric_spec"]["state"])
    assert node["items"]["registered"] == {"kind": "value", "value": "dtw"}
    assert node["items"]["parameters"]["items"]["window"] == {"kind": "value", "value": 0.2}
    assert "pairwise" not in node["items"]
    unchanged = {"kind": "dict", "items": {"registered": {"kind": "value", "value": "x"}}}
    assert upgraded_node(unchanged) is unchanged
