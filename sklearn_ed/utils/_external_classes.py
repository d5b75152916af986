"""The scikit-learn classes :func:`sklearn_ed.save` writes, registered here.

They are not sklearn-ed's, so no decorator marks them where they are defined:
this is the one place that registers them, by the class objects themselves.
A sklearn-ed estimator may hold a ``TfidfTransformer`` (the q-gram
embedder's weights) and may sit in a ``Pipeline`` or a ``FrozenEstimator``.
They are registered on first use, so importing ``sklearn_ed.utils`` does not
import scikit-learn.
"""

import functools

from ._saved_classes import register_class


@functools.cache
def register_scikit_learn_classes():
    """Register scikit-learn's ``TfidfTransformer``, ``Pipeline`` and ``FrozenEstimator``."""
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.frozen import FrozenEstimator
    from sklearn.pipeline import Pipeline

    for cls in (TfidfTransformer, Pipeline, FrozenEstimator):
        register_class(cls, "object")
