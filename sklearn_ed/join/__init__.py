"""Similarity joins: every pair of one or two lists of strings within a threshold.

:func:`similarity_join` and :func:`iter_similarity_join` find the pairs by a
method of one registry (:func:`register_join_method`): ``"partition"`` (the
Pass-Join partition filter with a bag-distance check) and ``"brute"`` (every
pair, rapidfuzz's score cut-off, the prefix bound) are exact and registered
here; ``"filter"``, approximate (:func:`filter_join` through a fitted
search), is registered by :mod:`sklearn_ed.neighbors`, whose estimator it
fits. ``"auto"`` runs the exact method of least time, measured on samples. Copies of a
string are compared once and their pairs given in bounded blocks.
"""

from ._api import (
    check_output_size,
    concatenated_pairs,
    distance_threshold,
    iter_similarity_join,
    join_prepared,
    pairs_output,
    prepared_join,
    reachable_limit,
    similarity_join,
)
from ._brute import BruteJoin, brute_join
from ._distinct import Distinct, distinct_within
from ._filter import FILTER, check_pair_recall, filter_join
from ._methods import JoinMethod, join_method_names, register_join_method
from ._partition_join import PartitionJoin, partition_join, partition_refusal

register_join_method(
    JoinMethod("partition", partition_join, refusal=partition_refusal, plan=PartitionJoin),
    overwrite=True,
)
register_join_method(
    JoinMethod("brute", brute_join, plan=BruteJoin, small_joins=True), overwrite=True
)

__all__ = [
    "JoinMethod",
    "iter_similarity_join",
    "join_method_names",
    "register_join_method",
    "similarity_join",
]
