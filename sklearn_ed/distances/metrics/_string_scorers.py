"""rapidfuzz's string scorers, batched: what the scorer metrics share.

Each string metric of ``_edit_scorers``, ``_normalized``, ``_jaro`` and
``_token`` is a :class:`Metric` built by :func:`scorer_metric` from a
rapidfuzz scorer and its unit: its batched ``pairwise`` is
``rapidfuzz.process.cdist`` with the scorer, its ``paired``
``rapidfuzz.process.cpdist``, and its ``oracle`` a plain dynamic program
written beside it (the tests compare both). The unit is how the scorer
counts:

- ``"edits"``: an integer distance (Indel, OSA, ...);
- ``"share"``: a normalized distance in [0, 1] (normalized Levenshtein,
  Jaro as one minus its similarity, ...);
- ``"percent"``: a similarity score in [0, 100] (``fuzz.token_set_ratio``),
  whose distance is ``1 - score / 100``.
"""

from functools import partial

import numpy as np
from rapidfuzz import process

from ...utils import pair_call_workers
from .._registry import Metric
from ._oriented_cdist import oriented_cdist

UNITS = ("edits", "share", "percent")
# Normalized cut-offs are widened by this much so that no pair at exactly the
# cut-off is lost to rounding (1 - (1 - d) need not be d in floating point).
_CUTOFF_SLACK = 1e-6


def scorer_pairwise(X, Y, score_cutoff=None, *, scorer, unit, turn_long_rows_from=None):
    """Distances between every string of X and of Y by a rapidfuzz scorer
    (:func:`oriented_cdist`: long rows turned from ``turn_long_rows_from``)."""
    cdist = partial(oriented_cdist, turn_from=turn_long_rows_from)
    return _scored(cdist, X, Y, score_cutoff, scorer, unit, workers=1)


def scorer_paired(X, Y, score_cutoff=None, workers=1, *, scorer, unit):
    """Distance of ``X[i]`` to ``Y[i]`` for every i, by a rapidfuzz scorer."""
    workers = pair_call_workers(X, Y, workers)
    return _scored(process.cpdist, X, Y, score_cutoff, scorer, unit, workers=workers)


def _scored(batched, X, Y, score_cutoff, scorer, unit, workers):
    """``batched`` (cdist or cpdist) with the scorer's distance, its cut-off in
    rapidfuzz's terms (a percent score's as a score: 1 - distance, out of 100)."""
    if unit == "percent":
        scores = batched(
            X,
            Y,
            scorer=scorer,
            score_cutoff=_percent_cutoff(score_cutoff),
            dtype=np.float64,
            workers=workers,
        )
        # (100 - score) / 100, not 1 - score / 100: a score of 85 is then a
        # distance of 0.15 as the user writes it, not 0.15000000000000002.
        return (100.0 - scores) / 100.0
    dtype = np.int32 if unit == "edits" else np.float64
    cutoff = _in_range(score_cutoff, dtype)
    return batched(X, Y, scorer=scorer, score_cutoff=cutoff, dtype=dtype, workers=workers)


def _percent_cutoff(score_cutoff):
    """A pair beyond the distance cut-off scores 0 (distance 1), which the
    callers mask; one within it keeps its score."""
    if score_cutoff is None:
        return None
    return max(100.0 * (1.0 - min(float(score_cutoff), 1.0) - _CUTOFF_SLACK), 0.0)


def _in_range(score_cutoff, dtype):
    """rapidfuzz takes a normalized cut-off in [0, 1] only, and compares it with
    its similarity one minus the cut-off, where a pair exactly at the cut-off
    can round beyond it: the cut-off is widened by a hair (the callers mask
    what lies beyond the cut-off they asked for, so neither loses a pair)."""
    if score_cutoff is None or dtype is not np.float64:
        return score_cutoff
    return min(max(float(score_cutoff) + _CUTOFF_SLACK, 0.0), 1.0)


def scorer_metric(
    name, scorer, unit, *, oracle, is_metric, turn_long_rows_from=None, **capabilities
):
    """The :class:`Metric` of a rapidfuzz scorer.

    Parameters
    ----------
    name : str
        Registry name.
    scorer : callable
        The rapidfuzz scorer (``Indel.distance``, ``fuzz.token_set_ratio``).
    unit : {"edits", "share", "percent"}
        What the scorer returns (see the module's docstring): integer
        distances are ``integer_valued``, the others ``normalized``.
    oracle : callable
        The plain reference ``oracle(x, y) -> float``.
    is_metric : bool
        Whether the distance obeys the triangle inequality.
    turn_long_rows_from : int, default=None
        Long queries (beyond rapidfuzz's SIMD width) from which a batched
        call computes them as choices (:func:`oriented_cdist`, where the
        costs are measured); None: never, for a scorer without SIMD.
    **capabilities
        The other fields of the :class:`Metric` (``lower_bound``,
        ``levenshtein_radius``, ...).
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, got {unit!r}.")
    return Metric(
        name=name,
        pairwise=partial(
            scorer_pairwise, scorer=scorer, unit=unit, turn_long_rows_from=turn_long_rows_from
        ),
        input_type="strings",
        integer_valued=unit == "edits",
        supports_cutoff=True,
        oracle=oracle,
        paired=partial(scorer_paired, scorer=scorer, unit=unit),
        is_metric=is_metric,
        normalized=unit != "edits",
        **capabilities,
    )
