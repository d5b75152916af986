"""Numba kernels of dynamic time warping (no validation, no estimator logic)."""

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def dtw_pair(x, y, band, cutoff_squared):
    """Dependent DTW between time-major series x (n, c) and y (m, c).

    Accumulates squared Euclidean costs of aligned time steps inside a
    Sakoe-Chiba band of half-width ``band`` and returns the square root.
    Abandons early (returns inf) once a whole row exceeds ``cutoff_squared``.
    """
    n, m = x.shape[0], y.shape[0]
    previous = np.full(m + 1, np.inf)
    current = np.full(m + 1, np.inf)
    previous[0] = 0.0
    for i in range(1, n + 1):
        current[:] = np.inf
        low, high = max(1, i - band), min(m, i + band)
        row_min = np.inf
        for j in range(low, high + 1):
            cost = 0.0
            for channel in range(x.shape[1]):
                difference = x[i - 1, channel] - y[j - 1, channel]
                cost += difference * difference
            best = min(previous[j], current[j - 1], previous[j - 1])
            current[j] = cost + best
            row_min = min(row_min, current[j])
        if row_min > cutoff_squared:
            return np.inf
        previous, current = current, previous
    return math.sqrt(previous[m])


@njit(cache=True, nogil=True)
def band_width(n, m, window):
    """Half-width of the band: a fraction of the longer series, at least |n - m|."""
    if window < 0:
        return max(n, m)
    return max(int(math.ceil(window * max(n, m))), abs(n - m))


@njit(cache=True, nogil=True)
def dtw_pairwise(x_values, x_offsets, y_values, y_offsets, window, cutoff, out):
    """All DTW distances between two packed collections of series.

    Serial and GIL-free: callers parallelise over query chunks with joblib.
    """
    cutoff_squared = cutoff * cutoff
    for i in range(x_offsets.shape[0] - 1):
        x = x_values[x_offsets[i] : x_offsets[i + 1]]
        for j in range(y_offsets.shape[0] - 1):
            y = y_values[y_offsets[j] : y_offsets[j + 1]]
            band = band_width(x.shape[0], y.shape[0], window)
            out[i, j] = dtw_pair(x, y, band, cutoff_squared)
