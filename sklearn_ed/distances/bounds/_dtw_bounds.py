"""Lossless lower bounds of banded DTW: LB_Kim and LB_Keogh, as in the UCR suite."""

import numpy as np

from ...utils import saved_class
from ..metrics._dtw_kernels import lb_kim_keogh
from ..metrics._series import as_series
from ._string_bounds import LowerBound


@saved_class(formerly=("sklearn_ed.distances._dtw_bounds.DTWBound",))
class DTWBound(LowerBound):
    """Lower bounds of banded DTW from queries to a fixed base of equal-length series.

    The larger of LB_Kim (the first and last points, which every warping
    path aligns) and LB_Keogh (each query point against the envelope of the
    base series over the band), as in the cascade of the UCR suite.

    Parameters
    ----------
    base : sequence of series
        Base series, all of the same length (any accepted by the DTW metric).
    window : float
        The DTW band as a fraction of the length (``make_dtw_metric(window)``).

    References
    ----------
    E. Keogh, C. A. Ratanamahatana. "Exact indexing of dynamic time warping",
    Knowledge and Information Systems 7(3), 2005. S.-W. Kim, S. Park,
    W. W. Chu. "An index-based approach for similarity search supporting time
    warping in large sequence databases", ICDE 2001. T. Rakthanmanon et al.
    "Searching and mining trillions of time series subsequences under dynamic
    time warping", KDD 2012.
    """

    def __init__(self, base, window):
        if window is None:
            raise ValueError(
                "exact=True with DTW needs a warping window: use "
                "metric=make_dtw_metric(window=0.1) (any window in [0, 1])."
            )
        series = as_series(base)
        self._length = _common_length(series, "base")
        self.band = int(np.ceil(window * self._length))
        self._base = np.ascontiguousarray(np.stack(series))  # (n, length, channels)
        windows = np.lib.stride_tricks.sliding_window_view(
            np.pad(self._base, ((0, 0), (self.band, self.band), (0, 0)), mode="edge"),
            2 * self.band + 1,
            axis=1,
        )
        self._upper = np.ascontiguousarray(windows.max(axis=-1))
        self._lower = np.ascontiguousarray(windows.min(axis=-1))

    def bounds(self, queries):
        """Lower bounds of ``dtw(queries[i], base[j])`` for every pair.

        Parameters
        ----------
        queries : sequence of series
            Query series, of the base's length.

        Returns
        -------
        bounds : ndarray of float64, shape (n_queries, n_base)
            ``max(LB_Kim, LB_Keogh)``.
        """
        series = as_series(queries)
        if _common_length(series, "queries") != self._length:
            raise ValueError(
                f"exact=True with DTW compares series of one length; the base has "
                f"length {self._length}, the queries another. Resample them first."
            )
        bounds = np.empty((len(series), len(self._base)))
        lb_kim_keogh(np.stack(series), self._base, self._upper, self._lower, bounds)
        return bounds


def _common_length(series, name):
    lengths = {len(values) for values in series}
    if len(lengths) != 1:
        raise ValueError(
            f"exact=True with DTW needs series of one length; the {name} has lengths "
            f"{sorted(lengths)[:5]}. Resample or pad them to a common length."
        )
    return lengths.pop()
