"""The optional packages: what needs them, and the error that says how to get them.

The core install (q-gram and CGK embedders, the vector indexes, exact mode,
joins, metrics, Dask) runs without PyTorch. The neural embedders and the
networks inside saved files need the ``neural`` extra; they ask for it here,
so the error a user sees names the extra instead of a bare missing module.
"""

import importlib

NEURAL_EXTRA = "neural"
_NEURAL_PACKAGES = ("torch", "skorch")
PANDAS_EXTRA = "pandas"


def require_neural(purpose):
    """Import PyTorch and skorch, or raise an ImportError naming the extra.

    Parameters
    ----------
    purpose : str
        What needs them, as the start of a sentence ("CNNEDEmbedder.fit").

    Returns
    -------
    torch : module
    """
    for package in _NEURAL_PACKAGES:
        try:
            importlib.import_module(package)
        except ImportError as error:
            raise ImportError(
                f"{purpose} needs PyTorch and skorch, which the core install of "
                f"sklearn-ed leaves out ({package!r} is missing). Install them with "
                f"pip install 'sklearn-ed[{NEURAL_EXTRA}]' (or install torch and "
                "skorch yourself, e.g. a CPU-only torch build)."
            ) from error
    return importlib.import_module("torch")


def require_pandas(purpose):
    """Import pandas, or raise an ImportError naming the extra that brings it.

    Parameters
    ----------
    purpose : str
        What needs it, as the start of a sentence ("groups_frame").

    Returns
    -------
    pandas : module
    """
    try:
        return importlib.import_module("pandas")
    except ImportError as error:
        raise ImportError(
            f"{purpose} returns a pandas DataFrame, and pandas is not installed. Install "
            f"it with pip install 'sklearn-ed[{PANDAS_EXTRA}]' (or pip install pandas)."
        ) from error
