"""Deduplication: groups of near-duplicate strings built on the exact similarity join."""

from ._deduplicator import StringDeduplicator

__all__ = ["StringDeduplicator"]
