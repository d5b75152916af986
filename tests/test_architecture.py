"""The package layout of docs/architecture.rst, read from the code.

Subpackages sit in layers and import only from lower layers, through the
lower subpackage's ``__init__`` and never an underscore name; module-level
imports form no cycle; modules stay under 300 lines of code (docstrings,
comments and blank lines not counted: a module's documentation is never
squeezed to fit); no 6 lines of code are written twice.
"""

import ast
import collections
import importlib.util
import re
import warnings
from pathlib import Path

import pytest
from _testing import needs_neural

ROOT = Path(__file__).resolve().parents[1]
# The reader of the import graph that docs/architecture.rst draws.
_spec = importlib.util.spec_from_file_location(
    "import_graph", ROOT / "docs" / "_ext" / "import_graph.py"
)
graph = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(graph)

PACKAGE = graph.PACKAGE
MAX_CODE_LINES = 300
WINDOW = 6


def test_every_subpackage_has_a_layer():
    found = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert found == set(graph.LAYERS)


def test_every_subpackage_has_a_place_in_the_figure():
    """docs/architecture.rst's figure places each layer's boxes by hand."""
    assert set(graph._X) == set(graph.LAYERS) == set(graph.ROLES)


def test_imports_flow_down_the_layers():
    upward = [
        f"{where}: {module} imports {target}"
        for where, module, target, _ in graph.cross_subpackage_imports()
        if target != "sklearn_ed" and graph.layer(target) >= graph.layer(module)
    ]
    assert upward == []


def test_no_private_name_crosses_a_subpackage():
    """Another subpackage is reached through its ``__init__`` alone: not a
    private module, nor a folder inside it (``sklearn_ed.distances.metrics``)."""
    private = [
        f"{where}: {target} {names}"
        for where, module, target, names in graph.cross_subpackage_imports()
        if any(part.startswith("_") for part in target.split(".")[1:])
        or any(name.startswith("_") for name in names)
        or target.count(".") > 1
    ]
    assert private == []


def test_all_dask_code_lives_in_sklearn_ed_dask():
    outside = []
    for path in PACKAGE.rglob("*.py"):
        if "dask" in path.relative_to(PACKAGE).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            outside += [
                f"{path.relative_to(PACKAGE)}: {name}"
                for name in names
                if name.split(".")[0] in ("dask", "distributed")
            ]
    assert outside == []


@pytest.mark.parametrize("module_level_only", [True, False], ids=["module level", "with local"])
def test_imports_have_no_cycle(module_level_only):
    """No cycle among modules, whether counting only the imports at the top of
    a module or also those inside functions (a local import hides a cycle
    from Python, not from a reader)."""
    found = graph.modules()
    edges = {
        module: {
            target
            for _, target, _ in graph.imports(path, module_level_only=module_level_only)
            if target in found and target != module
        }
        for module, path in found.items()
    }
    state = {}

    def visit(module, stack):
        state[module] = "open"
        for target in sorted(edges[module]):
            if state.get(target) == "open":
                return stack + [module, target]
            if target not in state and (cycle := visit(target, stack + [module])):
                return cycle
        state[module] = "done"
        return None

    for module in sorted(edges):
        if module not in state:
            assert visit(module, []) is None


# The search engine's modules: filter, refine, exact passes, recall check.
SEARCH_ENGINE = {
    "_fitted",
    "_exact",
    "_policy",
    "_recall_check",
    "_segments",
    "_batching",
    "_memory",
    "_embedder_choice",
}
# What filter-and-refine is built of: a vector index searched, exact distances
# of its candidates.
_FILTER_NAMES = {"make_index", "embed_for_index", "sort_by_value", "sort_rows"}
_REFINE_NAMES = {"candidate_distances", "ragged_candidate_distances"}


def test_filter_refine_logic_lives_in_search():
    """The engine's modules are in sklearn_ed/search, not beside the estimators
    that use it, and no module elsewhere combines the filter's index with the
    refine's exact distances."""
    engine = {path.stem for path in (PACKAGE / "search").glob("_*.py")}
    assert SEARCH_ENGINE <= engine
    users = ("neighbors", "dask", "dedup", "metrics", "join")
    misplaced = [
        str(path.relative_to(PACKAGE))
        for user in users
        for path in (PACKAGE / user).glob("_*.py")
        if path.stem in SEARCH_ENGINE
    ]
    assert misplaced == []
    outside = []
    for module, path in graph.modules().items():
        if graph.subpackage(module) in ("search", "index", "distances"):
            continue
        names = {name for _, _, imported in graph.imports(path) for name in imported}
        if names & _FILTER_NAMES and names & _REFINE_NAMES:
            outside.append(module)
    assert outside == []


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_modules_stay_short(path):
    assert len(_code_lines(path)) < MAX_CODE_LINES


def _docstring_lines(tree):
    """Line numbers of every module, class and function docstring."""
    lines = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def _code_lines(path, skipped=()):
    """``(number, stripped line)`` of code: no blank line, comment or docstring."""
    text = path.read_text()
    skipped = set(skipped) | _docstring_lines(ast.parse(text))
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#") and number not in skipped
    ]


def _shareable_lines(path):
    """``(number, stripped line)`` of code a helper could share.

    Left out: blank lines, comments, docstrings (numpydoc parameter sections
    are shared text by design), imports, and ``__init__`` methods, which
    scikit-learn requires to spell out and store every parameter.
    """
    skipped = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
            isinstance(node, ast.FunctionDef) and node.name == "__init__"
        ):
            skipped.update(range(node.lineno, node.end_lineno + 1))
    return _code_lines(path, skipped)


def test_no_code_is_written_twice():
    windows = collections.defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = _shareable_lines(path)
        for start in range(len(lines) - WINDOW + 1):
            chunk = tuple(line for _, line in lines[start : start + WINDOW])
            if sum(map(len, chunk)) >= 120:  # six closing brackets are not code to share
                windows[chunk].append(f"{path.relative_to(PACKAGE.parent)}:{lines[start][0]}")
    repeated = [places for places in windows.values() if len(places) > 1]
    assert repeated == []


@needs_neural
def test_renamed_public_name_still_works_with_a_warning():
    import sklearn_ed.nn

    with pytest.warns(FutureWarning, match="renamed top_k_neighbors"):
        old = sklearn_ed.nn.top_k_neighbours
    assert old is sklearn_ed.nn.top_k_neighbors


def test_files_saved_by_0_1_0_find_their_moved_classes():
    """A class keeps the names it was saved under before it moved (its
    ``saved_class(formerly=...)``): a 0.1.0 name is today's class, unwarned."""
    from sklearn_ed.embedding import CGKEmbedder
    from sklearn_ed.utils._saved_classes import registered

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        saved = registered("sklearn_ed._cgk.CGKEmbedder", "object")
    assert saved.cls is CGKEmbedder
    assert saved.name == "sklearn_ed.embedding._cgk.CGKEmbedder"


# A qualified name of code in a private module: "sklearn_ed.neighbors._graph.X".
_PRIVATE_QUALIFIED_NAME = re.compile(r"sklearn_ed\.\w+\._\w+")


def test_utils_holds_no_qualified_name_of_a_private_module():
    """What sklearn_ed.load builds is declared where each class is defined
    (``saved_class``), not listed by name in the bottom layer: no string of
    sklearn_ed/utils (docstrings included) names a private module's code."""
    found = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}"
        for path in sorted((PACKAGE / "utils").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _PRIVATE_QUALIFIED_NAME.search(node.value)
    ]
    assert found == []


def test_the_architecture_page_names_every_subpackage():
    page = (ROOT / "docs" / "architecture.rst").read_text()
    named = set(re.findall(r"``sklearn_ed\.(\w+)``", page))
    assert set(graph.LAYERS) <= named


def test_where_to_add_things_names_files_that_exist():
    """Every path of the "Where to add things" table exists (a ``<name>`` part
    stands for the new file: its folder must exist), and every extension
    point of the issue is a row."""
    page = (ROOT / "docs" / "architecture.rst").read_text()
    section = page.split("Where to add things")[1]
    rows = set(re.findall(r"^   \* - (\w[\w ]*)$", section, flags=re.MULTILINE))
    assert {"A metric", "A bound", "A join method", "An index backend", "A subcommand"} <= rows
    paths = re.findall(r"``((?:sklearn_ed|tests|benchmarks)/[\w/<>.]*)``", section)
    assert paths
    missing = [
        path
        for path in paths
        if not (ROOT / (path.split("<")[0].rsplit("/", 1)[0] if "<" in path else path)).exists()
    ]
    assert missing == []


# Class-level declarations scikit-learn itself shares between classes, and
# the standard library's frame access; every other read of another object's
# private attribute is coupling to its layout.
_SHARED_PRIVATE_NAMES = {"_parameter_constraints", "_getframe"}


def _private_reads(path):
    """``(line, expression)`` of each read of another object's private attribute."""
    reads = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and node.attr not in _SHARED_PRIVATE_NAMES
        ):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        if isinstance(owner, ast.Call) and getattr(owner.func, "id", None) == "super":
            continue
        reads.append((node.lineno, ast.unparse(node)))
    return reads


@pytest.mark.parametrize(
    "path",
    sorted(p for p in PACKAGE.rglob("*.py") if p.parent.name != "neighbors"),
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_no_module_reads_another_objects_private_state(path):
    """Outside neighbors/, whose estimators delegate to their FittedSearch, code
    talks to other objects through public attributes and methods only (the
    recall check, exact search, scorers and Dask shards use the search's)."""
    assert _private_reads(path) == []


# Suites that cut across the package stay at the top of tests/.
CROSS_CUTTING = {
    "test_answers_unchanged.py",
    "test_architecture.py",
    "test_benchmarks.py",
    "test_common.py",
    "test_docs.py",
    "test_install.py",
    "test_fuzz.py",
    "test_reliability.py",
}


def test_tests_mirror_the_package():
    """tests/<subpackage>/test_<module>.py: a reader finds a module's tests by
    its name; only the cross-cutting suites sit at the top."""
    tests = ROOT / "tests"
    assert {path.name for path in tests.glob("test_*.py")} == CROSS_CUTTING
    subpackages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    for path in tests.glob("*/test_*.py"):
        assert path.parent.name in subpackages, path
