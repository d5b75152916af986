"""What a fitted search keeps beside its index, and how it answers: decided once.

The rules that used to be spread over the estimators (whether short strings
get a near lookup, whether radius queries use the lower bound, which depth
the lookup has, whether answers hold every tie, which radius the
calibration covers, whether the refine abandons with a cut-off) are read
here from the metric, the base and the estimator's parameters, at fit, into
one :class:`SearchPolicy` that the :class:`FittedSearch` then follows.
"""

from dataclasses import asdict, dataclass, replace

import numpy as np

from ..distances import deletion_index_bytes
from ..utils import saved_int
from ._batching import short_strings

# Depth of the near lookup (edits it answers within): 2 where its entries fit
# the lookup's budget (words; a second deletion multiplies the entries by
# the string's length), 1 beside the filter otherwise. The passes within
# one, then two edits answer most misspellings; on a million words the
# depth-2 lookup answered the queries two edits from a word (uniform edits,
# transpositions) in 0.05 ms where the far lookup took 1.4-1.7 ms, for 6 s
# more fit.
FILTER_NEAR_DEPTH = 1
EXACT_NEAR_DEPTH = 2
# Depth of the far lookup (deletions per half; it answers within twice that
# plus one edits). Beside the filter, 1: every query with its neighbors
# within 3 edits is answered exactly, for about the entries of the near
# lookup. On a million words the filter took 2.5 ms for each misspelling
# beyond one edit, and found a nearest word for 70 % of 1,000 with three
# random edits; the lookup answers those within 3 in about 1 ms, exactly.
# Exact search, 2 (up to 5 edits, twice the entries).
FILTER_FAR_DEPTH = 1
EXACT_FAR_DEPTH = 2


@dataclass(frozen=True)
class SearchPolicy:
    """The search's lookups and answering rules.

    Parameters
    ----------
    exact, with_bound, near_depth, far_depth, refine_cutoff, calibrated_radius, all_ties
        The attributes of the same names (below). Each defaults to off
        (``False``, ``0`` or ``0.0``); :meth:`decide` sets them from the
        metric, the base and the estimator's parameters. The policy is
        frozen: :meth:`without_near` and :func:`dataclasses.replace` return
        a changed copy.

    Attributes
    ----------
    exact : bool
        Verify every item the lower bound cannot rule out (brute force's answer).
    with_bound : bool
        Keep the metric's lower bound over the base (exact search, radius
        search on short strings).
    near_depth : int
        Depth of the metric's near lookup (0: none): :meth:`FittedSearch.kneighbors`
        answers from it, exactly, every query with enough items within it.
    far_depth : int
        Depth of the metric's far lookup (0: none): the items within its
        ``max_distance`` come from it instead of the bound (exact search,
        depth 2); beside the filter (depth 1, short strings),
        :meth:`FittedSearch.kneighbors` answers from it, exactly, every
        query the near lookup leaves with enough items within it.
    refine_cutoff : bool
        Compute the distances past the first ``k`` candidates with the k-th
        as a cut-off (the metric abandons beyond it); not for short strings,
        where one more call costs more than the cut-off saves.
    calibrated_radius : float
        The radius the radius calibration must cover (0: none beyond the
        neighbors' own).
    all_ties : bool
        Answers use every item tied at the k-th distance (the recall check
        counts them all).
    """

    exact: bool = False
    with_bound: bool = False
    near_depth: int = 0
    far_depth: int = 0
    refine_cutoff: bool = False
    calibrated_radius: float = 0.0
    all_ties: bool = False

    @classmethod
    def decide(cls, metric, X, *, exact=False, radius=None, all_ties=False):
        """The policy of a search of ``X`` under ``metric``.

        ``radius`` is the default radius of an estimator that answers radius
        queries (None for one that does not); ``all_ties`` whether its
        answers hold every item tied at the k-th distance.

        Parameters
        ----------
        metric : Metric
            The exact distance (a :class:`~sklearn_ed.distances.Metric`):
            its ``lower_bound``, ``near_lookup``, ``far_lookup``,
            ``normalized`` and ``supports_cutoff`` decide what the search
            keeps.
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            The base the search is fitted on; strings of mean length at most
            64 (short strings) get the near and far lookups, the lower
            bound for radius queries, and no refine cut-off.
        exact : bool, default=False
            Exact search: keep the lower bound, and near and far lookups
            of depth 2 (where the metric has them).
        radius : float or None, default=None
            The estimator's default radius; ``None`` for an estimator
            without radius queries. The calibration covers it unless the
            metric is normalized.
        all_ties : bool, default=False
            Whether answers hold every item tied at the k-th distance.

        Returns
        -------
        policy : SearchPolicy
            The lookups and answering rules of the search.
        """
        short = short_strings(X)
        has_bound = metric.lower_bound is not None
        # Radius queries on short strings verify what the lossless bound
        # keeps: q-grams cannot see one edit in a three-letter word, and
        # verifying short strings is cheap.
        radius_bound = radius is not None and has_bound and short
        near_depth = far_depth = 0
        if metric.near_lookup is not None and (exact or short):
            near_depth = EXACT_NEAR_DEPTH if exact or _deep_lookup_fits(X) else FILTER_NEAR_DEPTH
        if metric.far_lookup is not None and (exact or short):
            far_depth = EXACT_FAR_DEPTH if exact else FILTER_FAR_DEPTH
        # A normalized metric's default radius (1.0) would calibrate every
        # pair (20 million on 100,000 words, minutes of fit): its radii
        # beyond the calibrated ones scale in proportion instead.
        calibrated = 0.0 if radius is None or metric.normalized else float(radius)
        return cls(
            exact=exact,
            with_bound=exact or radius_bound,
            near_depth=near_depth,
            far_depth=far_depth,
            refine_cutoff=metric.supports_cutoff and not short,
            calibrated_radius=calibrated,
            all_ties=all_ties,
        )

    def without_near(self):
        """The same policy without the near lookup (the memory check's sample builds).

        Returns
        -------
        policy : SearchPolicy
            A copy with ``near_depth=0``; ``self`` is unchanged (frozen).
        """
        return replace(self, near_depth=0)

    def as_state(self):
        """Plain values, as a saved search holds them.

        Returns
        -------
        state : dict
            Each field's name and value (:func:`dataclasses.asdict`); read
            back by :meth:`from_state`.
        """
        return asdict(self)

    @classmethod
    def from_state(cls, state):
        """The policy of a saved search; saves older than the policy held
        ``with_near``, a ``near_depth`` where ``None`` meant the metric's
        own (2), ``with_far`` (a far lookup of depth 2) and no
        ``refine_cutoff`` (decided per query batch then).

        Parameters
        ----------
        state : dict
            The saved values: :meth:`as_state`'s, or an older save's (also
            ``with_near`` and ``with_far``; no ``exact``, which then follows
            ``with_far``).
            Keys that are not fields are ignored; missing fields take their
            defaults.

        Returns
        -------
        policy : SearchPolicy
            The policy the saved search followed.
        """
        state = dict(state)
        with_near = state.pop("with_near", None)
        depth = state.get("near_depth")
        if with_near is not None:
            depth = (EXACT_NEAR_DEPTH if depth is None else depth) if with_near else 0
        state["near_depth"] = int(depth or 0)
        with_far = state.pop("with_far", None)
        if with_far is not None:
            state.setdefault("far_depth", EXACT_FAR_DEPTH if with_far else 0)
        far_depth = state.get("far_depth", 0)
        state["far_depth"] = saved_int(far_depth, "far_depth", 0, EXACT_FAR_DEPTH + 1)
        state.setdefault("exact", bool(with_far))
        fields = cls.__dataclass_fields__
        return cls(**{name: value for name, value in state.items() if name in fields})


def _deep_lookup_fits(X):
    """Whether the depth-2 deletion lookup of the strings ``X`` fits its budget."""
    lengths = np.fromiter(map(len, X), dtype=np.int64, count=len(X))
    return deletion_index_bytes(lengths, EXACT_NEAR_DEPTH) > 0
