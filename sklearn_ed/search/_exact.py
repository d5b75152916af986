"""Exact search by lower bounds: verify every item a metric's bound cannot rule out.

After the filter's candidates give each query a k-th distance, the items
whose lower bound is at most that distance are verified in increasing bound
order, each block with the current k-th distance as a cut-off, until the
next bound exceeds it. Items ruled out by their bound cannot be nearer, so
the answer equals brute force.
"""

import numpy as np

from ..distances import available_metrics, candidate_distances, get_metric
from ..index import sort_rows
from ..utils import map_in_threads, take_items

# Bounds are computed for at most this many (query, item) pairs at once, and
# items are verified in blocks of increasing bound.
_BOUND_BLOCK = 2**23
# Queries the far lookup answers at once: it holds no (query x item) block,
# but its matches (about 15,000 a query within 3 edits on a million words).
_FAR_BLOCK = 64
_VERIFY_BLOCK = 256
# Items of a query up to which it is verified in a batched call with others.
_TOGETHER_WIDTH = 4096


class ExactPasses:
    """The exact passes of :class:`~sklearn_ed.search.FittedSearch` (its base
    class): the near lookup's answers, and the verification of every item
    the lower bound cannot rule out."""

    def bounded_items(self, queries, limits, exclude, skip=None):
        """Per query: items whose lower bound is at most its limit, and their bounds.

        The excluded item ``exclude[i]`` and the already refined ``skip[i]``
        are left out.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind.
        limits : ndarray of float of shape (n_queries,)
            Per query, the largest distance of interest.
        exclude : ndarray of int of shape (n_queries,) or None
            ``exclude[i]`` (an item index, or -1 for none) is left out of
            query i's items.
        skip : ndarray of int of shape (n_queries, n_skip), default=None
            Per query, items already verified, left out; ``-1`` pads a row.

        Returns
        -------
        found : list of (ndarray, ndarray)
            Per query, ``(items, bounds)``: the item indices (int64) that
            may lie within its limit (:meth:`within_bound`), and for each a
            lower bound of its exact distance.
        """
        found = []
        step = max(1, _BOUND_BLOCK // max(self.n_items, 1))
        if self.far is not None and len(limits) and limits.max() <= self.far.max_distance:
            step = _FAR_BLOCK
        for start in range(0, len(queries), step):
            rows = np.arange(start, min(start + step, len(queries)))
            within = self.within_bound(take_items(queries, rows), limits[rows])
            found.extend(_drop_known(within, rows, skip, exclude, self.n_items))
        return found

    def answer_near(self, queries, k, exclude):
        """Queries answered by the near lookup alone: ``rows, (distances, indices), n_verified``.

        The metric's near lookup (symmetric deletions for short strings)
        returns a superset of the items within a limit of a query. A query
        with ``k`` verified items within the limit has its exact top-k among
        them (every item as near as its k-th is there, ties included), with
        no filter. The limits grow one edit per pass, and each pass verifies
        only the items the earlier ones did not: most misspellings have a
        word one edit away, and stop before the many items two deletions
        reach.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind; the search must keep a near lookup.
        k : int
            Neighbors per query.
        exclude : ndarray of int of shape (n_queries,) or None
            ``exclude[i]`` (an item index, or -1 for none) is never an
            answer of query i.

        Returns
        -------
        rows : ndarray of int64 of shape (n_answered,)
            Positions in ``queries`` of the queries answered, ascending.
        neighbors : tuple of (ndarray, ndarray)
            ``(distances, indices)``, each of shape (n_answered, k): the
            exact top-k of those queries, distances (float64) ascending,
            ties by index, and item indices (int64).
        n_verified : ndarray of int64 of shape (n_answered,)
            Per answered query, the items whose exact distance was computed.
        """
        n_queries, depth, n_items = len(queries), self.near.depth, self.n_items
        distances, indices = empty_top_k(n_queries, k)
        verified = np.zeros(n_queries, dtype=np.int64)
        answered = [np.empty(0, dtype=np.int64)]
        pending, known = np.arange(n_queries), [np.empty(0, dtype=np.int64)] * n_queries
        for radius in range(1, depth + 1):
            found = self.near.within(take_items(queries, pending), np.full(len(pending), radius))
            batch_exclude = None if exclude is None else np.asarray(exclude)[pending]
            found = _drop_known(
                found, np.arange(len(pending)), _padded(known), batch_exclude, n_items
            )
            new = [items for items, _ in found]
            sizes = np.array([len(items) for items in new], dtype=np.int64)
            # Fewer than k items so far cannot answer at this radius: verified later.
            ready = sizes + np.array([len(items) for items in known], dtype=np.int64) >= k
            for rows in _size_tiers(np.where(ready, sizes, 0)):
                # Cut off at the depth, not the radius: later passes keep these.
                items = [new[row] for row in rows]
                self._merge_exact(queries, pending[rows], items, distances, indices, most=depth)
                verified[pending[rows]] += sizes[rows]
            done = distances[pending, -1] <= radius
            answered.append(pending[done])
            # Queries with too many items to verify together go to the filter.
            going_on = np.flatnonzero(~done & (sizes <= _TOGETHER_WIDTH))
            known = [
                np.concatenate([known[row], new[row]]) if ready[row] else known[row]
                for row in going_on
            ]
            pending = pending[going_on]
            if not pending.size:
                break
        rows = np.sort(np.concatenate(answered))
        return rows, (distances[rows], indices[rows]), verified[rows]

    def answer_far(self, queries, k, exclude):
        """The items within the far lookup's reach, verified: ``done, (distances,
        indices), n_verified``.

        Beside the filter (:class:`~sklearn_ed.search.SearchPolicy`'s
        ``far_depth`` 1), the lookup returns a superset of the items within
        3 edits of each query the near lookup left. A query with ``k`` of
        them has its exact top-k (``done``); the others hold every item
        within the reach, fewer than ``k``, and the filter adds the rest.

        Parameters
        ----------
        queries : ndarray of shape (n_queries,)
            Strings; the search must keep a far lookup.
        k : int
            Neighbors per query.
        exclude : ndarray of int of shape (n_queries,) or None
            ``exclude[i]`` (an item index, or -1 for none) is never an
            answer of query i.

        Returns
        -------
        done : ndarray of bool of shape (n_queries,)
            The queries with ``k`` items within the reach.
        neighbors : tuple of (ndarray, ndarray)
            ``(distances, indices)``, each of shape (n_queries, k): the
            nearest items within the reach, ascending, ties by index;
            ``inf`` and ``-1`` in the slots of a query not done.
        n_verified : ndarray of int64 of shape (n_queries,)
            Per query, the items whose exact distance was computed.
        """
        reach = float(self.far.max_distance)
        distances, indices = empty_top_k(len(queries), k)
        bounded = self.bounded_items(queries, np.full(len(queries), reach), exclude)
        verified = self._verify_lists(queries, bounded, distances, indices)
        return distances[:, -1] <= reach, (distances, indices), verified

    def verify_bounded(self, queries, found, candidates, exclude, n_candidates=None):
        """Exact search: verify, in increasing bound order, every item whose lower
        bound is at most the current k-th distance; returns the top-k and the
        counts verified.

        ``found`` (distances, indices) is the top-k of the filter's
        ``candidates`` (verified already). When the far lookup answers some
        limits cheaply (:attr:`bound_stages`: the halves' deletions of short
        strings, 3 and 4 edits), the items within each such limit below a
        query's k-th distance are verified first, in passes: a k-th distance
        that falls to the limit of a pass ends the query there (everything
        within it was verified), so only the queries whose neighbors are
        truly far pay for a larger limit. With ``n_candidates``, the filter
        runs here, only for the queries the passes leave, before the last,
        unbounded one (``found`` and ``candidates`` are then empty).

        Parameters
        ----------
        queries : ndarray of shape (n_queries,) or (n_queries, n_features)
            Items of the base's kind; the search must keep a bound or a far
            lookup.
        found : tuple of (ndarray, ndarray)
            ``(distances, indices)``, each of shape (n_queries, k): the top-k
            so far (:meth:`refine`'s), ``inf`` and ``-1`` in empty slots
            (``empty_top_k`` before any). Not changed: the answer is a
            copy.
        candidates : ndarray of int of shape (n_queries, n_columns)
            Per query, the items verified already, not verified again;
            ``-1`` marks an empty slot (``n_columns`` may be 0).
        exclude : ndarray of int of shape (n_queries,) or None
            ``exclude[i]`` (an item index, or -1 for none) is never an
            answer of query i.
        n_candidates : int, default=None
            Candidates the filter takes per query, run here before the last
            pass; ``None`` runs no filter.

        Returns
        -------
        neighbors : tuple of (ndarray, ndarray)
            ``(distances, indices)``, each of shape (n_queries, k): the exact
            top-k (brute force's), distances (float64) ascending, ties by
            index, and item indices (int64); ``inf`` and ``-1`` where the
            base holds fewer items.
        n_verified : ndarray of int64 of shape (n_queries,)
            Per query, the items whose exact distance was computed here
            (``candidates`` not counted).
        """
        distances, indices = (part.copy() for part in found)
        verified = np.zeros(len(queries), dtype=np.int64)
        # The queries still to verify, and per query the items already verified.
        pending, known = np.arange(len(queries)), candidates
        for stage in (*self.bound_stages, np.inf):
            batch = take_items(queries, pending)
            batch_exclude = None if exclude is None else np.asarray(exclude)[pending]
            top_k = distances[pending], indices[pending]
            if stage == np.inf and n_candidates is not None:
                # A finite k-th distance first: the last pass's limit is that.
                filtered = self.candidates(batch, n_candidates, batch_exclude)
                lists = [(row[row >= 0], np.zeros((row >= 0).sum())) for row in filtered]
                lists = _drop_known(lists, np.arange(len(pending)), known, None, self.n_items)
                verified[pending] += self._verify_lists(batch, lists, *top_k)
                known = np.concatenate([known, filtered], axis=1)
            limits = np.minimum(top_k[0][:, -1], stage)
            bounded = self.bounded_items(batch, limits, batch_exclude, known)
            verified[pending] += self._verify_lists(batch, bounded, *top_k)
            distances[pending], indices[pending] = top_k
            further = np.flatnonzero(distances[pending, -1] > limits)
            if not further.size:
                break
            # The next pass leaves out the items this one verified.
            checked = _padded([bounded[row][0] for row in further])
            known = np.concatenate([known[further], checked], axis=1)
            pending = pending[further]
        return (distances, indices), verified

    def _verify_lists(self, queries, bounded, distances, indices):
        """Merge each query's ``bounded`` items into its top-k, in place; returns
        the counts verified.

        Queries with at most one block of items to verify (most of them, when
        the filter's candidates gave a good k-th distance) are verified
        together in one batched call, those with up to ``_TOGETHER_WIDTH`` in
        a second one; beyond, each query block by block, so that a k-th
        distance that falls stops its verification early.
        """
        verified = np.zeros(len(queries), dtype=np.int64)
        sizes = np.array([len(items) for items, _ in bounded], dtype=np.int64)
        for rows in _size_tiers(sizes):
            self._merge_exact(queries, rows, [bounded[row][0] for row in rows], distances, indices)
            verified[rows] = sizes[rows]
        long_rows = np.flatnonzero(sizes > _TOGETHER_WIDTH)

        def verify_long(row):  # updates its own row of distances and indices
            items, bounds = bounded[row]
            return self._verify_row(queries[row], items, bounds, distances[row], indices[row])

        # Single-query calls use one core each: the long queries share the threads.
        verified[long_rows] = map_in_threads(verify_long, list(long_rows), self.n_jobs)
        return verified

    def _merge_exact(self, queries, rows, items, distances, indices, most=np.inf):
        """Merge the exact distances of ``items[i]`` into the top-k of query ``rows[i]``,
        in place; distances beyond the k-th or ``most`` are not computed."""
        cutoffs = np.minimum(distances[rows, -1], most)
        block = _padded(items)
        exact = self.distances(take_items(queries, rows), block, cutoffs)
        merged_dist, merged_ind = sort_rows(
            np.concatenate([distances[rows], exact], axis=1),
            np.concatenate([indices[rows], block], axis=1),
        )
        k = indices.shape[1]
        distances[rows], indices[rows] = merged_dist[:, :k], merged_ind[:, :k]

    def _verify_row(self, query, items, bounds, distances, indices):
        """Update one query's top-k in place; returns how many items it verified."""
        order = _increasing(bounds)
        items, bounds = items[order], bounds[order]
        n_verified, start, size = 0, 0, _VERIFY_BLOCK
        while start < len(items):
            block = items[start : start + size]
            block = block[bounds[start : start + size] <= distances[-1]]
            # Blocks double: a query with thousands of items to verify makes
            # few calls, one whose k-th distance falls quickly stops early.
            start, size = start + size, 2 * size
            if block.size == 0:  # the bounds only grow, the k-th distance only falls
                break
            exact = candidate_distances(
                [query],
                self.items,
                block[None, :],
                self.metric,
                score_cutoff=distances[-1:],
                check_input=False,
            )[0]
            # Only items as near as the k-th can enter the top-k: sorting the
            # rest cost more than their distances (most of the block, when a
            # short word's bound rules out little).
            closer = exact <= distances[-1]
            merged_ind = np.concatenate([indices, block[closer]])
            merged_dist = np.concatenate([distances, exact[closer]])
            order = np.lexsort((merged_ind, merged_dist))[: len(indices)]
            indices[:], distances[:] = merged_ind[order], merged_dist[order]
            n_verified += block.size
        return n_verified


def _drop_known(within, rows, skip, exclude, n_items):
    """``within`` without each row's ``skip`` and ``exclude`` items (one membership test)."""
    if skip is None and exclude is None:
        return within
    known = [] if skip is None else [skip[rows]]
    if exclude is not None:
        known.append(np.asarray(exclude)[rows, None])
    known = np.concatenate(known, axis=1)
    known_keys = (np.arange(len(rows))[:, None] * n_items + known)[known >= 0]
    sizes = [len(items) for items, _ in within]
    keys = np.repeat(np.arange(len(rows)), sizes) * n_items + np.concatenate(
        [items for items, _ in within] + [np.empty(0, dtype=np.int64)]
    )
    keep = np.split(~np.isin(keys, known_keys), np.cumsum(sizes)[:-1])
    return [(items[mask], bounds[mask]) for (items, bounds), mask in zip(within, keep)]


def empty_top_k(n_queries, k):
    """A top-k per query with no item yet: ``inf`` distances, ``-1`` indices."""
    return np.full((n_queries, k), np.inf), np.full((n_queries, k), -1, dtype=np.int64)


def _size_tiers(sizes):
    """Rows with 1 to 256 items, and with up to ``_TOGETHER_WIDTH``: one
    batched call each (short rows all pair by pair, long ones query by query)."""
    tiers = [
        np.flatnonzero((sizes >= 1) & (sizes <= _VERIFY_BLOCK)),
        np.flatnonzero((sizes > _VERIFY_BLOCK) & (sizes <= _TOGETHER_WIDTH)),
    ]
    return [rows for rows in tiers if rows.size]


def _padded(lists):
    """Rows of item indices, padded with -1 (an empty slot: distance inf)."""
    width = max((len(items) for items in lists), default=0)
    block = np.full((len(lists), width), -1, dtype=np.int64)
    for position, items in enumerate(lists):
        block[position, : len(items)] = items
    return block


def _increasing(bounds):
    """Stable order of increasing ``bounds``: a radix sort when they are small integers."""
    small = bounds.size and np.all(bounds == np.floor(bounds)) and 0 <= bounds.min()
    if small and bounds.max() < np.iinfo(np.int16).max:
        return np.argsort(bounds.astype(np.int16), kind="stable")
    return np.argsort(bounds, kind="stable")


def check_lower_bound(metric_spec, metric_name):
    """Raise unless the metric declares the lower bound ``exact=True`` prunes with."""
    if metric_spec.lower_bound is None:
        names = [name for name in available_metrics() if get_metric(name).lower_bound is not None]
        raise ValueError(
            f"exact=True needs a metric that declares a lower bound ({names}, or "
            "make_dtw_metric(window=...)); "
            f"metric={metric_name!r} declares none. Register a Metric "
            "with a lower_bound, or set n_candidates=1.0 for brute force."
        )
