"""The command's own progress lines on stderr (``[sklearn-ed] ...``), which ``-q`` silences.

The estimators' lines (``[FilterRefineNeighbors] ...``) are theirs: logged on
the ``sklearn_ed`` logger, which ``-q`` silences by fitting with ``verbose=0``.
"""

import sys
import time


def log(options, message):
    if not options.quiet:
        print(f"[sklearn-ed] {message}", file=sys.stderr, flush=True)


def seconds(started):
    return f"{time.perf_counter() - started:.1f} s"
