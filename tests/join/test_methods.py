"""The registry of join methods: one place that names them, read by every caller."""

import ast
from pathlib import Path

import numpy as np
import pytest

import sklearn_ed.join._auto as auto_module
import sklearn_ed.join._methods as methods_module
from sklearn_ed import StringDeduplicator, similarity_join
from sklearn_ed.cli import main
from sklearn_ed.join import JoinMethod, brute_join, join_method_names, register_join_method

PACKAGE = Path(__file__).resolve().parents[2] / "sklearn_ed"
WORDS = ["kitten", "sitting", "mitten", "smith", "smyth", "smith", "bitten"]


@pytest.fixture
def demonstration_method(monkeypatch):
    """An exact method registered at run time: brute force, counting its calls,
    whose plan's sample claims the whole join in no time (so "auto", timing
    and comparing even these small joins, takes it)."""
    monkeypatch.setattr(methods_module, "_METHODS", dict(methods_module._METHODS))
    monkeypatch.setattr(auto_module, "SMALL_JOIN_PAIRS", 0)
    monkeypatch.setattr(auto_module, "COMPARED_FROM_SECONDS", 0.0)
    calls = []

    def engine(left, right, spec, limit, n_jobs):
        calls.append(len(left))
        yield from brute_join(left, right, spec, limit, n_jobs)

    class Plan:
        def __init__(self, *arguments):
            self.arguments = arguments

        def sample(self, rows):
            return 1.0

        def blocks(self):
            return engine(*self.arguments)

    register_join_method(JoinMethod("demo", engine, plan=Plan))
    return calls


def test_a_registered_method_serves_every_caller(demonstration_method, tmp_path, capsys):
    expected = similarity_join(WORDS, threshold=1, method="brute")
    for method in ("demo", "auto"):  # auto takes the least estimated time
        found = similarity_join(WORDS, threshold=1, method=method)
        for a, b in zip(found, expected):
            np.testing.assert_array_equal(a, b)
    labels = StringDeduplicator(1, method="demo").fit_predict(WORDS)
    assert labels.tolist() == StringDeduplicator(1, method="brute").fit_predict(WORDS).tolist()
    words = tmp_path / "words.txt"
    words.write_text("\n".join(WORDS) + "\n")
    assert main(["join", str(words), "--threshold", "1", "--method", "demo", "-q"]) == 0
    assert "demo" in join_method_names(exact_only=True)
    # Four calls (demo, auto, the deduplicator, the command line), each on the
    # six distinct strings.
    assert demonstration_method == [6, 6, 6, 6]


def test_the_deduplicator_refuses_an_approximate_method():
    with pytest.raises(ValueError, match="exact join method"):
        StringDeduplicator(1, method="filter").fit(WORDS)


def test_join_method_names_are_written_once():
    """Outside sklearn_ed/join (and the module naming "filter"), no code
    compares with or lists a join method's name: callers read the registry."""
    names = {"partition", "filter"}
    found = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("join/") or relative == "neighbors/_filter_join.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in names:
                found.append(f"{relative}:{node.lineno} {node.value!r}")
    assert found == []
