"""Exact distances: a registry of metrics and batched computation.

Registered metrics: ``"levenshtein"``, ``"hamming"``, ``"indel"``,
``"osa"``, ``"damerau_levenshtein"``, ``"lcsseq"``,
``"normalized_levenshtein"``, ``"normalized_indel"``, ``"jaro"``,
``"jaro_winkler"`` and ``"token_set"`` on strings (through rapidfuzz's
scorers), ``"euclidean"``
on numeric rows, ``"dtw"`` on time series (numba)
``"chamfer"`` on point sets (KD-trees) and ``"chamfer_image"`` on
grey-level images (through their edge pixels). Add more with
:func:`register_metric`: a :class:`Metric` record holds everything the
package reads of a metric (kernels, lower bound, lookups, the Levenshtein
radius of joins, the prefix bound, its unit), and is saved by its name.

Inside, by role: ``_registry`` (the record and the registry), ``metrics/``
(one module per family of metrics), ``bounds/`` (lower bounds, lookups and
join radii) and ``engine/`` (batched computation). Other subpackages import
from here only.
"""

from ._registry import Metric, available_metrics, declare_metric_input, get_metric, register_metric
from .bounds._bag_bounds import JaroBagBound, NormalizedBagBound, radius_pair_filter

# The developer interface of sibling subpackages (not in __all__).
from .bounds._deletions import DeletionIndex, deletion_index, deletion_index_bytes
from .bounds._dtw_bounds import DTWBound
from .bounds._jaro_winkler_bound import JaroWinklerBagBound
from .bounds._radii import edit_radius, normalized_radius
from .bounds._string_bounds import (
    HalvedLevenshteinBound,
    LengthRatioBound,
    LevenshteinBound,
    LowerBound,
    NormalizedBound,
)
from .engine._candidates import candidate_distances, ragged_candidate_distances
from .engine._dispatch import CLUSTER_EXECUTORS, chunk_payload, map_chunks
from .engine._pairwise import (
    chunk_per_worker,
    pairwise_block,
    pairwise_distances,
    pairwise_distances_within,
    symmetric_pairwise_distances,
)
from .metrics._chamfer import CHAMFER, CHAMFER_IMAGE, edge_images, images_to_point_sets
from .metrics._dtw import DTW, make_dtw_metric
from .metrics._edit_scorers import DAMERAU_LEVENSHTEIN, INDEL, LCSSEQ, OSA_METRIC
from .metrics._euclidean import EUCLIDEAN
from .metrics._hamming import HAMMING
from .metrics._jaro import JARO, JARO_WINKLER
from .metrics._levenshtein import LEVENSHTEIN
from .metrics._normalized import NORMALIZED_INDEL, NORMALIZED_LEVENSHTEIN
from .metrics._token import TOKEN_SET

for _metric in (
    LEVENSHTEIN,
    HAMMING,
    EUCLIDEAN,
    DTW,
    CHAMFER,
    CHAMFER_IMAGE,
    INDEL,
    OSA_METRIC,
    DAMERAU_LEVENSHTEIN,
    LCSSEQ,
    NORMALIZED_LEVENSHTEIN,
    NORMALIZED_INDEL,
    JARO,
    JARO_WINKLER,
    TOKEN_SET,
):
    register_metric(_metric, overwrite=True)

__all__ = [
    "DTWBound",
    "HalvedLevenshteinBound",
    "JaroBagBound",
    "JaroWinklerBagBound",
    "LengthRatioBound",
    "LevenshteinBound",
    "NormalizedBagBound",
    "NormalizedBound",
    "Metric",
    "available_metrics",
    "candidate_distances",
    "edge_images",
    "edit_radius",
    "get_metric",
    "images_to_point_sets",
    "make_dtw_metric",
    "normalized_radius",
    "pairwise_distances",
    "pairwise_distances_within",
    "ragged_candidate_distances",
    "register_metric",
    "symmetric_pairwise_distances",
]
