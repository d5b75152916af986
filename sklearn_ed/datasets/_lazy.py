"""Lazy import of the optional packages that ship the real data sets."""

import importlib
import sys

# Module name -> name of the distribution to install with pip.
_PIP_NAMES = {"codespell_lib": "codespell"}


def _import_optional(module_name, extra="datasets", *, caller=None):
    """Import an optional module, or explain how to install it.

    Parameters
    ----------
    module_name : str
        Name of the module to import, e.g. ``"wordfreq"``.
    extra : str, default="datasets"
        Name of the ``sklearn-ed`` extra that installs the package.
    caller : str, default=None
        Name of the public function that needs the module, used in the error
        message. Defaults to the name of the calling function.

    Returns
    -------
    module : module
        The imported module.

    Raises
    ------
    ImportError
        If the module cannot be imported. The message names the function,
        the package and the extra to install.

    Examples
    --------
    >>> from sklearn_ed.datasets._lazy import _import_optional
    >>> _import_optional("numpy").__name__
    'numpy'
    """
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        if caller is None:
            caller = sys._getframe(1).f_code.co_name
        package = _PIP_NAMES.get(module_name, module_name)
        raise ImportError(
            f"{caller} requires the {package!r} package; install it with: "
            f"pip install 'sklearn-ed[{extra}]'"
        ) from exc
