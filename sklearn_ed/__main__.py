"""``python -m sklearn_ed``: the same as the ``sklearn-ed`` command."""

import sys

from .cli import main

sys.exit(main())
