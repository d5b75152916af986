"""Fellegi-Sunter match weights, learned without labels by EM.

Each column's levels are taken as independent given the match status: a
match has level ``l`` on column ``c`` with probability ``m[c, l]``, a
non-match with ``u[c, l]``. A pair's match weight is the log2 of its prior
odds plus, per column, ``log2(m / u)`` of its level (a missing value adds
nothing), as in splink.

Given random pairs (almost all non-matches), the model is splink's: ``u``
is their level frequencies; ``m`` comes from EM over the candidate pairs,
once per blocking rule without the columns it blocked on (among the pairs
a rule on the first name found, every pair shares it, match or not, so its
level says nothing there), and the prior is the share of matches among all
record pairs. A candidate's probability is then the one it would have among
all pairs: blocking picks pairs by their values, and so by their levels.
Without random pairs, EM fits ``m``, ``u`` and the prior on the pairs given
(Winkler 1988).
"""

from collections import namedtuple
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..utils import saved_class
from ._columns import MISSING

_Patterns = namedtuple("_Patterns", "levels counts inverse")

# Counts added to every level so that a level no pair had keeps a finite
# weight (a soc_sec_id no random pair shares: u would be 0).
_PSEUDO_COUNT = 0.5


@saved_class()
class FellegiSunter(BaseEstimator):
    """Unsupervised match probabilities of record pairs from their comparison levels.

    Parameters
    ----------
    max_iter : int, default=100
        Most EM iterations.
    tol : float, default=1e-6
        EM stops once no probability moves by more than this.
    threshold : "auto" or float in (0, 1), default="auto"
        Match probability from which :meth:`predict` says "match";
        ``"auto"`` takes the one of best F1 as the model itself estimates it
        (expected true matches: the sum of the pairs' probabilities).

    Attributes
    ----------
    n_levels_ : ndarray of int of shape (n_columns,)
        Levels of each column (missing apart).
    m_probabilities_, u_probabilities_ : ndarray of shape (n_columns, max_levels)
        Probability of each level among matches and among non-matches
        (NaN beyond a column's levels).
    match_weights_ : ndarray of shape (n_columns, max_levels)
        ``log2(m / u)``: what each level adds to a pair's weight.
    prior_ : float
        Share of matches among the pairs ``fit`` saw.
    n_iter_ : int
        EM iterations run.
    threshold_ : float
        The match probability :meth:`predict` uses.
    estimated_precision_, estimated_recall_ : float
        The model's own estimate of precision and recall at ``threshold_``
        on the pairs ``fit`` saw.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.records import FellegiSunter
    >>> rng = np.random.default_rng(0)
    >>> matches = (rng.random((50, 3)) < 0.2).astype(int)      # mostly level 0
    >>> others = (rng.random((500, 3)) < 0.9).astype(int)      # mostly level 1
    >>> model = FellegiSunter().fit(np.vstack([matches, others]))
    >>> model.predict([[0, 0, 0], [1, 1, 1]]).tolist()
    [1, 0]
    """

    __sklearn_ed_saved__ = (
        "n_levels_",
        "m_probabilities_",
        "u_probabilities_",
        "match_weights_",
        "prior_",
        "n_iter_",
        "threshold_",
        "estimated_precision_",
        "estimated_recall_",
    )

    _parameter_constraints: dict = {
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "threshold": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
    }

    def __init__(self, *, max_iter=100, tol=1e-6, threshold="auto"):
        self.max_iter = max_iter
        self.tol = tol
        self.threshold = threshold

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, random_levels=None, sessions=None, n_record_pairs=None):
        """Learn ``m``, ``u`` and the prior from the candidate pairs' levels.

        Parameters
        ----------
        X : array-like of int of shape (n_pairs, n_columns)
            Comparison levels (:class:`ComparisonLevels`), ``-1`` missing.
        y : None
            Ignored: no labels are needed.
        random_levels : array-like of int of shape (n_random, n_columns), default=None
            Levels of random pairs: ``u`` is their level frequencies, fixed,
            and EM fits ``m`` alone. ``None``: EM fits ``m``, ``u`` and the
            prior on ``X`` (Winkler's EM on pairs of any origin).
        sessions : list of (indices or mask, blocked columns), default=None
            With ``random_levels``: the pairs each blocking rule found and
            the positions of the columns it blocked on. EM runs once per
            session without its blocked columns (their levels are not free
            among its pairs) and each column's ``m`` is the mean of its
            sessions', as splink trains. ``None``: one session, every pair.
        n_record_pairs : int, default=None
            With ``random_levels``: the pairs of records the candidates were
            drawn from (``n * (n - 1) / 2`` for a table): the prior is then
            the share of matches among them, found so that the candidates'
            expected matches are that share of them (blocking keeps every
            match). ``None``: the share of matches among ``X``.

        Returns
        -------
        self : FellegiSunter
        """
        levels = _levels_array(X)
        if len(levels) == 0:
            raise ValueError("Fellegi-Sunter needs at least one pair to fit.")
        # EM runs on the distinct level patterns, weighted by their counts:
        # a few hundred rows stand for millions of pairs.
        pairs = _patterns(levels)
        if random_levels is None:
            if sessions is not None or n_record_pairs is not None:
                raise ValueError(
                    "sessions and n_record_pairs need the random_levels of random pairs."
                )
            self.n_levels_ = _n_levels(levels)
            u = _frequencies(pairs.levels, pairs.counts, self.n_levels_)
            m, u, prior, self.n_iter_ = self._em(pairs.levels, pairs.counts, u, fixed_u=False)
        else:
            random_levels = _levels_array(random_levels)
            if random_levels.shape[1] != levels.shape[1]:
                raise ValueError(
                    f"random_levels has {random_levels.shape[1]} columns, X {levels.shape[1]}."
                )
            self.n_levels_ = _n_levels(np.vstack([pairs.levels, random_levels]))
            random_pairs = _patterns(random_levels)
            u = _frequencies(random_pairs.levels, random_pairs.counts, self.n_levels_)
            m = self._session_m(pairs, u, sessions)
            prior = _record_prior(pairs, m, u, n_record_pairs)
        self.m_probabilities_, self.u_probabilities_, self.prior_ = m, u, prior
        self.match_weights_ = np.log2(m / u)
        self._set_threshold(self.predict_proba(pairs.levels)[:, 1], pairs.counts)
        return self

    def decision_function(self, X):
        """The match weight of each pair: log2 prior odds + column contributions.

        Parameters
        ----------
        X : array-like of int of shape (n_pairs, n_columns)

        Returns
        -------
        weights : ndarray of shape (n_pairs,)
        """
        check_is_fitted(self, "match_weights_")
        prior_weight = np.log2(self.prior_ / (1.0 - self.prior_))
        # Weighed once per distinct pattern of levels: millions of pairs share a few hundred.
        pairs = _patterns(self._checked(X))
        return (prior_weight + self.contributions(pairs.levels).sum(axis=1))[pairs.inverse]

    def contributions(self, X):
        """What each column adds to each pair's match weight (0 where missing).

        Parameters
        ----------
        X : array-like of int of shape (n_pairs, n_columns)

        Returns
        -------
        contributions : ndarray of shape (n_pairs, n_columns)
        """
        check_is_fitted(self, "match_weights_")
        levels = self._checked(X)
        columns = np.arange(levels.shape[1])
        weights = self.match_weights_[columns, np.maximum(levels, 0)]
        return np.where(levels == MISSING, 0.0, weights)

    def predict_proba(self, X):
        """Probability of non-match and match of each pair.

        Parameters
        ----------
        X : array-like of int of shape (n_pairs, n_columns)

        Returns
        -------
        probabilities : ndarray of shape (n_pairs, 2)
        """
        match = 1.0 / (1.0 + np.exp2(-self.decision_function(X)))
        return np.column_stack([1.0 - match, match])

    def predict(self, X):
        """1 for the pairs whose match probability reaches ``threshold_``, else 0.

        Parameters
        ----------
        X : array-like of int of shape (n_pairs, n_columns)

        Returns
        -------
        matches : ndarray of int of shape (n_pairs,)
        """
        return (self.predict_proba(X)[:, 1] >= self.threshold_).astype(np.int64)

    def _checked(self, X):
        levels = _levels_array(X)
        if levels.shape[1] != len(self.n_levels_) or (levels >= self.n_levels_).any():
            raise ValueError(
                f"Levels have {levels.shape[1]} columns with at most {levels.max(axis=0) + 1} "
                f"levels; the model was fitted on {len(self.n_levels_)} with {self.n_levels_}."
            )
        return levels

    def _session_m(self, pairs, u, sessions):
        """Each column's m: the mean of the EM estimates of the sessions it is free in."""
        if sessions is None:
            sessions = [(np.arange(len(pairs.inverse)), ())]
        estimates, iterations = [], 0
        for indices, blocked in sessions:
            indices = np.asarray(indices)
            if indices.dtype != bool:
                indices = indices.astype(np.int64)
            counts = np.bincount(pairs.inverse[indices], minlength=len(pairs.counts))
            if not counts.any():
                continue
            session = pairs.levels[counts > 0]
            session[:, list(blocked)] = MISSING
            m, _, _, n_iter = self._em(session, counts[counts > 0], u, fixed_u=True)
            m[list(blocked)] = np.nan
            estimates.append(m)
            iterations += n_iter
        self.n_iter_ = iterations
        trained = ~np.isnan(np.array(estimates)) if estimates else np.zeros((1, *u.shape), bool)
        untrained = np.flatnonzero(~trained.any(axis=(0, 2)))
        if len(untrained):
            raise ValueError(
                f"Columns {untrained.tolist()} are blocked on in every session: no session "
                "estimates their m. Add a blocking rule on other columns."
            )
        estimates = np.array(estimates)
        counts = (~np.isnan(estimates)).sum(axis=0)
        m = np.nansum(estimates, axis=0) / np.maximum(counts, 1)
        return _masked(m, self.n_levels_)

    def _em(self, levels, counts, u, fixed_u):
        """EM from m mostly at level 0 (equal): ``(m, u, prior, iterations)``."""
        width = int(self.n_levels_.max())
        start = np.exp(-2.0 * np.arange(width))
        m = _masked(np.tile(start / start.sum(), (len(self.n_levels_), 1)), self.n_levels_)
        m = m / np.nansum(m, axis=1, keepdims=True)
        prior = 0.1
        for iteration in range(1, self.max_iter + 1):
            match = _posterior(levels, m, u, prior)
            new_m = _frequencies(levels, counts * match, self.n_levels_, counts.sum())
            new_u = (
                u
                if fixed_u
                else _frequencies(levels, counts * (1.0 - match), self.n_levels_, counts.sum())
            )
            new_prior = float(np.clip(np.dot(counts, match) / counts.sum(), 1e-9, 1 - 1e-9))
            change = max(
                np.nanmax(np.abs(new_m - m)), np.nanmax(np.abs(new_u - u)), abs(new_prior - prior)
            )
            m, u, prior = new_m, new_u, new_prior
            if change <= self.tol:
                break
        return m, u, prior, iteration

    def _set_threshold(self, probabilities, counts):
        """The threshold, and the precision and recall the model expects at it, from
        the patterns' probabilities and counts (most probable first)."""
        order = np.argsort(-probabilities, kind="stable")
        expected_true = np.cumsum(probabilities[order] * counts[order])
        kept = np.cumsum(counts[order])
        total = expected_true[-1]
        if self.threshold == "auto":
            self.threshold_ = float(probabilities[order[np.argmax(expected_true / (kept + total))]])
        else:
            self.threshold_ = float(self.threshold)
        at = int(np.searchsorted(-probabilities[order], -self.threshold_, side="right")) - 1
        self.estimated_precision_ = float(expected_true[at] / kept[at]) if at >= 0 else 1.0
        self.estimated_recall_ = float(expected_true[at] / total) if at >= 0 and total else 0.0


def _levels_array(X):
    levels = np.asarray(X)
    if levels.ndim != 2 or not np.issubdtype(levels.dtype, np.integer):
        raise ValueError(
            f"Levels must be a 2-D array of integers, got shape {levels.shape} "
            f"and dtype {levels.dtype}."
        )
    if levels.dtype.itemsize > 2 or levels.dtype.kind == "u":
        levels = levels.astype(np.int64)  # out-of-range values must stay visible below
    if levels.size and levels.min() < MISSING:
        raise ValueError(f"Levels are >= 0, or {MISSING} for missing; got {levels.min()}.")
    return levels


def _n_levels(levels):
    return np.maximum(levels.max(axis=0) + 1, 1)


def _patterns(levels):
    """The distinct rows of ``levels``, how many times each occurs, and each row's."""
    radix = int(levels.max(initial=0)) + 2  # levels from -1
    if levels.shape[1] * np.log2(radix) >= 24:
        distinct, inverse, counts = np.unique(
            levels, axis=0, return_inverse=True, return_counts=True
        )
        return _Patterns(distinct, counts.astype(np.float64), inverse.reshape(-1))
    # Few possible patterns: each row's code counted and renumbered by table
    # lookups, in linear time and int32 memory (no sort of millions of rows).
    codes = np.zeros(len(levels), dtype=np.int32)
    for column in range(levels.shape[1]):  # a column at a time: no wide copy of levels
        codes += (levels[:, column].astype(np.int32) + 1) * radix**column
    counts = np.bincount(codes, minlength=radix ** levels.shape[1])
    present = np.flatnonzero(counts)
    renumbered = np.zeros(len(counts), dtype=np.int32)
    renumbered[present] = np.arange(len(present), dtype=np.int32)
    distinct = present[:, None] // radix ** np.arange(levels.shape[1]) % radix - 1
    return _Patterns(
        distinct.astype(np.int64), counts[present].astype(np.float64), renumbered[codes]
    )


def _record_prior(pairs, m, u, n_record_pairs, max_iter=500):
    """Share of matches: among ``levels`` (``n_record_pairs`` None), or among the
    record pairs, the candidates holding every match: ``prior * n_record_pairs``
    equals the candidates' expected matches at that prior (a fixed point,
    reached from above)."""
    n_pairs = pairs.counts.sum()
    total = n_pairs if n_record_pairs is None else n_record_pairs
    if total < n_pairs:
        raise ValueError(f"n_record_pairs={n_record_pairs} is below the {n_pairs:.0f} pairs.")
    prior = 0.5 if n_record_pairs is None else n_pairs / total
    for _ in range(max_iter):
        expected = np.dot(pairs.counts, _posterior(pairs.levels, m, u, min(prior, 1 - 1e-9)))
        new_prior = float(np.clip(expected / total, 1e-15, 1 - 1e-9))
        if abs(new_prior - prior) <= 1e-6 * prior:
            return new_prior
        prior = new_prior
    return prior


def _masked(table, n_levels):
    """NaN beyond each column's levels."""
    beyond = np.arange(table.shape[1])[None, :] >= n_levels[:, None]
    return np.where(beyond, np.nan, table)


def _frequencies(levels, weights, n_levels, n_pairs=None):
    """Weighted frequency of each column's levels, missing left out, smoothed by
    half a pair's mean weight (over ``n_pairs``, the pairs the rows stand for)."""
    width = int(n_levels.max())
    table = np.empty((levels.shape[1], width))
    for column in range(levels.shape[1]):
        present = levels[:, column] != MISSING
        table[column] = np.bincount(
            levels[present, column], weights=weights[present], minlength=width
        )[:width]
    n_pairs = weights.sum() if n_pairs is None else n_pairs
    table = _masked(table + _PSEUDO_COUNT * weights.sum() / max(n_pairs, 1), n_levels)
    return table / np.nansum(table, axis=1, keepdims=True)


def _posterior(levels, m, u, prior):
    """Probability that each pair is a match, given m, u and the prior."""
    columns = np.arange(levels.shape[1])
    at = np.maximum(levels, 0)
    ratio = np.where(levels == MISSING, 0.0, np.log2(m[columns, at] / u[columns, at]))
    weight = np.log2(prior / (1.0 - prior)) + ratio.sum(axis=1)
    return 1.0 / (1.0 + np.exp2(-np.clip(weight, -1000, 1000)))
