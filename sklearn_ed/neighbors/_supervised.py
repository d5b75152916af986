"""Shared pieces of the supervised FilterRefine estimators."""

import numpy as np
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_consistent_length, validate_data

from ._base import FilterRefineBase

WEIGHTS_CONSTRAINT = [StrOptions({"uniform", "distance"}), callable, None]


def neighbour_weights(distances, weights):
    """Weights of the neighbours (``None`` for uniform), as sklearn does.

    With ``"distance"``, a query at distance zero of some neighbours gets
    weight 1 on those and 0 on the others.
    """
    if weights in (None, "uniform"):
        return None
    if weights == "distance":
        with np.errstate(divide="ignore"):
            inverse = 1.0 / distances
        exact_hits = np.isinf(inverse)
        rows = exact_hits.any(axis=1)
        inverse[rows] = exact_hits[rows]
        return inverse
    return np.asarray(weights(distances), dtype=np.float64)


class SupervisedFilterRefineBase(FilterRefineBase):
    """Validation of (X, y) shared by the classifier and the regressor."""

    _parameter_constraints: dict = {
        **FilterRefineBase._parameter_constraints,
        "weights": WEIGHTS_CONSTRAINT,
    }

    def _validate_X_y(self, X, y):
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        if self._metric_spec.input_type == "vectors":
            return validate_data(self, X, y, dtype=[np.float64, np.float32],
                                 multi_output=True)
        X = self._validate_X(X, reset=True)
        y = np.asarray(y)
        check_consistent_length(X, y)
        return X, y
