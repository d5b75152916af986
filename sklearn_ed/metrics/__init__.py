"""Evaluation of embeddings and neighbor search, and scorers for GridSearchCV."""

from ._display import RecallCurveDisplay
from ._neighbors import (
    approximation_error,
    exact_distance_speedup,
    exact_distances_needed,
    recall_curve,
    top_k_recall,
)
from ._pruning import pruned_fraction
from ._retrieval import (
    eleven_point_average_precision,
    pairwise_clustering_precision,
    r_precision,
)
from ._scorers import make_exact_distance_speedup_scorer, make_top_k_recall_scorer

__all__ = [
    "RecallCurveDisplay",
    "approximation_error",
    "eleven_point_average_precision",
    "exact_distance_speedup",
    "exact_distances_needed",
    "make_exact_distance_speedup_scorer",
    "make_top_k_recall_scorer",
    "pairwise_clustering_precision",
    "pruned_fraction",
    "r_precision",
    "recall_curve",
    "top_k_recall",
]
