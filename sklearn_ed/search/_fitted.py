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
from dataclasses import replace

import numpy as np

from ..distances import candidate_distances, ragged_candidate_distances
from ..index import embed_for_index, embedding_spec, make_index, sort_by_value, sort_rows
from ..utils import SavedStateError, apply_processor, check_items, saved_class, take_items
from ._batching import FIT_BATCH_SIZE, appended_items, batches
from ._exact import ExactPasses, empty_top_k
from ._policy import SearchPolicy
from ._segments import SegmentedLookup


@saved_class(formerly=("sklearn_ed.neighbors._search.FittedSearch",))
class FittedSearch(ExactPasses):
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
    policy : SearchPolicy
        The lookups kept beside the index and the answering rules.
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

    def __init__(self, metric, embedder, index_settings, policy, *, n_jobs, processor=None):
        self.metric = metric
        self.embedder = embedder
        self.index_settings = dict(index_settings)
        self.policy = policy
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
        """Number of items in the base (0 before the first :meth:`add`)."""
        return 0 if self.items is None else len(self.items)

    def build(self, items, progress=None):
        """Fit the embedder on ``items`` and add them: the search of ``items``.

        Parameters
        ----------
        items : ndarray of shape (n_samples,) or (n_samples, n_features)
            The base, validated and processed (object array of strings or
            objects, or float rows of vectors).
        progress : object with an ``update(n)`` method, default=None
            A progress bar (tqdm) advanced by each batch embedded; unused
            when a sparse (cosine) embedder embeds the base as it fits.

        Returns
        -------
        self : FittedSearch
            The search, fitted and holding ``items``.
        """
        embedder = self.embedder
        if getattr(embedder, "embedding_metric", None) == "cosine" and hasattr(
            embedder, "fit_transform"
        ):
            # Sparse profiles take the memory of the text itself: one pass over
            # the base fits the embedder and embeds it (fit, then transform,
            # would read the text twice). A FrozenEstimator has no
            # fit_transform: it is only transformed.
            return self.add(items, embedding=embedder.fit_transform(items))
        embedder.fit(items, None)
        return self.add(items, progress=progress)

    def add(self, items, embedding=None, progress=None):
        """Append ``items`` (embedded here, or given as ``embedding``), and extend
        the bound and the near lookup by them.

        The new items get the next indices; the vector index is built at the
        first call.

        Parameters
        ----------
        items : ndarray of shape (n_samples,) or (n_samples, n_features)
            New base items, validated and processed as the base was.
        embedding : ndarray or sparse matrix of shape (n_samples, n_features), default=None
            The items' vectors, as :meth:`embed` returns them; ``None``
            embeds them here, in batches.
        progress : object with an ``update(n)`` method, default=None
            A progress bar (tqdm) advanced by each batch embedded here.

        Returns
        -------
        self : FittedSearch
            The search, with ``n_items`` increased by ``n_samples``.
        """
        if embedding is not None:
            self._index_embedding(embedding, len(items))
        else:
            for rows in batches(len(items), FIT_BATCH_SIZE):
                batch = take_items(items, np.arange(rows.start, rows.stop))
                self._index_embedding(self.embed(batch), len(items))
                if progress is not None:
                    progress.update(len(batch))
        self._buffer, self.items = appended_items(getattr(self, "_buffer", None), self.items, items)
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
        policy = self.policy
        bound = self.metric.lower_bound if policy.with_bound else None
        near = self.metric.near_lookup if policy.near_depth else None
        if near is not None:
            near = functools.partial(near, depth=policy.near_depth)
        had_near = self._usable(getattr(self, "_near_segments", None))
        self._bound_segments = self._extended(getattr(self, "_bound_segments", None), bound)
        self._near_segments = self._extended(getattr(self, "_near_segments", None), near)
        far = self.metric.far_lookup if policy.far_depth else None
        if far is not None:
            far = functools.partial(far, depth=policy.far_depth)
        self._far_segments = self._extended(getattr(self, "_far_segments", None), far)
        self.bound = self._bound_segments if self._usable(self._bound_segments) else None
        self.near = self._near_segments if self._usable(self._near_segments) else None
        self.far = self._far_segments if self._usable(self._far_segments) else None
        if had_near and self.near is None:
            # A lookup lost as the base grew changes how its queries are answered.
            warnings.warn(
                f"The near lookup of {self.n_items:,} items would exceed its memory "
                "budget: the queries it answered go through the filter from now on"
                + (" and the lower bound (still exact, slower)." if policy.with_bound else "."),
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
        """The queries' vectors, as the index compares them.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind (see :meth:`check_queries`).

        Returns
        -------
        embedding : ndarray or sparse matrix of shape (n_queries, n_features)
            By the fitted embedder: integer symbol codes for a Hamming
            embedder, a CSR matrix for a cosine one, float32 otherwise.
        """
        return embed_for_index(self.embedder, queries)

    def candidates(self, queries, n_candidates, exclude=None, embedding=None):
        """Indices of the ``n_candidates`` nearest items by embedding distance
        (``-1``: an empty slot); ``exclude[i]`` is never a candidate of query i.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind; not read when ``embedding`` is given.
        n_candidates : int
            Candidates per query.
        exclude : ndarray of int of shape (n_queries,), default=None
            ``exclude[i]`` (an item index, or -1 for none) is never a
            candidate of query i.
        embedding : ndarray or sparse matrix of shape (n_queries, n_features), default=None
            The queries' vectors (:meth:`embed`), when already computed.

        Returns
        -------
        candidates : ndarray of int64 of shape (n_queries, n_columns)
            Item indices, nearest embedding first (ties by index);
            ``n_columns`` is ``n_candidates``, or fewer when the base holds
            fewer items (one fewer with ``exclude``). ``-1`` where the index
            found fewer items.
        """
        embedding = self.embed(queries) if embedding is None else embedding
        return self.index.search(embedding, n_candidates, exclude=exclude)[1]

    def distances(self, queries, candidates, cutoffs=None):
        """Exact distances of query i to the items ``candidates[i]`` (``inf`` for
        an empty slot, or beyond ``cutoffs[i]`` where the metric abandons).

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        candidates : ndarray of int of shape (n_queries, n_columns)
            Item indices per query; ``-1`` marks an empty slot.
        cutoffs : array-like of shape (n_queries,), default=None
            Per query, the largest distance of interest: distances beyond
            it are ``inf``. ``None`` computes every distance.

        Returns
        -------
        distances : ndarray of float64 of shape (n_queries, n_columns)
            ``distances[i, j]`` is the exact distance of query i to item
            ``candidates[i, j]``.
        """
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
        """Exact distances of query i to the items of ``lists[i]`` (ragged).

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        lists : sequence of ndarray of int, length n_queries
            Item indices per query, of any lengths.
        cutoffs : array-like of shape (n_queries,) or None
            Per query, the largest distance of interest: distances beyond
            it are ``inf``. ``None`` computes every distance.

        Returns
        -------
        distances : list of ndarray of float64
            ``distances[i][j]`` is the exact distance of query i to item
            ``lists[i][j]``.
        """
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
        distance, ties by index.

        With the policy's ``refine_cutoff``, the candidates are refined in
        blocks of growing width (``n_neighbors``, then doubling), each with
        the k-th smallest distance refined so far as its cut-off.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        candidates : ndarray of int of shape (n_queries, n_columns)
            Item indices per query (:meth:`candidates`); ``-1`` marks an
            empty slot.
        n_neighbors : int
            Neighbors per query.

        Returns
        -------
        distances : ndarray of float64 of shape (n_queries, min(n_neighbors, n_columns))
            Exact distances, ascending; ``inf`` where the query had fewer
            candidates.
        indices : ndarray of int64 of shape (n_queries, min(n_neighbors, n_columns))
            The neighbors' item indices; ``-1`` where the query had fewer
            candidates.
        """
        if self.policy.refine_cutoff and candidates.shape[1] > n_neighbors:
            exact = self._distances_tightening(queries, candidates, n_neighbors)
        else:
            exact = self.distances(queries, candidates)
        by_index = np.argsort(candidates, axis=1)
        indices, distances = sort_by_value(
            np.take_along_axis(candidates, by_index, axis=1),
            np.take_along_axis(exact, by_index, axis=1),
        )
        return distances[:, :n_neighbors], indices[:, :n_neighbors]

    def _distances_tightening(self, queries, candidates, n_neighbors):
        """The candidates' distances, each block of columns cut off at the
        k-th smallest distance of the blocks before (``inf`` beyond it).

        rapidfuzz abandons a pair past its cut-off, and the lower the cut-off
        the sooner. With one cut-off, the largest of the first k candidates',
        the tail of 290 candidates of a 1 kbp read cost more than with none
        (53 against 39 us a pair, 2 threads): those k, the best embedded, are
        not the k nearest, and their largest distance is about an unrelated
        read's. The k-th of the first 2k, 4k, ... candidates falls to the
        k-th neighbour's distance, which rules out unrelated reads 3 times
        cheaper than computing them (ad hoc, 20,000 reads).
        """
        exact = np.empty(candidates.shape)
        start, stop, cutoffs = 0, n_neighbors, None
        while start < candidates.shape[1]:
            exact[:, start:stop] = self.distances(queries, candidates[:, start:stop], cutoffs)
            cutoffs = np.partition(exact[:, :stop], n_neighbors - 1, axis=1)[:, n_neighbors - 1]
            start, stop = stop, min(candidates.shape[1], 2 * stop)
        return exact

    def kneighbors(self, queries, n_neighbors, n_candidates, exclude=None):
        """The exact top-``n_neighbors`` of a batch, and the exact distances each took.

        First answer from the near lookup (when there is one) the queries it
        can, exactly; beside the filter, then from the far lookup (within 3
        edits); filter ``n_candidates`` for the others by embedding distance
        and refine them; in exact search then verify every item whose lower
        bound beats the k-th distance (the answer is then brute force's).
        ``exclude[i]`` is never an answer of query i. Returns
        ``((distances, indices), n_verified)``.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind (see :meth:`check_queries`).
        n_neighbors : int
            Neighbors per query.
        n_candidates : int
            Candidates the filter takes per query, at least ``n_neighbors``.
        exclude : ndarray of int of shape (n_queries,), default=None
            ``exclude[i]`` (an item index, or -1 for none) is never an
            answer of query i: a base item queried against its own base.

        Returns
        -------
        neighbors : tuple of (ndarray, ndarray)
            ``(distances, indices)``, each of shape (n_queries, n_neighbors):
            the exact distances (float64) in ascending order, ties by index,
            and the neighbors' item indices (int64); ``inf`` and ``-1``
            where the search found fewer items.
        n_verified : ndarray of int64 of shape (n_queries,)
            Per query, the items whose exact distance was computed.
        """
        distances = np.empty((len(queries), n_neighbors), dtype=np.float64)
        indices = np.empty((len(queries), n_neighbors), dtype=np.int64)
        counts = np.zeros(len(queries), dtype=np.int64)
        rest = np.arange(len(queries))
        if self.near is not None:
            near, found, counts[near] = self.answer_near(queries, n_neighbors, exclude)
            distances[near], indices[near] = found
            rest = np.setdiff1d(rest, near)
        if rest.size:
            batch = take_items(queries, rest)
            batch_exclude = None if exclude is None else exclude[rest]
            found, counts[rest] = self._filtered_top_k(
                batch, n_neighbors, n_candidates, batch_exclude
            )
            distances[rest], indices[rest] = found
        return (distances, indices), counts

    def _filtered_top_k(self, queries, n_neighbors, n_candidates, exclude):
        """The top-k of queries the near lookup left: filter and refine, then
        (exact search) verify what the bound keeps."""
        if self.policy.exact and self.bound_stages:
            # The passes answer most of these without the filter.
            none_yet = empty_top_k(len(queries), n_neighbors)
            no_candidates = np.empty((len(queries), 0), np.int64)
            return self.verify_bounded(queries, none_yet, no_candidates, exclude, n_candidates)
        if not self.policy.exact and self.far is not None:
            return self._far_then_filtered(queries, n_neighbors, n_candidates, exclude)
        candidates = self.candidates(queries, n_candidates, exclude)
        found = self.refine(queries, candidates, n_neighbors)
        counts = (candidates >= 0).sum(axis=1)
        if self.policy.exact:
            found, extra = self.verify_bounded(queries, found, candidates, exclude)
            counts += extra
        return found, counts

    def _far_then_filtered(self, queries, n_neighbors, n_candidates, exclude):
        """The far lookup's exact answers; the queries it leaves get its items
        (every one within its reach) and the filter's nearest beyond."""
        done, (distances, indices), counts = self.answer_far(queries, n_neighbors, exclude)
        rest = np.flatnonzero(~done)
        if rest.size:
            batch = take_items(queries, rest)
            candidates = self.candidates(
                batch, n_candidates, None if exclude is None else exclude[rest]
            )
            # Items the lookup verified are not refined again (nor counted twice).
            known = indices[rest]
            keys = np.arange(len(rest))[:, None] * self.n_items
            seen = np.isin(keys + candidates, (keys + known)[known >= 0])
            candidates[seen & (candidates >= 0)] = -1
            found = self.refine(batch, candidates, n_neighbors)
            merged = sort_rows(
                np.concatenate([distances[rest], found[0]], axis=1),
                np.concatenate([known, found[1]], axis=1),
            )
            distances[rest], indices[rest] = (part[:, :n_neighbors] for part in merged)
            counts[rest] += (candidates >= 0).sum(axis=1)
        return (distances, indices), counts

    def neighbors_and_ties(self, queries, n_neighbors, n_candidates, exclude=None):
        """The top-``n_neighbors`` and, per query, every item at the k-th distance
        the search sees: among the refined candidates (one search: its first
        k are the neighbors), or in exact search every item the lower bound
        does not rule out.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        n_neighbors : int
            Neighbors per query.
        n_candidates : int
            Candidates the filter takes per query, at least ``n_neighbors``;
            outside exact search, the ties are looked for among them.
        exclude : ndarray of int of shape (n_queries,), default=None
            ``exclude[i]`` (an item index, or -1 for none) is never an
            answer, nor a tie, of query i.

        Returns
        -------
        distances : ndarray of float64 of shape (n_queries, n_neighbors)
            Exact distances of the neighbors, ascending.
        indices : ndarray of int64 of shape (n_queries, n_neighbors)
            The neighbors' item indices, ties by index.
        tied : list of ndarray of int64
            Per query, the items at exactly its k-th distance
            (``distances[i, -1]``), the neighbors at it included.
        """
        if self.policy.exact:
            (distances, indices), _ = self.kneighbors(queries, n_neighbors, n_candidates, exclude)
            tied = self.tied_items(queries, distances[:, -1], n_candidates, exclude)
            return distances, indices, tied
        (distances, indices), _ = self.kneighbors(queries, n_candidates, n_candidates, exclude)
        kth = distances[:, n_neighbors - 1]
        return distances[:, :n_neighbors], indices[:, :n_neighbors], _at(distances, indices, kth)

    def tied_items(self, queries, kth, n_candidates, exclude=None):
        """Per query, the items at exactly ``kth[i]`` that the search sees.

        In exact search, every item the lower bound does not rule out;
        otherwise, among the refined ``n_candidates`` candidates.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        kth : ndarray of float of shape (n_queries,)
            Per query, the distance of the ties (its k-th distance).
        n_candidates : int
            Candidates the filter takes per query (unused in exact search).
        exclude : ndarray of int of shape (n_queries,), default=None
            ``exclude[i]`` (an item index, or -1 for none) is never a tie of
            query i.

        Returns
        -------
        tied : list of ndarray of int64
            Per query, the item indices at exactly ``kth[i]``.
        """
        if self.policy.exact:
            found = self.verified_within(queries, kth, exclude=exclude)
            return [items[distances == limit] for (items, distances), limit in zip(found, kth)]
        (distances, indices), _ = self.kneighbors(queries, n_candidates, n_candidates, exclude)
        return _at(distances, indices, kth)

    def verified_within(self, queries, limits, lists=None, exclude=None):
        """Per query, the items within its limit by exact distance, and those distances.

        The items compared are ``lists[i]`` when given (a range search's
        candidates), else every item the lower bound does not rule out
        (then the answer is exact); ``exclude[i]`` is left out.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        limits : ndarray of float of shape (n_queries,)
            Per query, the largest exact distance kept (inclusive).
        lists : sequence of ndarray of int, length n_queries, default=None
            Per query, the items to compare; ``None`` takes those of
            :meth:`bounded_items` (the search must keep a bound or a far
            lookup).
        exclude : ndarray of int of shape (n_queries,), default=None
            ``exclude[i]`` (an item index, or -1 for none) is left out of
            query i's items when they come from the bound (a given
            ``lists[i]`` is compared as it is).

        Returns
        -------
        found : list of (ndarray, ndarray)
            Per query, ``(items, distances)``: the item indices (int64)
            within its limit and their exact distances (float64), in the
            order of the items compared.
        """
        if lists is None:
            lists = [items for items, _ in self.bounded_items(queries, limits, exclude)]
        found = []
        for items, distances, limit in zip(
            lists, self.distances_to_lists(queries, lists, limits), limits
        ):
            within = distances <= limit
            found.append((np.asarray(items, dtype=np.int64)[within], distances[within]))
        return found

    def check_queries(self, X):
        """``X`` validated as items of the base's kind (strings, vectors, objects),
        processed as the base was.

        Parameters
        ----------
        X : array-like of shape (n_queries,) or (n_queries, n_features)
            Queries: strings, vectors or objects, as the metric compares.

        Returns
        -------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            An object array for strings and objects (strings passed through
            ``processor``), a float array of rows for vectors.
        """
        return apply_processor(self.processor, check_items(X, self.metric.input_type))

    @property
    def bound_stages(self):
        """Limits the far lookup answers cheaply: :meth:`verify_bounded`
        verifies the items within each first, in passes."""
        return () if self.far is None else self.far.stages

    def within_bound(self, queries, limits):
        """Per query, the items that may lie within its limit (every one that
        does: from the far lookup up to its reach, else those whose lower
        bound is at most the limit), each with a lower bound of its distance.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        limits : array-like of float of shape (n_queries,)
            Per query, the largest distance of interest.

        Returns
        -------
        found : list of (ndarray, ndarray)
            Per query, ``(items, bounds)``: the item indices (int64) that
            may lie within its limit, and for each a lower bound of its
            exact distance.
        """
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

        Parameters
        ----------
        radius : float
            Exact-distance radius.
        blowup : float, default=1.0
            Factor of the threshold; ``inf`` takes every item.

        Returns
        -------
        threshold : float
            The embedding distance, or ``inf``; ``radius_calibration`` must
            be set (not ``None``).
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
    def restore(cls, metric, embedder, index_settings, items, index, policy, **settings):
        """A search over ``items`` already embedded in ``index`` (saved before this
        object existed); ``settings``: ``n_jobs`` and ``radius_calibration``.

        Parameters
        ----------
        metric : Metric
            The exact distance.
        embedder : transformer
            Fitted; the one that embedded ``items``.
        index_settings : dict
            The settings of :func:`~sklearn_ed.index.make_index`, as in the
            constructor.
        items : ndarray of shape (n_samples,) or (n_samples, n_features)
            The saved base.
        index : BaseIndex
            The vector index of ``items``' embedding.
        policy : SearchPolicy
            The lookups and answering rules.
        **settings : dict
            ``n_jobs`` (required), ``radius_calibration`` (default ``None``)
            and, optionally, ``processor``.

        Returns
        -------
        search : FittedSearch
            The search, its bound and lookups built over ``items``.
        """
        calibration = settings.pop("radius_calibration", None)
        search = cls(metric, embedder, index_settings, policy, **settings)
        search.items, search.index, search.radius_calibration = items, index, calibration
        return search.rebuild_lookups()

    def rebuild_lookups(self):
        """Build the bound and the lookups anew over the items (a loaded search).

        Returns
        -------
        self : FittedSearch
            The search, with ``bound``, ``near`` and ``far`` as its policy
            and their memory budgets allow.
        """
        self._derive(rebuild=True)
        return self

    def empty_copy(self, embedder, policy):
        """A search of the same settings, with nothing added yet.

        Parameters
        ----------
        embedder : transformer
            The new search's embedder (:meth:`build` fits it; :meth:`add`
            needs it fitted).
        policy : SearchPolicy
            The new search's lookups and answering rules.

        Returns
        -------
        search : FittedSearch
            A search of this one's metric, index settings, ``n_jobs`` and
            ``processor``, holding no items.
        """
        return type(self)(
            self.metric,
            embedder,
            self.index_settings,
            policy,
            n_jobs=self.n_jobs,
            processor=self.processor,
        )

    # ---------------------------------------------------------- persistence
    def __getstate__(self):
        # Declared state: the bound and the lookups are rebuilt from the items.
        state = dict(vars(self))
        state["bound"] = state["near"] = state["far"] = None
        policy = state.pop("policy")
        # A lookup given up as the base grew stays given up: rebuilt whole on
        # load, it could fit again and answer queries the filter answered.
        for derived, given_up in _GIVEN_UP.items():
            segments = state.pop(derived, None)
            if segments is not None and not segments.available:
                policy = replace(policy, **given_up)
        state.pop("_buffer", None)
        return {**state, **policy.as_state()}

    def __setstate__(self, state):
        items, index = state.get("items"), state.get("index")
        if items is not None and index is not None and index.n_items != len(items):
            raise SavedStateError("index", f"{index.n_items} items indexed, {len(items)} saved")
        rules = {name: state.pop(name) for name in _POLICY_KEYS if name in state}
        vars(self).update({"processor": None, **state, "policy": SearchPolicy.from_state(rules)})
        if self.items is not None:
            self.rebuild_lookups()


def _at(distances, indices, kth):
    """Per row, the indices whose distance is exactly ``kth[i]``."""
    return [row[d == limit] for d, row, limit in zip(distances, indices, kth)]


# Each lookup's segments, and the policy that gives it up.
_GIVEN_UP = {
    "_bound_segments": {"with_bound": False},
    "_near_segments": {"near_depth": 0},
    "_far_segments": {"far_depth": 0},
}
# A saved search's policy keys: the policy's fields, and the older saves'.
_POLICY_KEYS = (*SearchPolicy.__dataclass_fields__, "with_near", "with_far")
