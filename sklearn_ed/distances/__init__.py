"""Exact distances: a registry of metrics and batched computation.

Registered metrics: ``"levenshtein"``, ``"hamming"``, ``"indel"``,
``"osa"``, ``"damerau_levenshtein"``, ``"lcsseq"``,
``"normalized_levenshtein"``, ``"normalized_indel"``, ``"jaro"``,
``"jaro_winkler"`` and ``"token_set"`` on strings (through rapidfuzz's
scorers), ``"euclidean"``
on numeric rows, ``"dtw"`` on time series (numba)
``"chamfer"`` on point sets (KD-trees) and ``"chamfer_image"`` on
grey-level images (through their edge pixels). Add more with
:func:`register_metric`.
"""

from ._bounds import HalvedLevenshteinBound, LengthRatioBound, LevenshteinBound, NormalizedBound
from ._candidates import candidate_distances, ragged_candidate_distances
from ._chamfer import CHAMFER, CHAMFER_IMAGE, edge_images, images_to_point_sets

# The developer interface of sibling subpackages (not in __all__).
from ._deletions import DeletionIndex, deletion_index, deletion_index_bytes
from ._dispatch import CLUSTER_EXECUTORS, chunk_payload, map_chunks
from ._dtw import DTW, make_dtw_metric
from ._dtw_bounds import DTWBound
from ._euclidean import EUCLIDEAN
from ._hamming import HAMMING
from ._levenshtein import LEVENSHTEIN
from ._pairwise import (
    chunk_per_worker,
    pairwise_block,
    pairwise_distances,
    pairwise_distances_within,
    symmetric_pairwise_distances,
)
from ._registry import Metric, available_metrics, declare_metric_input, get_metric, register_metric
from ._string_scorers import STRING_METRICS

for _metric in (LEVENSHTEIN, HAMMING, EUCLIDEAN, DTW, CHAMFER, CHAMFER_IMAGE, *STRING_METRICS):
    register_metric(_metric, overwrite=True)

__all__ = [
    "DTWBound",
    "HalvedLevenshteinBound",
    "LengthRatioBound",
    "LevenshteinBound",
    "NormalizedBound",
    "Metric",
    "available_metrics",
    "candidate_distances",
    "edge_images",
    "get_metric",
    "images_to_point_sets",
    "make_dtw_metric",
    "pairwise_distances",
    "pairwise_distances_within",
    "ragged_candidate_distances",
    "register_metric",
    "symmetric_pairwise_distances",
]
