"""The recall self-check of a fitted filter, and the radius calibration it feeds.

At fit, a seeded sample of the base acts as pseudo-queries (each excluded
from its own neighbors). Their exact top-k is found over the whole base,
kept sparse (only the pairs within a limit per query): by brute force, or
among the items the metric's lower bound cannot rule out where the
estimator holds it. The filter's top-k recall is then read at every
candidate count C from one search: the share of the true top-k (ties
counted) among the top-C candidates. The same exact distances give, for
every exact radius r, the embedding distances of the pairs within r: the
radius calibration.
"""

import math
import time
from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from ..distances import pairwise_distances_within
from ..index import embedding_spec, paired_embedding_distances
from ..utils import saved_class, take_items

# Pseudo-queries: enough for about 200 true neighbors in all, or for
# 4 / (1 - target_recall) where that is more, 20 to 200.
_TARGET_NEIGHBOURS = 200
_NEIGHBOURS_PER_MISS = 4
_MIN_QUERIES, _MAX_QUERIES = 20, 200
# Candidate counts tried: k times 1, 1.5, 2, 3, 5, 7 per decade, up to the larger
# of 50 k and 1,000.
_STEPS_PER_DECADE = (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
_LARGEST_GRID = 1000
# Candidates refined per neighbor (and at least) to bound each pseudo-query's
# k-th distance before the exact pass.
_REFINED_CANDIDATES = 10
_MIN_REFINED = 50
# Neighbors per pseudo-query whose pairs the radius calibration knows, at least.
_CALIBRATION_NEIGHBORS = 10
# Pairs within a radius needed before their largest embedding distance is
# trusted as its threshold (about the 99.7th percentile).
_MIN_CALIBRATION_PAIRS = 300
# Embedding entries of the pairs compared at once (bounds the rows gathered:
# 2,000 pairs of 1 kbp reads' q-gram profiles, 100,000 of words').
_PAIR_BLOCK_ENTRIES = 2**21
# Pseudo-queries whose exact pairs are found both through the lower bound and
# by brute force, the rest by the cheaper.
_TRIAL_QUERIES = 8
# Rows of the calibration table at most (real-valued distances are subsampled).
_MAX_RADII = 256
# Share of the pseudo-queries that must know all their pairs within a radius
# for it to enter the calibration table.
_SUPPORTING_SHARE = 0.75


def sample_size(n_neighbors, target_recall=0.95):
    """Pseudo-queries of the check for top-``n_neighbors`` recall at ``target_recall``.

    A target is reached where the recall less one standard error is at
    least the target, and a sample of n true neighbors that finds them all
    has an error of about 1.4 / n: 200 neighbors (20 queries at k = 10)
    certify 0.993 at best, so a target of 0.998 was never reached, and the
    filter gave way to brute force. A sample of 4 / (1 - target) neighbors
    reaches the target while it misses up to about half its share (2,000
    neighbors at 0.998: 2 misses).
    """
    misses_allowed = 1.0 - target_recall
    wanted = _NEIGHBOURS_PER_MISS / misses_allowed if misses_allowed > 0 else math.inf
    queries = max(_TARGET_NEIGHBOURS, wanted) / n_neighbors
    return _MAX_QUERIES if queries >= _MAX_QUERIES else max(math.ceil(queries), _MIN_QUERIES)


def candidate_grid(n_neighbors, n_available, at_least=0):
    """Candidate counts the check reads the recall at, ascending."""
    top = min(n_available, max(50 * n_neighbors, _LARGEST_GRID, at_least))
    grid = {top, min(at_least, top)} - {0}
    decade = 1
    while n_neighbors * decade <= top:
        grid.update(min(top, math.ceil(n_neighbors * decade * step)) for step in _STEPS_PER_DECADE)
        decade *= 10
    return np.array(sorted(grid), dtype=np.int64)


@dataclass
@saved_class(formerly=("sklearn_ed.neighbors._recall_check.RecallCheck",))
class RecallCheck:
    """Top-k recall of the filter on the pseudo-queries, at every C of ``grid``."""

    grid: np.ndarray
    per_query: np.ndarray  # (n_queries, len(grid)): recall of each pseudo-query
    n_neighbors: int
    radius_calibration: np.ndarray  # (n_radii, 2): exact radius, embedding threshold
    all_ties: bool = False  # recall of every item tied at the k-th distance

    @property
    def n_queries(self):
        return self.per_query.shape[0]

    def recall(self):
        """Mean recall at each C."""
        return self.per_query.mean(axis=0)

    def standard_error(self):
        """Standard error of the mean recall at each C.

        The spread over the pseudo-queries, and at least the Agresti-Coull
        error of the share of true neighbors found, so that a sample that
        found every neighbor does not claim certainty (200 of 200 found:
        +/- 0.007).
        """
        n_found = self.per_query.sum(axis=0) * self.n_neighbors
        n_true = self.n_queries * self.n_neighbors
        share = (n_found + 2) / (n_true + 4)
        binomial = np.sqrt(share * (1 - share) / (n_true + 4))
        if self.n_queries < 2:
            return binomial
        spread = self.per_query.std(axis=0, ddof=1) / math.sqrt(self.n_queries)
        return np.maximum(spread, binomial)

    def at(self, n_candidates):
        """Recall and standard error at ``n_candidates`` (a C of the grid)."""
        column = int(np.searchsorted(self.grid, n_candidates))
        return float(self.recall()[column]), float(self.standard_error()[column])

    def smallest_reaching(self, target):
        """Smallest C of the grid whose recall, less one standard error, reaches ``target``.

        ``None`` if none does. The standard error keeps a lucky sample from
        choosing too few candidates.
        """
        reached = np.flatnonzero(self.recall() - self.standard_error() >= target)
        return int(self.grid[reached[0]]) if reached.size else None


def low_recall_advice(check, k, n_candidates, fixed, target, embedder_name):
    """The warning of a recall estimate below ``target``, with what to change."""
    estimate, error = check.at(n_candidates)
    ties = ", every item tied with the k-th counted" if check.all_ties else ""
    message = (
        f"estimated top-{k} recall{ties} {estimate:.3f} (+/- {error:.3f}, "
        f"{check.n_queries} items of the base as queries) at "
        f"n_candidates={n_candidates} is below target_recall={target}"
    )
    enough = check.smallest_reaching(target)
    if fixed is not None and enough is not None:
        return (
            f"{message}; n_candidates={enough} reaches it on the sample; or set "
            'n_candidates="auto".'
        )
    return (
        f"{message}; no candidate count up to {int(check.grid[-1])} reaches it with "
        f"{embedder_name}: use exact=True (exact answers), another embedder, or a "
        "lower target_recall."
    )


@dataclass
class RecallSample:
    """The pseudo-queries of a check and their exact pairs, which a second
    check of the same search reuses: only its candidates go deeper. The
    wider check before a filter gives way to brute force used to compute
    them again: fits of 50,000 records under Jaro and Jaro-Winkler at k = 1
    took 3.2 to 3.9 s then, 2.1 to 2.3 s since (results/matrix_knn_records)."""

    queries: np.ndarray = None
    query_embedding: object = None
    limits: np.ndarray = None
    pairs: tuple = None


def check_recall(
    search, n_neighbors, at_least, progress, *, random_state, sample=None, target_recall=0.95
):
    """Run the check on a :class:`FittedSearch` (see the module docstring), and
    set its ``radius_calibration`` from the same pairs.

    ``target_recall`` sizes the sample (:func:`sample_size`).

    ``at_least`` is a candidate count the grid must contain (a fixed
    ``n_candidates``); ``progress`` a tqdm-like bar advanced per pseudo-query;
    ``sample`` a :class:`RecallSample`, filled by the first check that
    gets it empty and reused by later checks of the same search.
    The search's policy says whether its answers need every item tied at
    the k-th distance, not any k of them (a classifier voting with
    ``ties="include"``: a query's recall is then the share of all the items
    within its k-th distance found), and the radius within which the
    calibration must know every pair.
    """
    radius, all_ties = search.policy.calibrated_radius, search.policy.all_ties
    n_samples = search.n_items
    grid = candidate_grid(n_neighbors, n_samples - 1, at_least)
    sample = RecallSample() if sample is None else sample
    size = sample_size(n_neighbors, target_recall)
    queries, query_embedding, candidates, limits, pairs = _sampled_pairs(
        search, n_neighbors, int(grid[-1]), random_state, radius, sample, size
    )
    progress.update(len(queries))
    kth = _kth_smallest(pairs, len(queries), n_neighbors)
    within_kth = np.cumsum(_among(pairs, kth, candidates, n_samples), axis=1)
    if all_ties:
        n_true = np.bincount(pairs[0][pairs[2] <= kth[pairs[0]]], minlength=len(queries))
        per_query = within_kth[:, grid - 1] / np.maximum(n_true, 1)[:, None]
    else:
        per_query = np.minimum(within_kth[:, grid - 1], n_neighbors) / n_neighbors
    calibration = _radius_calibration(search, query_embedding, pairs, limits)
    search.radius_calibration = calibration
    return RecallCheck(grid, per_query, n_neighbors, calibration, all_ties)


def calibrate_radius(search, n_neighbors, *, random_state):
    """Set the search's radius calibration alone, from the check's sample (when
    no check runs); returns it."""
    n_first = max(n_neighbors * _REFINED_CANDIDATES, _MIN_REFINED)
    _, query_embedding, _, limits, pairs = _sampled_pairs(
        search,
        n_neighbors,
        min(n_first, search.n_items - 1),
        random_state,
        search.policy.calibrated_radius,
        RecallSample(),
        sample_size(n_neighbors),
    )
    search.radius_calibration = _radius_calibration(search, query_embedding, pairs, limits)
    return search.radius_calibration


def _sampled_pairs(search, n_neighbors, n_candidates, random_state, radius, sample, size):
    """The check's ``size`` pseudo-queries (a seeded sample of the base), their
    embeddings, their top candidates, limits and exact pairs within them;
    all but the candidates from ``sample`` where it holds them already."""
    if sample.pairs is None:
        rng = check_random_state(random_state)
        n_samples = search.n_items
        size = min(size, n_samples)
        sample.queries = np.sort(rng.choice(n_samples, size=size, replace=False))
        sample.query_embedding = search.embed(take_items(search.items, sample.queries))
    items = take_items(search.items, sample.queries)
    candidates = search.candidates(
        items, n_candidates, sample.queries, embedding=sample.query_embedding
    )
    if sample.pairs is None:
        sample.limits = _limits(search, items, candidates, n_neighbors, radius)
        sample.pairs = _pairs_within_limits(search, items, sample.queries, sample.limits)
    return sample.queries, sample.query_embedding, candidates, sample.limits, sample.pairs


def _limits(search, items, candidates, n_neighbors, radius):
    """Per pseudo-query, a distance within which its true top-k all lie.

    The k-th exact distance among its first candidates (at least the true
    k-th; k at least ``_CALIBRATION_NEIGHBORS`` when radius queries use the
    calibration), and at least the estimator's ``radius``; refining only the first
    ``_REFINED_CANDIDATES`` per neighbor keeps the check from computing
    the distances of every candidate of the grid (20,000 of 1 kbp for reads).
    """
    first = candidates[:, : max(n_neighbors * _REFINED_CANDIDATES, _MIN_REFINED)]
    # Pairs out to the k-th neighbor of at least _CALIBRATION_NEIGHBORS where
    # radius queries use the calibration: with 5 neighbors per query, the
    # largest of the ~100 pairs within the 5th neighbor's distance fell short
    # of 0.99 of the pairs in one run of 3 on reads. Where the estimator holds
    # the bound, radius queries use the bound instead, and verifying out to the
    # 10th neighbor of a word (3 edits, where the bound prunes little) made
    # the check 10 times dearer.
    calibrated = search.bound is None
    k = min(max(n_neighbors, _CALIBRATION_NEIGHBORS) if calibrated else n_neighbors, first.shape[1])
    refined = search.distances(items, first)
    upper = np.partition(refined, k - 1, axis=1)[:, k - 1]
    return np.maximum(upper, float(radius))


def _among(pairs, kth, candidates, n_items):
    """Whether each candidate is a true neighbor: within its query's k-th distance."""
    rows, columns, distances = pairs
    near = distances <= kth[rows]
    true_keys = rows[near] * n_items + columns[near]
    keys = np.arange(len(candidates))[:, None] * n_items + candidates
    return np.isin(keys, true_keys) & (candidates >= 0)


def _pairs_within_limits(search, items, queries, limits):
    """Exact distances of the pseudo-queries to every item, kept where within ``limits``.

    As ``(rows, items, distances)``, grouped by row, without each query's
    own item. The limit of a query is at least the k-th distance of its
    refined candidates, so its true top-k are all kept. Where the estimator
    holds the metric's lower bound (short strings, ``exact=True``), only the
    items it cannot rule out need comparing (the bound is lossless: 0.2 % of
    100,000 words at one or two edits); otherwise, or where that costs
    more, by brute force over the whole base, with the limits as cut-offs,
    which rapidfuzz turns into a banded computation on long strings.

    Which of the two is cheaper is measured on the first
    ``_TRIAL_QUERIES``: on 50,000 person records of 45 characters the bound
    kept so many items that it cost 12 times brute force (2.8 s of a 4 s fit).
    """
    if search.bound is None:
        return _brute_within(search, items, queries, limits)
    if len(queries) <= _TRIAL_QUERIES:
        return _verified_within_bound(search, items, queries, limits)
    trial, rest = slice(0, _TRIAL_QUERIES), slice(_TRIAL_QUERIES, None)
    seconds, found = {}, {}
    for path in (_verified_within_bound, _brute_within):
        start = time.perf_counter()
        found[path] = path(search, items[trial], queries[trial], limits[trial])
        seconds[path] = time.perf_counter() - start
    cheaper = min(seconds, key=seconds.get)
    rows, columns, distances = cheaper(search, items[rest], queries[rest], limits[rest])
    first_rows, first_columns, first_distances = found[cheaper]
    return (
        np.concatenate([first_rows, rows + _TRIAL_QUERIES]),
        np.concatenate([first_columns, columns]),
        np.concatenate([first_distances, distances]),
    )


def _brute_within(search, items, queries, limits):
    """The pairs within ``limits`` of the items and the whole base, every pair compared."""
    rows, columns, distances = pairwise_distances_within(
        items,
        search.items,
        search.metric,
        limits=limits,
        n_jobs=search.n_jobs,
        check_input=False,
    )
    other = columns != queries[rows]
    return rows[other], columns[other], distances[other]


def _verified_within_bound(search, items, queries, limits):
    """The pairs within ``limits`` among the items whose lower bound is within them."""
    found = search.verified_within(items, limits, exclude=queries)
    rows = np.repeat(np.arange(len(found)), [len(columns) for columns, _ in found])
    columns = np.concatenate([columns for columns, _ in found] + [np.empty(0, np.int64)])
    distances = np.concatenate([distances for _, distances in found] + [np.empty(0)])
    return rows, columns, distances


def _pair_embedding_distances(search, query_embedding, rows, columns):
    """Embedding distance of each pair: each item embedded once (far pairs of
    genome reads are most of the sample times the base), pairs in blocks."""
    items, position = np.unique(columns, return_inverse=True)
    item_embedding = search.embed(take_items(search.items, items))
    metric = embedding_spec(search.embedder).metric
    block = max(int(_PAIR_BLOCK_ENTRIES // _row_width(item_embedding)), 1)
    return np.concatenate(
        [
            paired_embedding_distances(
                query_embedding[rows[start : start + block]],
                item_embedding[position[start : start + block]],
                metric,
            )
            for start in range(0, len(rows), block)
        ]
    )


def _row_width(embedding):
    """Stored entries per row: the nonzeros of sparse rows, the columns of dense ones."""
    if hasattr(embedding, "nnz"):
        return max(embedding.nnz / max(embedding.shape[0], 1), 1.0)
    return max(embedding.shape[1], 1) if embedding.ndim == 2 else 1


def _kth_smallest(pairs, n_queries, k):
    """Each query's k-th smallest distance among its pairs (``inf`` with fewer).

    The pairs are grouped by query (``pairwise_distances_within`` sorts them).
    """
    rows, _, distances = pairs
    bounds = np.searchsorted(rows, np.arange(n_queries + 1))
    kth = np.full(n_queries, np.inf)
    for query, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:])):
        if stop - start >= k:
            kth[query] = np.partition(distances[start:stop], k - 1)[k - 1]
    return kth


def _radius_calibration(search, query_embedding, pairs, limits):
    """For each exact radius r seen, an embedding distance holding the pairs within r.

    ``g(r)`` is the largest embedding distance of a pair within exact distance
    ``max(r, r_min)``, where ``r_min`` is the smallest radius with
    ``_MIN_CALIBRATION_PAIRS`` pairs (the largest radius kept, if none has
    them): the largest of fewer pairs would under-estimate a high quantile,
    and pairs within a larger radius lie farther in the embedding too. Pairs
    of query ``i`` count for radii up to ``limits[i]``, the range in which all
    of its pairs are known. The table stops at the radius within which
    ``_SUPPORTING_SHARE`` of the pseudo-queries know all their pairs: beyond
    it few queries would speak, and the largest of their few pairs fell
    short (top-10 recall 0.85 at the tenth-neighbor distance of genome
    reads), so the search scales the last threshold in proportion to the
    radius instead (embedding distances of q-gram profiles grow more slowly
    than edit distance).
    """
    rows, columns, distances = pairs
    if rows.size == 0:
        return np.zeros((0, 2))
    embedded = _pair_embedding_distances(search, query_embedding, rows, columns)
    supported = np.quantile(limits, 1 - _SUPPORTING_SHARE)
    radii = np.unique(distances)
    radii = radii[radii <= supported] if (radii <= supported).any() else radii[:1]
    if len(radii) > _MAX_RADII:
        # Real-valued distances (normalized metrics, Jaro-Winkler) are nearly
        # all distinct: a table row per value cost minutes on 100,000 words.
        # Kept values are still radii seen, and a radius between two rows
        # takes the larger row's threshold: more candidates, never fewer.
        radii = radii[np.unique(np.linspace(0, len(radii) - 1, _MAX_RADII).round().astype(int))]
    thresholds = np.full(len(radii), np.nan)
    counts = np.zeros(len(radii), dtype=np.int64)
    for position, radius in enumerate(radii):
        known = (distances <= radius) & (limits[rows] >= radius)
        counts[position] = known.sum()
        if counts[position]:
            thresholds[position] = embedded[known].max()
    keep = ~np.isnan(thresholds)
    radii, thresholds, counts = radii[keep], thresholds[keep], counts[keep]
    if len(radii) == 0:
        return np.zeros((0, 2))
    enough = np.flatnonzero(counts >= _MIN_CALIBRATION_PAIRS)
    first = enough[0] if enough.size else len(radii) - 1
    thresholds[:first] = thresholds[first]
    return np.column_stack([radii, np.maximum.accumulate(thresholds)])
