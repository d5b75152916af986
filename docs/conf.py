"""Sphinx configuration of the sklearn-ed documentation.

Build (from the repository root)::

    python -m sphinx -b html -W --keep-going docs docs/_build/html
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from sphinx_gallery.sorting import ExplicitOrder  # noqa: E402

import sklearn_ed  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

# -- Project -----------------------------------------------------------------
project = "sklearn-ed"
author = "The sklearn-ed developers"
copyright = "2025, The sklearn-ed developers"
version = release = sklearn_ed.__version__

# -- General -----------------------------------------------------------------
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinx_copybutton",
    "mathml",
    "benchlogs",
]
# Formulas become MathML at build time (docs/_ext/mathml.py): no MathJax
# from a CDN, so the pages read the same offline.
html_math_renderer = "mathml"

templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    # Pieces written to be included by other pages, not standalone pages.
    "_benchmarks",
    # sphinx-gallery writes these next to the generated examples.
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "auto_examples/*.md5",
    "auto_examples/*.pickle",
]
root_doc = "index"
default_role = "obj"
nitpicky = False

# -- autodoc / autosummary / numpydoc ---------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- sphinx-gallery ----------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # Every plot_*.py is executed (CI runs them all).
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "abort_on_example_error": True,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib", "gallery_style.reset_matplotlib"),
    "matplotlib_animations": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    # The quickstart (top level), then by task.
    "subsection_order": ExplicitOrder(
        [
            "../examples/search",
            "../examples/sequence_files",
            "../examples/classification",
            "../examples/clustering",
            "../examples/other_metrics",
            "../examples/learned_embedders",
            "../examples/scaling",
        ]
    ),
    "download_all_examples": False,
    "plot_gallery": "True",
    # "Examples using X" mini-galleries on the API pages.
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("sklearn_ed",),
    "inspect_global_variables": False,
    # The computation-times page loads DataTables from a CDN (offline docs).
    "write_computation_times": False,
}


# Inherited scikit-learn methods whose docstrings cross-reference
# scikit-learn's own documentation (labels and glossary terms that do not
# exist here, so they would break the ``-W`` build). They behave exactly as
# in scikit-learn; api.rst says so.
_SKLEARN_MEMBERS_SKIPPED = {"get_metadata_routing", "set_output", "score"}


def _skip_sklearn_members(app, what, name, obj, skip, options):
    if name.startswith("set_") and name.endswith("_request"):
        return True
    defined_in = getattr(obj, "__module__", None) or ""
    if name in _SKLEARN_MEMBERS_SKIPPED and defined_in.startswith("sklearn."):
        return True
    # The networks inherit torch.nn.Module and skorch.NeuralNet: their own
    # reference documents those members (their docstrings cite labels of it).
    if defined_in.startswith(("torch", "skorch")):
        return True
    return None


def _draw_benchmark_figures(app):
    """Redraw the benchmark figures from the result files on every build."""
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from benchmarks.render_figures import render

    render(Path(app.srcdir) / "benchmarks" / "figures")


def _draw_import_graph(app):
    """The architecture page's figure, from the import statements of the source."""
    import import_graph

    figures = Path(app.srcdir) / "figures"
    figures.mkdir(exist_ok=True)
    import_graph.draw(figures / "import_graph.svg")


def _draw_search_graph(app):
    """The fitted search and its callers, read from the source."""
    import search_graph

    figures = Path(app.srcdir) / "figures"
    figures.mkdir(exist_ok=True)
    search_graph.draw(figures / "search_graph.svg")


def setup(app):
    app.connect("autodoc-skip-member", _skip_sklearn_members)
    app.connect("builder-inited", _draw_benchmark_figures)
    app.connect("builder-inited", _draw_import_graph)
    app.connect("builder-inited", _draw_search_graph)


# -- HTML --------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "install": []}
html_static_path = ["_static"]
html_css_files = ["sklearn_ed.css"]
html_title = f"sklearn-ed {release}"
# Copy buttons skip prompts and output of console and doctest blocks.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
