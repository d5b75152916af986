"""The package's subpackages, their layers and the imports between them, read
from the source. ``tests/test_architecture.py`` checks the rules on it and
``docs/architecture.rst`` draws it (:func:`draw`), so the picture is the code.
"""

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "sklearn_ed"

# Lower number = lower layer. A subpackage imports only from lower layers.
LAYERS = {
    "utils": 0,
    "distances": 1,
    "datasets": 1,
    "nn": 2,
    "embedding": 3,
    "index": 3,
    "join": 3,
    "search": 4,
    "neighbors": 5,
    "metrics": 6,
    "dask": 6,
    "io": 0,
    "dedup": 6,
    "records": 7,
    "cli": 8,
}
ROLES = {
    "utils": "string checks and codes,\nq-gram kernels, save/load",
    "distances": "exact metrics, registry,\nlower bounds, pairwise",
    "datasets": "real data and\nsynthetic hard cases",
    "nn": "torch modules, losses,\nthe torch embedder base",
    "embedding": "the embedders\n(one per module)",
    "index": "the filter: faiss, sparse,\npynndescent backends",
    "join": "similarity joins: one\nregistry of methods",
    "search": "the fitted search: filter,\nrefine, exact passes",
    "neighbors": "FilterRefine estimators:\nvalidate, fit a search, answer",
    "metrics": "recall, speedup,\nscorers, displays",
    "dask": "sharded estimators\non a Dask cluster",
    "io": "FASTA/FASTQ, text and\ntable files; neighbor TSV",
    "dedup": "groups of near\nduplicates (join)",
    "records": "tables of several columns:\nblocking, weights, groups",
    "cli": "the sklearn-ed\ncommand line",
}
# sklearn_ed/__init__.py and the demo script sit above every layer.
TOP = max(LAYERS.values()) + 1


def module_name(path):
    """Dotted name of a module file of the package."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.lru_cache(maxsize=1)
def modules():
    """``{dotted name: path}`` of every module of the package (read once)."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def subpackage(module):
    """The subpackage a dotted module name belongs to (None for the top level)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def layer(module):
    sub = subpackage(module)
    return TOP if sub is None else LAYERS[sub]


def imports(path, *, module_level_only=False):
    """``(line, imported module, imported names)`` of each sklearn_ed import of ``path``.

    ``module_level_only`` leaves out imports inside functions (deferred
    imports cannot make an import cycle).
    """
    module, known = module_name(path), modules()
    tree = ast.parse(path.read_text())
    for node in tree.body if module_level_only else ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = module.split(".")[: None if path.name == "__init__.py" else -1]
            base = base[: len(base) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
            names = [alias.name for alias in node.names]
            submodules = [n for n in names if f"{target}.{n}" in known] if not node.module else []
            yield from ((node.lineno, f"{target}.{n}", []) for n in submodules)
            names = [n for n in names if n not in submodules]
            if names:
                yield node.lineno, target, names
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sklearn_ed"):
            yield node.lineno, node.module, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            yield from (
                (node.lineno, alias.name, [])
                for alias in node.names
                if alias.name.startswith("sklearn_ed")
            )


def cross_subpackage_imports():
    """``(file:line, module, imported module, names)`` of imports leaving a subpackage."""
    for module, path in modules().items():
        for line, target, names in imports(path):
            if subpackage(module) is None or subpackage(target) != subpackage(module):
                yield f"{path.relative_to(PACKAGE.parent)}:{line}", module, target, names


def dependencies():
    """Sorted ``(importer, imported)`` pairs of subpackages."""
    return sorted(
        {
            (subpackage(module), subpackage(target))
            for _, module, target, _ in cross_subpackage_imports()
            if subpackage(module) and subpackage(target)
        }
    )


# Where each subpackage is drawn (x; y is its layer).
_X = {
    "dask": 1.4,
    "metrics": 8.6,
    "neighbors": 5.0,
    "embedding": 1.4,
    "index": 8.6,
    "join": 5.0,
    "search": 5.0,
    "nn": 3.0,
    "distances": 5.0,
    "datasets": 8.6,
    "utils": 5.0,
    "io": 8.6,
    "dedup": 5.0,
    "records": 5.0,
    "cli": 5.0,
}
_ROW, _BOX_W, _BOX_H = 1.25, 3.1, 0.78


def _routes():
    """Polyline of each dependency: straight between adjacent layers; around the
    boxes in side lanes, then down through the gap above the target, when a
    dependency skips layers."""
    left_lanes, right_lanes, arrivals = 0, 0, {}
    routes = []
    for importer, imported in dependencies():
        x0, y0 = _X[importer], LAYERS[importer] * _ROW
        x1, y1 = _X[imported], LAYERS[imported] * _ROW
        n_in = arrivals[imported] = arrivals.get(imported, 0) + 1
        if LAYERS[importer] - LAYERS[imported] == 1:
            routes.append([(x0, y0 - _BOX_H / 2), (x1, y1 + _BOX_H / 2)])
            continue
        if x0 < 5.0:
            left_lanes += 1
            lane, side = min(_X.values()) - _BOX_W / 2 - 0.25 * left_lanes, x0 - _BOX_W / 2
        else:
            right_lanes += 1
            lane, side = max(_X.values()) + _BOX_W / 2 + 0.25 * right_lanes, x0 + _BOX_W / 2
        leave = y0 + 0.2 - 0.13 * ((left_lanes if x0 < 5.0 else right_lanes) % 4)
        gap = y1 + _BOX_H / 2 + 0.065 * n_in
        enter = x1 + (-0.9 if lane < x1 else 0.9) + (0.18 * n_in if lane < x1 else -0.18 * n_in)
        routes.append(
            [(side, leave), (lane, leave), (lane, gap), (enter, gap), (enter, y1 + _BOX_H / 2)]
        )
    return routes


def draw(path):
    """Draw the layers and the imports between subpackages to ``path`` (SVG or PNG)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path as PolyPath

    routes = _routes()
    xs = [x for points in routes for x, _ in points] + [
        x + side for x in _X.values() for side in (-_BOX_W / 2, _BOX_W / 2)
    ]
    left, right = min(xs) - 0.2, max(xs) + 0.2
    # The same scale whatever the lanes add: boxes keep their size.
    fig, ax = plt.subplots(figsize=(0.73 * (right - left + 1.3), 8.7))
    for points in routes:
        codes = [PolyPath.MOVETO] + [PolyPath.LINETO] * (len(points) - 1)
        ax.add_patch(
            FancyArrowPatch(
                path=PolyPath(points, codes),
                arrowstyle="-|>",
                mutation_scale=13,
                color="#5a6b7b",
                linewidth=1.1,
                zorder=1,
            )
        )
    for name, level in LAYERS.items():
        x, y = _X[name], level * _ROW
        ax.add_patch(
            FancyBboxPatch(
                (x - _BOX_W / 2, y - _BOX_H / 2),
                _BOX_W,
                _BOX_H,
                boxstyle="round,pad=0.02,rounding_size=0.08",
                facecolor="#eef4fa",
                edgecolor="#1f5f99",
                linewidth=1.4,
                zorder=2,
            )
        )
        ax.text(
            x,
            y + 0.16,
            f"sklearn_ed.{name}",
            ha="center",
            va="center",
            fontsize=10.5,
            fontweight="bold",
            family="monospace",
            color="#123",
            zorder=3,
        )
        ax.text(
            x,
            y - 0.13,
            ROLES[name],
            ha="center",
            va="center",
            fontsize=9,
            color="#333",
            zorder=3,
            linespacing=1.1,
        )
    for level in set(LAYERS.values()):
        ax.text(
            left - 0.1,
            level * _ROW,
            f"layer {level}",
            ha="right",
            va="center",
            fontsize=10,
            color="#666",
        )
    ax.set_xlim(left - 1.3, right)
    ax.set_ylim(-0.6, max(LAYERS.values()) * _ROW + 0.6)
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
