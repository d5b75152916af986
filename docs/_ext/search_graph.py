"""The architecture page's second figure: the fitted search and who calls it.

Read from the source at every docs build: for each calling module, the public
attributes and methods of :class:`sklearn_ed.search.FittedSearch` (its exact
passes, inherited from ``ExactPasses``, included)
it uses (an attribute read on a name or attribute called ``search``,
``search_`` or ``fitted``), so the figure cannot drift from the code.
"""

import ast
import textwrap
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "sklearn_ed"
SEARCH = PACKAGE / "search" / "_fitted.py"
EXACT_PASSES = PACKAGE / "search" / "_exact.py"
# Callers, with the label they get in the figure and where they sit (x, y).
CALLERS = {
    "neighbors/_base.py": ("estimators: fit, partial_fit", (-3.4, 2.0)),
    "neighbors/_kneighbors.py": ("estimators: kneighbors", (-3.4, 0.65)),
    "neighbors/_unsupervised.py": ("radius_neighbors", (-3.4, -0.7)),
    "dask/_shards.py": ("Dask shards", (-3.4, -2.05)),
    "neighbors/_supervised.py": ("classifier, regressor:\nvotes with ties", (0.0, -2.05)),
    "search/_recall_check.py": ("recall check,\nradius calibration", (3.4, 2.0)),
    "search/_memory.py": ("memory check:\nsample builds", (3.4, 0.65)),
    "metrics/_scorers.py": ("scorers", (3.4, -0.7)),
    "metrics/_pruning.py": ("pruned_fraction", (3.4, -2.05)),
}
_NAMES = {"search", "search_", "fitted"}


def public_members():
    """Public methods, properties and attributes of FittedSearch."""
    cls = _class(SEARCH, "FittedSearch")
    members = {
        node.name
        for node in [*cls.body, *_class(EXACT_PASSES, "ExactPasses").body]
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
    }
    init = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    for node in ast.walk(init):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if not node.attr.startswith("_"):
                members.add(node.attr)
    return members


def _class(path, name):
    tree = ast.parse(path.read_text())
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def uses(path, members):
    """The members ``path`` reads on a search object."""
    used = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Attribute) or node.attr not in members:
            continue
        owner = node.value
        name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", None)
        if name in _NAMES:
            used.add(node.attr)
    return sorted(used)


def draw(path):
    """Draw the fitted search in the middle and its callers around it to ``path``."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch

    members = public_members()
    fig, ax = plt.subplots(figsize=(10.5, 7.0))
    state = "items · metric · embedder · policy\nindex · bound · near · far\nradius_calibration"
    _box(ax, (0, 0.3), 2.6, 1.6, "#fff4e0", "#b36b00")
    ax.text(0, 0.78, "FittedSearch (search_)", ha="center", fontsize=11, fontweight="bold")
    ax.text(0, 0.12, state, ha="center", va="center", fontsize=9, family="monospace")
    for module, (label, (x, y)) in CALLERS.items():
        used = textwrap.fill(", ".join(uses(PACKAGE / module, members)), 30)
        _box(ax, (x, y), 2.6, 1.1, "#eef4fa", "#1f5f99")
        ax.text(x, y + 0.27, label, ha="center", va="center", fontsize=9.5, fontweight="bold")
        ax.text(x, y - 0.25, used, ha="center", va="center", fontsize=7.5, family="monospace")
        start = (x + (1.3 if x < 0 else -1.3 if x > 0 else 0), y + (0.55 if x == 0 else 0))
        end = (
            (-1.3 if x < 0 else 1.3 if x > 0 else 0),
            max(min(y, 0.9), -0.3) if x else -0.5,
        )
        ax.add_patch(
            FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, color="#5a6b7b")
        )
    ax.set_xlim(-4.8, 4.8)
    ax.set_ylim(-2.75, 2.7)
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _box(ax, center, width, height, face, edge):
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(
        FancyBboxPatch(
            (center[0] - width / 2, center[1] - height / 2),
            width,
            height,
            boxstyle="round,pad=0.02,rounding_size=0.08",
            facecolor=face,
            edgecolor=edge,
            linewidth=1.3,
        )
    )
