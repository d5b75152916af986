"""The search engine of the FilterRefine estimators: what a fit produces and answers from.

A :class:`FittedSearch` holds the base, its embedding and vector index, the
metric's lower bound and lookups, and the radius calibration; it answers
k-nearest and radius queries (filter, refine, and in exact search the
passes that verify what the bound keeps). A :class:`SearchPolicy`, decided
once at fit from the metric, the base and the estimator's parameters, says
which lookups it keeps and how it answers. The recall check measures the
filter on a sample of the base; the memory check estimates a fit before it
runs; :func:`choose_embedder` is ``embedder="auto"``. The estimators of
:mod:`sklearn_ed.neighbors` validate, build the policy, fit a search and
answer through it; the Dask shards hold one each.
"""

from ._batching import FIT_BATCH_SIZE, QUERY_BATCH_SIZE, batches, concat_items
from ._brute import (
    BRUTE_FORCE,
    BRUTE_QUERY_SECONDS,
    FILTER_REFINE,
    BruteSearch,
    brute_force_limit,
    brute_force_seconds,
)
from ._embedder_choice import choose_embedder
from ._exact import check_lower_bound
from ._fitted import FittedSearch
from ._memory import check_fit_memory, fit_memory_estimate
from ._policy import SearchPolicy
from ._recall_check import (
    RecallCheck,
    RecallSample,
    calibrate_radius,
    check_recall,
    low_recall_advice,
    sample_size,
)
from ._speed_check import (
    PrunedBruteTiming,
    QueryTiming,
    pruned_brute_seconds,
    pseudo_queries,
    time_queries,
)

# The user API; the other names above are the developer interface of the
# estimators, the metrics and the Dask shards.
__all__ = ["BruteSearch", "FittedSearch", "SearchPolicy"]
