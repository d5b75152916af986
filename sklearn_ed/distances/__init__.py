"""Exact distances: a registry of metrics and batched computation.

Registered metrics: ``"levenshtein"`` and ``"hamming"`` on strings (through
rapidfuzz) and ``"euclidean"`` on numeric rows. Add more with
:func:`register_metric`.
"""

from ._euclidean import EUCLIDEAN
from ._hamming import HAMMING
from ._levenshtein import LEVENSHTEIN
from ._pairwise import candidate_distances, pairwise_distances
from ._registry import Metric, available_metrics, get_metric, register_metric

for _metric in (LEVENSHTEIN, HAMMING, EUCLIDEAN):
    register_metric(_metric, overwrite=True)

__all__ = [
    "Metric",
    "available_metrics",
    "candidate_distances",
    "get_metric",
    "pairwise_distances",
    "register_metric",
]
