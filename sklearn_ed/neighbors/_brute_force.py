"""Brute force chosen by ``embedder="auto"``: the estimators' side of it.

The fit times the exact metric on the base (:func:`~sklearn_ed.search.brute_force_seconds`;
a metric whose bound prunes brute force, by a few queries of that search:
:func:`~sklearn_ed.search.pruned_brute_seconds`); where a query of the
whole base costs less than the filter could pay back
(:func:`~sklearn_ed.search.brute_force_limit`), the search is a
:class:`~sklearn_ed.search.BruteSearch`: no embedder, no index, no recall
check, exact answers. Where the bound rules out at most half of the base at
the k-th neighbors' distance (they lie in the crowd: the tenth neighbor of a
person record), a filter would verify thousands of candidates a query, and
the limit is exact search's. A filter gives way to one too where its recall check
reaches ``target_recall`` at no candidate count, or where it answers
pseudo-queries slower than brute force does (:func:`~sklearn_ed.search.time_queries`).
"""

import warnings
from dataclasses import replace

import numpy as np

from ..search import (
    BRUTE_FORCE,
    BruteSearch,
    brute_force_limit,
    brute_force_seconds,
    pruned_brute_seconds,
    time_queries,
)
from ..utils import log_progress

# A brute-force base grown by this share since its fit is fitted again:
# brute force may no longer pay.
REFIT_GROWTH = 0.5
# A filter that misses its target gives way to brute force with a warning
# where a query then costs this many times the most brute force may cost
# when chosen for its speed: the check searched up to a tenth of the base,
# so brute force costs at least about ten times that filter.
COSTLY_BRUTE_FORCE = 10


def _at_most(limit):
    return "" if np.isinf(limit) else f", at most {1000 * limit:g} ms"


class BruteForceMixin:
    """Choosing, fitting and growing a brute-force search."""

    def _brute_force_pays(self, X):
        """``embedder="auto"`` compares every item where a query of the whole
        base costs less than the filter's (timed on the base).

        A metric whose bound prunes brute force is timed by a few queries of
        that search alone, top k included: where its bound does not pay, the
        search compares every item by itself (``PruningBound``), and timing
        that too took 19 ms of the 42 ms a fit of 5,000 records took under
        the profiler."""
        self._brute_query_estimate = self._brute_query_limit = None
        if not self._auto_embedder():
            return False
        policy = self._search_policy(X)
        limit, reason = brute_force_limit(policy), ""
        if self._metric_spec.brute_force_bound is None:
            seconds = brute_force_seconds(self._metric_spec, X, self.n_jobs, self._seed)
        else:
            spec = self._metric_spec
            if policy.exact and spec.lower_bound is spec.brute_force_bound:
                # Exact search would prune by this same bound after its
                # filter's candidates: it rules out no more than this search
                # does, and adds the filter (Jaro at 100,000 records and
                # k = 10: a 1.3 s fit, and brute force answering after all).
                limit = np.inf
                reason = "; exact search would prune by the same bound"
            # The crowd raises the limit of approximate search only (below).
            crowded_limit = (
                None
                if policy.exact
                else brute_force_limit(replace(policy, exact=True, near_depth=0))
            )
            pruned = pruned_brute_seconds(
                spec, X, self.n_neighbors, self.n_jobs, self._seed, limit, crowded_limit
            )
            seconds = pruned.seconds
            if pruned.crowded and crowded_limit is not None:
                # A filter's query then verifies thousands of candidates, at
                # about what exact search costs, and a near lookup finds none
                # of them: brute force answers up to that search's limit.
                limit = crowded_limit
                reason = (
                    f"; the k-th neighbors lie in the crowd: the bound rules out "
                    f"{1 - pruned.share_verified:.0%} of the base at their distance"
                )
        self._brute_query_estimate, self._brute_query_limit = seconds, limit
        if seconds > limit:
            return False
        log_progress(
            self,
            f"{len(X)} items: brute force, every item compared (a query of the base "
            f"costs {1000 * seconds:.3f} ms{_at_most(limit)}{reason})",
        )
        return True

    def _brute_force_instead(self, reason):
        """The filter ``embedder="auto"`` chose gives way to brute force (exact
        answers), for ``reason`` (logged; warned where it is the recall, for
        brute force may then cost far more than the filter)."""
        log_progress(self, f"{reason}: brute force, every item compared")
        if self._filter_falls_short() and self._brute_force_is_costly():
            warnings.warn(self._costly_brute_force(reason), UserWarning, stacklevel=4)
        return self._fit_brute_force(self.search_.items)

    def _brute_force_is_costly(self):
        seconds = getattr(self, "_brute_query_estimate", None)
        limit = getattr(self, "_brute_query_limit", None)
        return seconds is not None and limit is not None and seconds > COSTLY_BRUTE_FORCE * limit

    def _costly_brute_force(self, reason):
        """What a fit that gives way to a costly brute force for its recall tells
        the user (all-vs-all top-10 of 100,000 reads at 40x coverage and a
        target of 0.998: about 70 hours where the filter takes minutes)."""
        seconds = self._brute_query_estimate
        return (
            f"{type(self).__name__}: {reason}: brute force answers instead, exact, "
            f"comparing every item: about {1000 * seconds:.3g} ms a query, "
            f"{seconds * self.n_samples_fit_:.3g} s for the fitted items as queries. "
            "A lower target_recall, or an embedder passed as embedder=, keeps the "
            "filter (below the target)."
        )

    def _filter_gives_way(self):
        """Why the fitted filter gives way to brute force: its recall check
        reached ``target_recall`` at no candidate count, or it answered
        pseudo-queries slower than brute force; None where it stays."""
        if self._filter_falls_short():
            return (
                f"no candidate count up to {int(self.recall_curve_[-1, 0])} reaches "
                f"target_recall={self.target_recall} with {type(self.embedder_).__name__}"
            )
        if not self._may_time_brute_force():
            return None
        timing = time_queries(
            self.search_,
            self.n_neighbors,
            self.n_candidates_,
            self._brute_query_estimate,
            random_state=self._seed,
        )
        if timing.brute_force_faster:
            return (
                f"{type(self.embedder_).__name__} answers an edited item of the base in "
                f"{1000 * timing.filter_seconds:.3f} ms, brute force in "
                f"{1000 * timing.brute_seconds:.3f} ms"
            )
        return None

    def _filter_falls_short(self):
        """Whether the recall check found no candidate count reaching
        ``target_recall`` for a filter that gives way to brute force then."""
        check = self._recall_check
        return (
            check is not None
            and self._may_brute_force()
            and check.smallest_reaching(self.target_recall) is None
        )

    def _may_brute_force(self):
        """Whether a filter that misses ``target_recall`` at every candidate count
        gives way to brute force: one ``embedder="auto"`` chose, with
        ``n_candidates="auto"``, not exact (whose answers are exact anyway)."""
        return self._auto_embedder() and self.n_candidates == "auto" and not self.exact

    def _may_time_brute_force(self):
        """Whether a filter slower than brute force gives way to it: one
        ``embedder="auto"`` chose, whose answers brute force's equal (exact
        search) or need not (``n_candidates="auto"``: the fit chose the count)."""
        return (
            self._auto_embedder()
            and (self.exact or self.n_candidates == "auto")
            # Saves older than the timing have none: their filter stays.
            and getattr(self, "_brute_query_estimate", None) is not None
        )

    def _auto_embedder(self):
        return self.embedder is None or isinstance(self.embedder, str)

    def _fit_brute_force(self, X):
        """The search of ``X`` by brute force: no embedder, no index, no recall check."""
        self.search_method_ = BRUTE_FORCE
        self.embedder_ = self.embedding_metric_ = None
        self.search_ = BruteSearch(
            self._metric_spec,
            n_jobs=self.n_jobs,
            processor=self.processor,
        ).build(X)
        self._fit_n_candidates()
        return self

    def _grow_brute_force(self, X):
        """Append to a brute-force base; once it has grown by half, fit again
        (brute force may no longer pay)."""
        self.search_.add(X)
        self.n_samples_fit_ = self.search_.n_items
        if self.n_samples_fit_ >= (1 + REFIT_GROWTH) * self._n_samples_checked:
            return self._fit(self.search_.items)
        self._fit_n_candidates()
        return self
