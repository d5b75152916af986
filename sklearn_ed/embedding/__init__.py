"""Embedders: strings (or any objects) to vectors or codes that a vector index
can search.

One estimator per module, numba kernels apart:

- :class:`QGramEmbedder` (``_qgram``): sparse character q-gram profiles;
- :class:`CGKEmbedder` (``_cgk``, kernels in ``_cgk_kernels``): the random
  CGK walk into Hamming space;
- :class:`CNNEDEmbedder` (``_cnned``) and :class:`GRUEmbedder` (``_gru``):
  learned networks for edit distance, built on the torch base in
  :mod:`sklearn_ed.nn`;
- :class:`TripletMinedEmbedder` (``_triplet``): a network for any metric;
- :class:`FastMapEmbedder` (``_fastmap``): pivots for any metric;
- :class:`ClusterMetricLearner` (``_cluster_metric``): a Mahalanobis metric on
  numeric features;
- ``_base``: what every string embedder shares (alphabet, length policy,
  batched transform).

The public names are re-exported by :mod:`sklearn_ed`.
"""

from ._cgk import CGKEmbedder
from ._cluster_metric import ClusterMetricLearner
from ._cnned import CNNEDEmbedder
from ._fastmap import FastMapEmbedder
from ._gru import GRUEmbedder
from ._qgram import QGramEmbedder, qgram_settings
from ._triplet import TripletMinedEmbedder

__all__ = [
    "CGKEmbedder",
    "CNNEDEmbedder",
    "ClusterMetricLearner",
    "FastMapEmbedder",
    "GRUEmbedder",
    "QGramEmbedder",
    "TripletMinedEmbedder",
]
