"""The API reference documents every public name, and the public docstrings
pass numpydoc's checks GL08 (has a docstring), PR01/PR02 (parameters match
the signature) and RT01 (returns documented)."""

import importlib
import importlib.util
import inspect
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

import sklearn_ed

API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.rst"
CHECKS = {"GL08", "PR01", "PR02", "RT01"}


def public_modules():
    """``sklearn_ed`` and every public sub-package that declares ``__all__``."""
    modules = [sklearn_ed]
    for info in pkgutil.iter_modules(sklearn_ed.__path__, "sklearn_ed."):
        if not info.name.rsplit(".", 1)[1].startswith("_"):
            module = importlib.import_module(info.name)
            if hasattr(module, "__all__"):
                modules.append(module)
    return modules


def public_objects():
    """``(qualified name, object)`` for every name in every public ``__all__``."""
    return [
        (f"{module.__name__}.{name}", getattr(module, name))
        for module in public_modules()
        for name in module.__all__
        if not name.startswith("__")
    ]


def documented_objects():
    """Objects listed in the autosummary tables of the API page."""
    documented, module = [], None
    in_summary = False
    for line in API_PAGE.read_text().splitlines():
        if line.startswith(".. currentmodule::"):
            module = importlib.import_module(line.split("::")[1].strip())
        elif line.startswith(".. autodata::"):
            documented.append(getattr(module, line.split("::")[1].strip()))
        elif line.startswith(".. autosummary::"):
            in_summary = True
        elif in_summary and re.fullmatch(r"   [A-Za-z_][\w.]*", line):
            documented.append(getattr(module, line.strip()))
        elif in_summary and line and not line.startswith("   "):
            in_summary = False
    return documented


def test_every_public_name_is_in_the_api_reference():
    documented = documented_objects()
    missing = [
        name for name, obj in public_objects() if not any(obj is entry for entry in documented)
    ]
    assert missing == [], f"public names missing from docs/api.rst: {missing}"


def _own_members(cls):
    """Public methods and properties a sklearn_ed class defines itself."""
    for name, member in vars(cls).items():
        if name.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
            continue
        yield name


def docstring_targets():
    targets = []
    for qualified, obj in public_objects():
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if not getattr(obj, "__module__", "").startswith("sklearn_ed"):
            continue
        path = f"{obj.__module__}.{obj.__qualname__}"
        targets.append(path)
        if inspect.isclass(obj):
            targets += [f"{path}.{name}" for name in _own_members(obj)]
    return sorted(set(targets))


@pytest.mark.parametrize("target", docstring_targets())
def test_public_docstring_passes_numpydoc(target):
    from numpydoc.validate import validate

    errors = [
        f"{code}: {message}" for code, message in validate(target)["errors"] if code in CHECKS
    ]
    assert errors == []


RECIPES_PAGE = API_PAGE.parent / "recipes.rst"


def _python_blocks(page):
    """The ``.. code-block:: python`` blocks of a page, dedented."""
    blocks, current = [], None
    for line in page.read_text().splitlines():
        if line.strip() == ".. code-block:: python":
            current = []
            blocks.append(current)
        elif current is not None and (not line.strip() or line.startswith("   ")):
            current.append(line[3:])
        else:
            current = None
    return ["\n".join(block).strip() + "\n" for block in blocks]


def test_every_recipe_runs_as_written(tmp_path, monkeypatch, capsys):
    import gzip

    from _testing import mutate, random_strings

    rng = np.random.default_rng(0)
    reads = [mutate(s, 3, rng) for s in random_strings(10, (80, 120), seed=2) for _ in range(3)]
    with gzip.open(tmp_path / "reads.fastq.gz", "wt") as file:
        for i, read in enumerate(reads):
            file.write(f"@read{i} simulated\n{read}\n+\n{'I' * len(read)}\n")
    monkeypatch.chdir(tmp_path)
    blocks = _python_blocks(RECIPES_PAGE)
    assert len(blocks) == 6
    for block in blocks:
        exec(compile(block, str(RECIPES_PAGE), "exec"), {})
    printed = capsys.readouterr().out
    assert "['receive', 'definitely', 'separate']" in printed
    assert "read0" in printed and "Acme Corp" in printed


def _check_docs_module():
    spec = importlib.util.spec_from_file_location(
        "check_docs", API_PAGE.parents[1] / ".ci" / "check_docs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "text",
    [
        "On spell-100k the nearest word",
        "recall at 1 % on genome-reads-50k",
        "Two measures from the seed papers describe",
        "the fit's pseudo-queries",
        "the defaults issue asked for",
        "1.5 times the 0.1.0 scan",
        "commit  : d64ea4f with uncommitted changes",
        "command : ../../.venv/bin/python -m benchmarks.bench_words",
        "written to /work/main/results",
    ],
)
def test_the_docs_check_finds_in_house_words_and_machine_paths(text):
    assert _check_docs_module().in_house_words(text)


def test_the_docs_check_spares_a_users_words():
    text = (
        "python -m venv .venv && . .venv/bin/activate; 100,000 words; sklearn_ed 0.2.0; "
        "the base sample acts as queries; the issue tracker; ./reads/x.fa"
    )
    assert _check_docs_module().in_house_words(text) == []
