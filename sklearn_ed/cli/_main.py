"""The entry point: parse, run the subcommand, turn failures into one line and a code."""

import sys
import warnings

from ._commands import COMMANDS
from ._errors import EXIT_FAILED, EXIT_INPUT, EXIT_OK, CommandError
from ._parser import build_parser


def main(argv=None):
    """Run the ``sklearn-ed`` command line.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments after the program name; ``None`` reads ``sys.argv``.

    Returns
    -------
    exit_code : int
        0 on success, 1 when the run failed, 2 for a wrong option or an
        output that exists without ``--force`` (or that ``--force`` never
        replaces), 3 for a missing or malformed input, 4 when the output's
        folder is missing or cannot be written to.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_ed.cli import main
    >>> folder = tempfile.mkdtemp()
    >>> words = os.path.join(folder, "words.txt")
    >>> _ = open(words, "w").write("kitten\\nsitting\\nmitten\\n")
    >>> main(["knn", words, "-k", "1", "-q"])  # doctest: +NORMALIZE_WHITESPACE
    query	target	distance	rank
    1	3	1	1
    2	1	3	1
    3	1	1	1
    0
    """
    options = build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        try:
            COMMANDS[options.command].run(options)
        except CommandError as error:
            return _fail(error, error.exit_code)
        except KeyboardInterrupt:
            return _fail("interrupted", 130)
        except MemoryError:
            return _fail("out of memory; try a smaller base or sklearn_ed.dask", EXIT_FAILED)
        except (ValueError, TypeError, ImportError) as error:
            if options.debug:
                raise
            return _fail(error, EXIT_FAILED)
        except OSError as error:
            if options.debug:
                raise
            return _fail(f"{error.filename or ''}: {error.strerror or error}", EXIT_INPUT)
    return EXIT_OK


def _fail(message, code):
    print(f"sklearn-ed: error: {message}", file=sys.stderr)
    return code


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    text = " ".join(str(message).split())
    print(f"sklearn-ed: warning: {text}", file=sys.stderr)
