"""The subcommands, in the order ``sklearn-ed --help`` lists them.

A subcommand is a module with

- ``NAME``, ``HELP`` (its line in ``sklearn-ed --help``), ``OPERANDS`` (for
  its usage line), ``DESCRIPTION`` and ``EXAMPLES`` (its ``-h`` page);
- ``add_arguments(parser)``, which adds its operands and options to its
  argparse parser (``build_parser`` adds the input and other groups);
- ``run(options)``, which does the work; it raises ``CommandError`` for a
  failure the user can fix, which ``main`` turns into one line and an exit code.

A new subcommand is such a module and its line below. Every module here is
imported to build the parser, so none imports scikit-learn at its top (what
loads it, the estimators, is imported inside the function that needs it):
``sklearn-ed --help`` and a wrong option answer without that second or two.
"""

from . import _dedup, _index, _join, _knn, _records

COMMANDS = {command.NAME: command for command in (_knn, _index, _join, _dedup, _records)}
