"""The estimators' progress lines, logged on the ``sklearn_ed`` logger.

An estimator with ``verbose`` set logs one line per stage at INFO, on the
logger of its subpackage (``sklearn_ed.neighbors``, ``sklearn_ed.embedding``).
The standard :mod:`logging` API routes them; what a user has not configured
is set up on the first line, so that ``verbose=1`` alone prints them on
stderr, as scikit-learn's verbose estimators print theirs:

- the ``sklearn_ed`` logger gets level INFO unless it has a level already
  (``logging.getLogger("sklearn_ed").setLevel(logging.WARNING)`` silences
  the lines);
- unless it has a handler already, it gets one that writes the bare line to
  ``sys.stderr``, and stops propagating, so that a root configuration
  (``logging.basicConfig``) does not print each line a second time. A
  handler of the user's on ``sklearn_ed``, added before the first line,
  takes the lines instead (a ``logging.NullHandler`` there sends them on to
  the root logger's handlers alone).
"""

import logging
import sys

LOGGER_NAME = "sklearn_ed"


class _StderrHandler(logging.Handler):
    """Writes each line to ``sys.stderr`` as it is at that moment (a redirection
    made after the handler is honoured), through ``tqdm.write`` so that an open
    progress bar is redrawn below the line rather than broken by it."""

    def emit(self, record):
        from tqdm.auto import tqdm  # on the first line: 'sklearn-ed --help' loads utils

        try:
            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:  # logging's contract: report through handleError, never raise
            self.handleError(record)


def log_progress(estimator, message):
    """Log ``[EstimatorName] message`` at INFO when ``estimator.verbose`` is set.

    The logger is ``sklearn_ed.<subpackage>`` of the estimator's class (the
    ``sklearn_ed`` logger for a class defined elsewhere); see the module
    docstring for what is set up when nothing is configured.

    Parameters
    ----------
    estimator : object
        Has a ``verbose`` attribute; nothing is logged when it is falsy.
    message : str
        The line, without the ``[EstimatorName]`` prefix.

    Examples
    --------
    >>> import io, logging
    >>> from sklearn_ed.utils import log_progress
    >>> class Demo:
    ...     verbose = 1
    >>> lines = io.StringIO()
    >>> handler = logging.StreamHandler(lines)
    >>> logging.getLogger("sklearn_ed").addHandler(handler)
    >>> log_progress(Demo(), "fitted")
    >>> lines.getvalue()
    '[Demo] fitted\\n'
    >>> logging.getLogger("sklearn_ed").removeHandler(handler)
    """
    if not estimator.verbose:
        return
    cls = type(estimator)
    parts = cls.__module__.split(".")
    name = ".".join(parts[:2]) if parts[0] == LOGGER_NAME else LOGGER_NAME
    _configure_unless_configured()
    logging.getLogger(name).info("[%s] %s", cls.__name__, message)


def _configure_unless_configured():
    logger = logging.getLogger(LOGGER_NAME)
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.INFO)
    if not logger.handlers:
        logger.addHandler(_StderrHandler())
        logger.propagate = False
