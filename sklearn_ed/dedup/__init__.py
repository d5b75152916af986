"""Deduplication: groups of near-duplicate strings built on the exact similarity join."""

from ._deduplicator import StringDeduplicator

# The developer interface of the records subpackage (not in __all__).
from ._grouping import LINKAGES, group_pairs

__all__ = ["StringDeduplicator"]
