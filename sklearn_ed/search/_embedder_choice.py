"""The embedder ``embedder="auto"`` chooses from the data and the metric.

The rule and the measurements behind it are in the user guide ("Choosing an
embedder and n_candidates", from ``benchmarks/bench_defaults.py``):

* vector metrics: the identity, so the filter compares the vectors
  themselves;
* string metrics: :class:`~sklearn_ed.QGramEmbedder` with ``q`` set by the
  alphabet, the mean length and the number of strings. On words and genome
  reads it reached the highest recall of the embedders we have at a fit a
  tenth of CNN-ED's or less (CGK loses its way on reads that overlap with a
  shift). On proteins, whose tenth neighbor lies at three quarters of the
  length, no embedder reached 0.6 at 12 % of the base; CNN-ED did best but
  its fit cost more than brute force, and the recall check then raises the
  candidate count towards brute force rather than return a poor answer. A
  filter index for dense vectors ("hnsw", "ivf", "nndescent") asked for by
  name gets :class:`~sklearn_ed.CGKEmbedder` instead: sparse profiles have no
  such index;
* a metric that names its own embedder (:attr:`~sklearn_ed.distances.Metric.embedder`:
  records of several columns, by their columns' q-gram profiles): that one;
* other objects (series under DTW, point sets under chamfer, callables):
  :class:`~sklearn_ed.FastMapEmbedder`, which needs nothing but the metric.
"""

from sklearn.preprocessing import FunctionTransformer

from ..embedding import CGKEmbedder, FastMapEmbedder, QGramEmbedder

_DENSE_ONLY_INDEXES = ("hnsw", "ivf", "nndescent")


def choose_embedder(X, metric, filter_algorithm, n_jobs, random_state):
    """An unfitted embedder for the validated items ``X`` under ``metric``."""
    if metric.input_type == "vectors":
        return FunctionTransformer()
    if metric.embedder is not None:
        return metric.embedder(n_jobs=n_jobs)
    if metric.input_type == "strings" or all(isinstance(item, str) for item in X):
        if filter_algorithm in _DENSE_ONLY_INDEXES:
            return CGKEmbedder(random_state=random_state)
        return QGramEmbedder(n_jobs=n_jobs)
    return FastMapEmbedder(metric=metric, n_jobs=n_jobs, random_state=random_state)
