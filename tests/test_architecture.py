"""The package layout of docs/architecture.rst, read from the code.

Subpackages sit in layers and import only from lower layers, through the
lower subpackage's ``__init__`` and never an underscore name; module-level
imports form no cycle; modules stay under 400 lines; no 6 lines of code are
written twice.
"""

import ast
import collections
import re
import warnings
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sklearn_ed"

# Lower number = lower layer. A subpackage imports only from lower layers.
LAYERS = {
    "utils": 0,
    "distances": 1,
    "datasets": 1,
    "nn": 2,
    "embedding": 3,
    "index": 3,
    "neighbors": 4,
    "metrics": 5,
    "dask": 5,
}
TOP = max(LAYERS.values()) + 1  # sklearn_ed/__init__.py and the demo script
MAX_LINES = 400
WINDOW = 6


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def subpackage(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def layer(module):
    sub = subpackage(module)
    return TOP if sub is None else LAYERS[sub]


def modules():
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports(path, *, module_level_only=False):
    """``(line, imported module, names)`` of every sklearn_ed import in ``path``."""
    module = module_name(path)
    tree = ast.parse(path.read_text())
    nodes = tree.body if module_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = module.split(".")
            if path.name != "__init__.py":
                base = base[:-1]
            base = base[:len(base) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
            names = [alias.name for alias in node.names]
            if node.module is None:  # "from . import x": x may be a submodule
                yield from ((node.lineno, f"{target}.{n}", []) for n in names
                            if f"{target}.{n}" in modules())
                names = [n for n in names if f"{target}.{n}" not in modules()]
                if not names:
                    continue
            yield node.lineno, target, names
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sklearn_ed"):
            yield node.lineno, node.module, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("sklearn_ed"):
                    yield node.lineno, alias.name, []


def cross_subpackage_imports():
    for module, path in modules().items():
        for line, target, names in imports(path):
            if subpackage(target) != subpackage(module) or subpackage(module) is None:
                yield f"{path.relative_to(PACKAGE.parent)}:{line}", module, target, names


def test_every_subpackage_has_a_layer():
    found = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert found == set(LAYERS)


def test_imports_flow_down_the_layers():
    upward = [f"{where}: {module} imports {target}"
              for where, module, target, _ in cross_subpackage_imports()
              if target != "sklearn_ed" and layer(target) >= layer(module)]
    assert upward == []


def test_no_private_name_crosses_a_subpackage():
    private = [f"{where}: {target} {names}"
               for where, module, target, names in cross_subpackage_imports()
               if any(part.startswith("_") for part in target.split(".")[1:])
               or any(name.startswith("_") for name in names)]
    assert private == []


def test_module_level_imports_have_no_cycle():
    found = modules()
    graph = {module: {target for _, target, _ in imports(path, module_level_only=True)
                      if target in found and target != module}
             for module, path in found.items()}
    state = {}

    def visit(module, stack):
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return stack + [module, target]
            if target not in state and (cycle := visit(target, stack + [module])):
                return cycle
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            assert visit(module, []) is None


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_stay_short(path):
    assert len(path.read_text().splitlines()) < MAX_LINES


def _shareable_lines(path):
    """``(number, stripped line)`` of code a helper could share.

    Left out: blank lines, comments, docstrings (numpydoc parameter sections
    are shared text by design), imports, and ``__init__`` methods, which
    scikit-learn requires to spell out and store every parameter.
    """
    text = path.read_text()
    skipped = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                isinstance(node, ast.FunctionDef) and node.name == "__init__"):
            skipped.update(range(node.lineno, node.end_lineno + 1))
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            skipped.update(range(body[0].lineno, body[0].end_lineno + 1))
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1)
            if line.strip() and not line.strip().startswith("#") and number not in skipped]


def test_no_code_is_written_twice():
    windows = collections.defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = _shareable_lines(path)
        for start in range(len(lines) - WINDOW + 1):
            chunk = tuple(line for _, line in lines[start:start + WINDOW])
            if sum(map(len, chunk)) >= 120:  # six closing brackets are not code to share
                windows[chunk].append(f"{path.relative_to(PACKAGE.parent)}:{lines[start][0]}")
    repeated = [places for places in windows.values() if len(places) > 1]
    assert repeated == []


def test_renamed_public_name_still_works_with_a_warning():
    import sklearn_ed.nn

    with pytest.warns(FutureWarning, match="renamed top_k_neighbors"):
        old = sklearn_ed.nn.top_k_neighbours
    assert old is sklearn_ed.nn.top_k_neighbors


def test_files_saved_by_0_1_0_find_their_moved_classes():
    from sklearn_ed import CGKEmbedder
    from sklearn_ed.utils._persistence import _import_class

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _import_class("sklearn_ed._cgk.CGKEmbedder") is CGKEmbedder


def test_the_architecture_page_names_every_subpackage():
    page = (PACKAGE.parent / "docs" / "architecture.rst").read_text()
    named = set(re.findall(r"``sklearn_ed\.(\w+)``", page))
    assert set(LAYERS) <= named
