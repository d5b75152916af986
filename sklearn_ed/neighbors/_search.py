"""The fitted search: what a fit produces, and the one contract everything queries.

A :class:`FittedSearch` holds the base items, the exact metric, the fitted
embedder, the vector index of the embedded base, the metric's lower bound
over the base and its near lookup (both optional), and the radius
calibration. Its public methods are the whole contract: the FilterRefine
estimators delegate their queries to it, and the recall check, the exact
verification, the scorers and the Dask shards call these methods and read
these attributes, never an estimator's private state, as scikit-learn's
``NearestNeighbors`` delegates to its tree and every faiss index answers the
same ``search``.

Bound and near lookup are derived state: :meth:`add` extends them (in
segments, :mod:`._segments`), and a saved search rebuilds them from the
items when loaded.
"""

import functools
import warnings

import numpy as np

from ..distances import candidate_distances, ragged_candidate_distances
from ..index import embed_for_index, embedding_spec, make_index, sort_by_value
from ..utils import SavedStateError, apply_processor, check_items, take_items
from ._batching import FIT_BATCH_SIZE, appended_items, batches, short_strings
from ._exact import answer_near, bounded_items, empty_top_k, verify_bounded
from ._segments import SegmentedLookup


class FittedSearch:
    """The base, its embedding and index, and the metric's bounds: one searchable object.

    Parameters
    ----------
    metric : Metric
        The exact distance (a :class:`~sklearn_ed.distances.Metric`).
    embedder : transformer
        Fitted; maps items to the vectors the index compares.
    index_settings : dict
        ``algorithm``, ``params``, ``random_state`` and ``n_jobs`` of
        :func:`~sklearn_ed.index.make_index`: the vector index is built at
        the first :meth:`add`, for that many items.
    with_bound : bool
        Keep the metric's lower bound over the base (exact search, radius
        search on short strings).
    with_near : bool
        Keep the metric's near lookup as well: :meth:`kneighbors` answers
        from it, exactly, every query with enough items within its depth.
    near_depth : int, default=None
        Depth of the near lookup (edits it answers within); ``None``: the
        metric's own (2 for edit distance), as exact search uses it.
    with_far : bool, default=False
        Keep the metric's far lookup as well (exact search): the items
        within its ``max_distance`` come from it instead of the bound.
    n_jobs : int or None
        Threads of the exact distances.
    processor : str, callable or None, default=None
        Applied to queries by :meth:`check_queries` (the items were
        processed by the estimator before they were added).

    Attributes
    ----------
    items : ndarray
        The base, in the order of its indices.
    index : BaseIndex
        The vector index of the embedded base.
    bound : object or None
        ``bound.within(queries, limits)``: per query the items whose lower
        bound is at most its limit, with their bounds.
    near : object or None
        ``near.within(queries, limits)`` for ``limits <= near.depth``.
    far : object or None
        ``far.within(queries, limits)`` for ``limits <= far.max_distance``.
    radius_calibration : ndarray of shape (n_radii, 2) or None
        Exact radius and the embedding distance holding its pairs (see
        :mod:`._recall_check`); ``None`` until calibrated.
    """

    def __init__(
        self,
        metric,
        embedder,
        index_settings,
        *,
        with_bound,
        with_near,
        n_jobs,
        processor=None,
        near_depth=None,
        with_far=False,
    ):
        self.metric = metric
        self.embedder = embedder
        self.index_settings = dict(index_settings)
        self.with_bound = with_bound
        self.with_near = with_near
        self.near_depth = near_depth
        self.with_far = with_far
        self.n_jobs = n_jobs
        self.processor = processor
        self.items = None
        self.index = None
        self.bound = None
        self.near = None
        self.far = None
        self.radius_calibration = None

    # ----------------------------------------------------------------- build
    @property
    def n_items(self):
        return 0 if self.items is None else len(self.items)

    def add(self, items, embedding=None, progress=None):
        """Append ``items`` (embedded here, or given as ``embedding``), and extend
        the bound and the near lookup by them."""
        if embedding is not None:
            self._index_embedding(embedding, len(items))
        else:
            for rows in batches(len(items), FIT_BATCH_SIZE):
                batch = take_items(items, np.arange(rows.start, rows.stop))
                self._index_embedding(self.embed(batch), len(items))
                if progress is not None:
                    progress.update(len(batch))
        if self.items is None:
            self.items = items
        else:
            self._buffer, self.items = appended_items(
                getattr(self, "_buffer", None), self.items, items
            )
        self._derive()
        return self

    def _index_embedding(self, embedding, n_items):
        if self.index is None:
            settings = self.index_settings
            self.index = make_index(
                settings["algorithm"],
                embedding_spec(self.embedder),
                n_items=n_items,
                n_features=embedding.shape[1],
                params=settings["params"],
                random_state=settings["random_state"],
                n_jobs=settings["n_jobs"],
            )
        self.index.add(embedding)

    def _derive(self, rebuild=False):
        """The bound and the near lookup over the current items: extended by the
        items added since, or (``rebuild``) built anew. Each is kept in
        segments, so an append costs in proportion to its own size."""
        if rebuild:
            self._bound_segments = self._near_segments = self._far_segments = None
        bound = self.metric.lower_bound if self.with_bound else None
        near = self.metric.near_lookup if self.with_near else None
        if near is not None and self.near_depth is not None:
            near = functools.partial(near, depth=self.near_depth)
        had_near = self._usable(getattr(self, "_near_segments", None))
        self._bound_segments = self._extended(getattr(self, "_bound_segments", None), bound)
        self._near_segments = self._extended(getattr(self, "_near_segments", None), near)
        far = self.metric.far_lookup if self.with_far else None
        self._far_segments = self._extended(getattr(self, "_far_segments", None), far)
        self.bound = self._bound_segments if self._usable(self._bound_segments) else None
        self.near = self._near_segments if self._usable(self._near_segments) else None
        self.far = self._far_segments if self._usable(self._far_segments) else None
        if had_near and self.near is None:
            # A lookup lost as the base grew changes how its queries are answered.
            warnings.warn(
                f"The near lookup of {self.n_items:,} items would exceed its memory "
                "budget: the queries it answered go through the filter from now on"
                + (" and the lower bound (still exact, slower)." if self.with_bound else "."),
                UserWarning,
                stacklevel=2,
            )

    def _extended(self, segments, build):
        if build is None:
            return None
        segments = SegmentedLookup(build) if segments is None else segments
        segments.extend(self.items)
        return segments

    @staticmethod
    def _usable(segments):
        return segments is not None and segments.available

    # ---------------------------------------------------------------- query
    def embed(self, queries):
        """The queries' vectors, as the index compares them."""
        return embed_for_index(self.embedder, queries)

    def candidates(self, queries, n_candidates, exclude=None, embedding=None):
        """Indices of the ``n_candidates`` nearest items by embedding distance
        (``-1``: an empty slot); ``exclude[i]`` is never a candidate of query i."""
        embedding = self.embed(queries) if embedding is None else embedding
        return self.index.search(embedding, n_candidates, exclude=exclude)[1]

    def distances(self, queries, candidates, cutoffs=None):
        """Exact distances of query i to the items ``candidates[i]`` (``inf`` for
        an empty slot, or beyond ``cutoffs[i]`` where the metric abandons)."""
        return candidate_distances(
            queries,
            self.items,
            candidates,
            self.metric,
            score_cutoff=cutoffs,
            n_jobs=self.n_jobs,
            check_input=False,
        )

    def distances_to_lists(self, queries, lists, cutoffs):
        """Exact distances of query i to the items of ``lists[i]`` (ragged)."""
        return ragged_candidate_distances(
            queries,
            self.items,
            lists,
            self.metric,
            score_cutoff=cutoffs,
            n_jobs=self.n_jobs,
            check_input=False,
        )

    def refine(self, queries, candidates, n_neighbors):
        """The ``n_neighbors`` nearest of each query's candidates, by exact
        distance, ties by index."""
        if (
            self.metric.supports_cutoff
            and candidates.shape[1] > n_neighbors
            and not short_strings(queries)
        ):
            # The best-embedded n_neighbors candidates bound the k-th distance;
            # rapidfuzz abandons the remaining pairs as soon as they exceed it.
            head = self.distances(queries, candidates[:, :n_neighbors])
            tail = self.distances(queries, candidates[:, n_neighbors:], head.max(axis=1))
            exact = np.hstack([head, tail])
        else:
            exact = self.distances(queries, candidates)
        by_index = np.argsort(candidates, axis=1)
        indices, distances = sort_by_value(
            np.take_along_axis(candidates, by_index, axis=1),
            np.take_along_axis(exact, by_index, axis=1),
        )
        return distances[:, :n_neighbors], indices[:, :n_neighbors]

    def kneighbors(self, queries, n_neighbors, n_candidates, exclude=None, exact=False):
        """The exact top-``n_neighbors`` of a batch, and the exact distances each took.

        First answer from the near lookup (when there is one) the queries it
        can, exactly; filter ``n_candidates`` for the others by embedding
        distance and refine them; with ``exact=True`` then verify every item
        whose lower bound beats the k-th distance (the answer is then brute
        force's). ``exclude[i]`` is never an answer
        of query i. Returns ``((distances, indices), n_verified)``.
        """
        distances = np.empty((len(queries), n_neighbors), dtype=np.float64)
        indices = np.empty((len(queries), n_neighbors), dtype=np.int64)
        counts = np.zeros(len(queries), dtype=np.int64)
        rest = np.arange(len(queries))
        if self.near is not None:
            near, found, counts[near] = answer_near(self, queries, n_neighbors, exclude)
            distances[near], indices[near] = found
            rest = np.setdiff1d(rest, near)
        if rest.size:
            batch = take_items(queries, rest)
            batch_exclude = None if exclude is None else exclude[rest]

            def filtered(rows):
                rows_exclude = None if batch_exclude is None else batch_exclude[rows]
                return self.candidates(take_items(batch, rows), n_candidates, rows_exclude)

            if exact and self.bound_stages:
                # The passes answer most of these without the filter.
                none_yet = (
                    *empty_top_k(len(rest), n_neighbors),
                    np.empty((len(rest), 0), np.int64),
                )
                found, counts[rest] = verify_bounded(
                    self, batch, *none_yet, batch_exclude, filtered
                )
            else:
                candidates = filtered(np.arange(len(rest)))
                found = self.refine(batch, candidates, n_neighbors)
                counts[rest] = (candidates >= 0).sum(axis=1)
                if exact:
                    found, extra = verify_bounded(self, batch, *found, candidates, batch_exclude)
                    counts[rest] += extra
            distances[rest], indices[rest] = found
        return (distances, indices), counts

    def verified_within(self, queries, limits, lists=None, exclude=None):
        """Per query, the items within its limit by exact distance, and those distances.

        The items compared are ``lists[i]`` when given (a range search's
        candidates), else every item the lower bound does not rule out
        (then the answer is exact); ``exclude[i]`` is left out.
        """
        if lists is None:
            lists = [items for items, _ in bounded_items(self, queries, limits, exclude)]
        found = []
        for items, distances, limit in zip(
            lists, self.distances_to_lists(queries, lists, limits), limits
        ):
            within = distances <= limit
            found.append((np.asarray(items, dtype=np.int64)[within], distances[within]))
        return found

    def check_queries(self, X):
        """``X`` validated as items of the base's kind (strings, vectors, objects),
        processed as the base was."""
        return apply_processor(self.processor, check_items(X, self.metric.input_type))

    @property
    def bound_stages(self):
        """Limits the far lookup answers cheaply: :func:`verify_bounded`
        verifies the items within each first, in passes."""
        return () if self.far is None else self.far.stages

    def within_bound(self, queries, limits):
        """Per query, the items that may lie within its limit (every one that
        does: from the far lookup up to its reach, else those whose lower
        bound is at most the limit), each with a lower bound of its distance."""
        limits = np.asarray(limits, dtype=np.float64)
        if self.far is None:
            return self.bound.within(queries, limits)
        reached = limits <= self.far.max_distance
        found = [None] * len(queries)
        for rows, lookup in ((reached, self.far), (~reached, self.bound)):
            rows = np.flatnonzero(rows)
            answers = lookup.within(take_items(queries, rows), limits[rows]) if rows.size else []
            for row, answer in zip(rows, answers):
                found[row] = answer
        return found

    def embedding_threshold(self, radius, blowup=1.0):
        """Embedding distance within which the items of an exact ``radius`` lie.

        The largest embedding distance of a calibration pair within the
        smallest calibrated radius at least ``radius`` (times ``blowup``);
        beyond the largest calibrated radius, scaled in proportion. ``inf``
        (every item) without calibration pairs.
        """
        radii, thresholds = self.radius_calibration.T
        if len(radii) == 0 or blowup == np.inf:
            return np.inf
        position = int(np.searchsorted(radii, radius))
        if position < len(radii):
            threshold = thresholds[position]
        else:
            threshold = thresholds[-1] * radius / max(radii[-1], 1e-12)
        return blowup * threshold

    @classmethod
    def restore(cls, metric, embedder, index_settings, items, index, **settings):
        """A search over ``items`` already embedded in ``index`` (saved before this
        object existed); ``settings``: ``with_bound``, ``with_near``, ``n_jobs``
        and ``radius_calibration``."""
        calibration = settings.pop("radius_calibration", None)
        search = cls(metric, embedder, index_settings, **settings)
        search.items, search.index, search.radius_calibration = items, index, calibration
        search._derive(rebuild=True)
        return search

    # ---------------------------------------------------------- persistence
    def __getstate__(self):
        # Declared state: the bound and the lookups are rebuilt from the items.
        state = dict(vars(self))
        state["bound"] = state["near"] = state["far"] = None
        # A lookup given up as the base grew stays given up: rebuilt whole on
        # load, it could fit again and answer queries the filter answered.
        for setting, derived in _LOOKUPS.items():
            segments = state.pop(derived, None)
            if segments is not None and not segments.available:
                state[setting] = False
        state.pop("_buffer", None)
        return state

    def __setstate__(self, state):
        items, index = state.get("items"), state.get("index")
        if items is not None and index is not None and index.n_items != len(items):
            raise SavedStateError("index", f"{index.n_items} items indexed, {len(items)} saved")
        vars(self).update({"processor": None, "near_depth": None, "with_far": False, **state})
        if self.items is not None:
            self._derive(rebuild=True)


# Each lookup's setting, and the segments it is kept in.
_LOOKUPS = {
    "with_bound": "_bound_segments",
    "with_near": "_near_segments",
    "with_far": "_far_segments",
}
