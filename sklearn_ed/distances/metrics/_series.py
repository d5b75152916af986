"""Collections of time series, validated into one array per series.

What DTW compares and what its lower bounds read: each series a
``(length, channels)`` float64 array, all with the same channels.
"""

import numpy as np


def as_series(X):
    """Validate a collection of series; each becomes a (length, channels) array.

    Accepts a 3-D array (n_series, n_channels, length), a 2-D array
    (n_series, length) of univariate series, or a list whose items are 1-D
    (length,) or 2-D (n_channels, length) arrays of possibly different lengths.
    """
    if isinstance(X, np.ndarray) and X.dtype != object:
        if X.ndim == 2:
            X = X[:, None, :]
        if X.ndim != 3:
            raise ValueError(
                "Series arrays must be 2-D (n_series, length) or 3-D "
                f"(n_series, n_channels, length); got shape {X.shape}."
            )
    series = []
    for index, item in enumerate(X):
        values = np.asarray(item, dtype=np.float64)
        if values.ndim == 1:
            values = values[None, :]
        if values.ndim != 2 or values.shape[1] == 0:
            raise ValueError(
                f"Series {index} must be a non-empty 1-D (length,) or 2-D "
                f"(n_channels, length) array; got shape {np.shape(item)}."
            )
        if not np.isfinite(values).all():
            raise ValueError(f"Series {index} contains NaN or infinite values.")
        series.append(values.T)
    channels = {values.shape[1] for values in series}
    if len(channels) > 1:
        raise ValueError(
            f"All series must have the same number of channels; got {sorted(channels)}."
        )
    return series
