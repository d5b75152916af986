"""Numba kernels of dynamic time warping (no validation, no estimator logic)."""

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def dtw_pair(x, y, band, cutoff):
    """Dependent DTW between time-major series x (n, c) and y (m, c).

    Accumulates squared Euclidean costs of aligned time steps inside a
    Sakoe-Chiba band of half-width ``band`` and returns the square root.
    Abandons early (returns inf) once the square root of a whole row's
    minimum exceeds ``cutoff``: comparing squares against ``cutoff**2``
    would abandon pairs lying exactly at the cut-off (sqrt(6)**2 < 6), and
    the square root is monotone, so the test matches the returned distance.
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
        if row_min > cutoff * cutoff and math.sqrt(row_min) > cutoff:
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
    for i in range(x_offsets.shape[0] - 1):
        x = x_values[x_offsets[i] : x_offsets[i + 1]]
        for j in range(y_offsets.shape[0] - 1):
            y = y_values[y_offsets[j] : y_offsets[j + 1]]
            band = band_width(x.shape[0], y.shape[0], window)
            out[i, j] = dtw_pair(x, y, band, cutoff)


@njit(cache=True, nogil=True)
def lb_kim_keogh(queries, base, upper, lower, out):
    """``max(LB_Kim, LB_Keogh)`` of every query against every base series.

    ``queries`` (n_q, length, c) and ``base`` (n, length, c) are time-major;
    ``upper`` and ``lower`` are the base's envelopes over the band. Writes
    the square roots of the squared sums into ``out`` (n_q, n), shrunk by one
    part in 10^12 so that rounding never lifts a bound above the distance.
    """
    length, channels = queries.shape[1], queries.shape[2]
    for i in range(queries.shape[0]):
        for j in range(base.shape[0]):
            keogh = 0.0
            for t in range(length):
                for channel in range(channels):
                    value = queries[i, t, channel]
                    if value > upper[j, t, channel]:
                        keogh += (value - upper[j, t, channel]) ** 2
                    elif value < lower[j, t, channel]:
                        keogh += (lower[j, t, channel] - value) ** 2
            ends = 0.0
            for channel in range(channels):
                ends += (queries[i, 0, channel] - base[j, 0, channel]) ** 2
                if length > 1:
                    ends += (queries[i, length - 1, channel] - base[j, length - 1, channel]) ** 2
            out[i, j] = math.sqrt(max(keogh, ends)) * (1 - 1e-12)
