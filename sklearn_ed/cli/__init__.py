"""The ``sklearn-ed`` command line: neighbor tables from sequence and text files.

``sklearn-ed knn BASE [QUERIES]``, ``sklearn-ed index BASE -o INDEX``,
``sklearn-ed join LEFT [RIGHT]`` and ``sklearn-ed dedup INPUT``: one module
each, registered in ``_commands``; ``python -m sklearn_ed`` runs the same.
Every failure is one line on stderr and an exit code (see ``sklearn-ed knn
-h``); an output file appears whole or not at all (a FIFO or a device such
as ``/dev/null`` is written into directly).
"""

from ._main import main

__all__ = ["main"]
