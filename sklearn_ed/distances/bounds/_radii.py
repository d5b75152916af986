"""The largest Levenshtein distance a metric's threshold allows: a join's radius.

A metric's ``levenshtein_radius(threshold)`` (a field of its
:class:`~sklearn_ed.distances.Metric`) returns ``radius(len_a, len_b)``, an
integer array: no two strings of those lengths within ``threshold`` of each
other are further apart in Levenshtein distance. The partition join cuts
strings into that many segments plus one, and the brute-force join's prefix
bound prunes by it. The radii of the registered metrics:

- Levenshtein: ``lev <= t``.
- Indel (insertions and deletions only): a substitution is one deletion and
  one insertion, so ``lev <= indel <= t``.
- OSA and Damerau-Levenshtein: a transposition is two substitutions, so
  ``lev <= 2 * osa <= 2 t``; LCSseq (``max(|a|, |b|) - lcs``):
  ``indel = |a| + |b| - 2 lcs <= 2 lcsseq``, so ``lev <= 2 t``
  (:func:`edit_radius` with ``factor=2``).
- normalized Levenshtein (``lev / max(|a|, |b|)``): ``lev <= t max(|a|, |b|)``;
  normalized Indel (``indel / (|a| + |b|)``): ``lev <= t (|a| + |b|)``
  (:func:`normalized_radius`).

Jaro, Jaro-Winkler, token_set and Hamming have none: they are joined by
``"brute"``.
"""

from functools import partial

import numpy as np

# Thresholds computed in floating point (0.3 * 10 = 3.0000000000000004 or
# 2.9999999999999996) are floored as the integers they stand for.
_EPSILON = 1e-9
NORMALIZERS = ("longer", "sum")


def floored(values):
    """``floor(values)`` as int64, values a hair below an integer counted as it."""
    return np.floor(np.asarray(values, dtype=np.float64) + _EPSILON).astype(np.int64)


def edit_radius(threshold, *, factor=1):
    """The radius of a distance whose threshold ``t`` bounds Levenshtein by
    ``factor * floor(t)`` for every pair of lengths.

    Parameters
    ----------
    threshold : float
        The metric's threshold, in edits.
    factor : int, default=1
        1 for Levenshtein and Indel, 2 for OSA, Damerau-Levenshtein and LCSseq.

    Returns
    -------
    radius : callable
        ``radius(len_a, len_b) -> ndarray of int64``, one radius per pair.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.distances import edit_radius
    >>> edit_radius(1.5, factor=2)(np.array([4, 9]), np.array([5, 9])).tolist()
    [2, 2]
    """
    return partial(_constant, radius=factor * floored(threshold))


def normalized_radius(threshold, *, normalizer):
    """The radius of a normalized distance: ``floor(t * normalizer(len_a, len_b))``.

    Parameters
    ----------
    threshold : float
        The metric's threshold, in [0, 1].
    normalizer : {"longer", "sum"}
        ``max(len_a, len_b)`` (normalized Levenshtein) or ``len_a + len_b``
        (normalized Indel; Levenshtein is at most Indel).

    Returns
    -------
    radius : callable
        ``radius(len_a, len_b) -> ndarray of int64``, one radius per pair.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.distances import normalized_radius
    >>> normalized_radius(0.2, normalizer="longer")(np.array([4, 9]), np.array([5, 11])).tolist()
    [1, 2]
    """
    if normalizer not in NORMALIZERS:
        raise ValueError(f"normalizer must be one of {NORMALIZERS}, got {normalizer!r}.")
    return partial(_normalized, threshold=threshold, normalizer=normalizer)


def _constant(len_a, len_b, *, radius):
    return np.full(len(len_a), radius)


def _normalized(len_a, len_b, *, threshold, normalizer):
    if normalizer == "longer":
        return floored(threshold * np.maximum(len_a, len_b))
    return floored(threshold * (np.asarray(len_a) + len_b))
