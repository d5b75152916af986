"""Dynamic time warping between univariate or multivariate series of any length."""

from functools import partial

import numpy as np

from .._registry import Metric
from ..bounds._dtw_bounds import DTWBound
from ._dtw_kernels import dtw_pairwise
from ._series import as_series


def _pack(series):
    offsets = np.zeros(len(series) + 1, dtype=np.int64)
    np.cumsum([len(values) for values in series], out=offsets[1:])
    return np.ascontiguousarray(np.concatenate(series, axis=0)), offsets


def make_dtw_metric(window=None):
    """DTW as a :class:`Metric`, optionally inside a Sakoe-Chiba band.

    Parameters
    ----------
    window : float in [0, 1], default=None
        Half-width of the band as a fraction of the longer series (widened
        to the length difference so the alignment can always finish).
        ``None`` means no band.

    Returns
    -------
    metric : Metric
        Named ``"dtw"`` without a band (the registered metric), and
        ``"dtw(window=...)"`` with one: a variant of ``"dtw"``, saved by
        :func:`sklearn_ed.save` as that name and its window.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ed.distances import make_dtw_metric, pairwise_distances
    >>> series = [np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 1.0, 2.0])]
    >>> pairwise_distances(series, metric=make_dtw_metric(window=0.5))
    array([[0., 0.],
           [0., 0.]])
    """
    if window is not None and not 0 <= window <= 1:
        raise ValueError(f"window must be in [0, 1] or None, got {window!r}.")
    name = "dtw" if window is None else f"dtw(window={window})"
    return Metric(
        name=name,
        pairwise=partial(dtw_band_pairwise, window=window),
        input_type="objects",
        supports_cutoff=True,
        oracle=partial(dtw_oracle, window=window),
        lower_bound=partial(DTWBound, window=window),
        variant_of=None if window is None else "dtw",
        parameters=() if window is None else (("window", window),),
        variant=make_dtw_metric,
    )


def dtw_band_pairwise(X, Y, score_cutoff=None, *, window=None):
    """All DTW distances between two collections of series (numba kernel)."""
    x_values, x_offsets = _pack(as_series(X))
    y_values, y_offsets = _pack(as_series(Y))
    if x_values.shape[1] != y_values.shape[1]:
        raise ValueError("X and Y series must have the same number of channels.")
    out = np.empty((len(x_offsets) - 1, len(y_offsets) - 1))
    cutoff = np.inf if score_cutoff is None else float(score_cutoff)
    band = -1.0 if window is None else float(window)
    dtw_pairwise(x_values, x_offsets, y_values, y_offsets, band, cutoff, out)
    return out


def dtw_oracle(x, y, *, window=None):
    """Plain dynamic programming over the full (banded) cost matrix."""
    x, y = as_series([x])[0], as_series([y])[0]
    n, m = len(x), len(y)
    band = max(n, m) if window is None else max(int(np.ceil(window * max(n, m))), abs(n - m))
    accumulated = np.full((n + 1, m + 1), np.inf)
    accumulated[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(max(1, i - band), min(m, i + band) + 1):
            cost = float(np.sum((x[i - 1] - y[j - 1]) ** 2))
            accumulated[i, j] = cost + min(
                accumulated[i - 1, j], accumulated[i, j - 1], accumulated[i - 1, j - 1]
            )
    return float(np.sqrt(accumulated[n, m]))


DTW = make_dtw_metric()
