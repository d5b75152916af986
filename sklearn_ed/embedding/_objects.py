"""Numeric objects as a network sees them: vectors, series and images stacked
into one float32 ``(n, channels, length)`` array, zero-padded to the fitted
length."""

import warnings

import numpy as np
from sklearn.utils.validation import validate_data

from ..distances import get_metric, symmetric_pairwise_distances
from ..nn import distance_jobs
from ..utils import check_numeric_objects, take_items


class NumericObjectsMixin:
    """Input handling of the embedders of numeric objects under any ``metric``.

    Sets ``input_shape_`` (channels, length) at fit; ``transform`` pads shorter
    and cuts longer objects to it. Expects the parameters ``metric`` and
    ``n_jobs``.
    """

    def _validate(self, X, reset):
        """(objects for the metric, float32 (n, channels, length) for the network)."""
        spec = get_metric(self.metric)
        if spec.input_type == "strings":
            raise ValueError(
                f"metric={spec.name!r} compares strings; TripletMinedEmbedder embeds numeric "
                "objects (vectors, series, images). Use CNNEDEmbedder or CGKEmbedder for strings."
            )
        if spec.input_type == "vectors":
            X = validate_data(self, X, reset=reset, dtype=[np.float64, np.float32])
            return X, self._fit_length(X[:, None, :], reset)
        objects, arrays = check_numeric_objects(X)
        return objects, self._fit_length(arrays, reset)

    def _fit_length(self, arrays, reset):
        """Stack to (n, channels, length), zero-padding to the fitted length."""
        channels = {a.shape[0] for a in arrays} if isinstance(arrays, list) else {arrays.shape[1]}
        if len(channels) > 1:
            raise ValueError(
                f"All objects must have the same number of channels (rows); got {sorted(channels)}."
            )
        n_channels = channels.pop()
        lengths = [a.shape[1] for a in arrays] if isinstance(arrays, list) else [arrays.shape[2]]
        if reset:
            self.input_shape_ = (n_channels, max(lengths))
        elif n_channels != self.input_shape_[0]:
            raise ValueError(
                f"X has {n_channels} channels (rows) per object, but "
                f"{type(self).__name__} was fitted with {self.input_shape_[0]}."
            )
        length = self.input_shape_[1]
        if max(lengths) > length:
            warnings.warn(
                f"Objects longer than the fitted length {length} are cut to it.",
                UserWarning,
                stacklevel=4,
            )
        if not isinstance(arrays, list) and arrays.shape[2] == length:
            return np.array(arrays, dtype=np.float32)
        out = np.zeros((len(arrays), n_channels, length), dtype=np.float32)
        for index, values in enumerate(arrays):
            cut = min(values.shape[1], length)
            out[index, :, :cut] = values[:, :cut]
        return out

    def _training_distances(self, objects, chosen, train_distances=None):
        """Exact distances among ``objects[chosen]``: from the metric, or cut from
        the ``train_distances`` given for all of ``objects``."""
        n_samples = len(objects)
        if train_distances is not None:
            train_distances = np.asarray(train_distances, dtype=np.float64)
            if train_distances.shape != (n_samples, n_samples):
                raise ValueError(
                    f"train_distances must have shape ({n_samples}, {n_samples}); "
                    f"got {train_distances.shape}."
                )
            distances = train_distances[np.ix_(chosen, chosen)]
        else:
            distances = symmetric_pairwise_distances(
                take_items(objects, chosen), self.metric, n_jobs=distance_jobs(self.n_jobs)
            )
        if not np.isfinite(distances).all():
            raise ValueError("The exact distances between training objects must be finite.")
        return distances
