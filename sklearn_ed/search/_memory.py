"""Whether a fit fits in memory, estimated before the base is embedded.

A fit that cannot finish should say so at once, not after minutes of work
and a swap storm or the kernel's out-of-memory kill. For the embedders whose
memory grows with the base's text (the q-gram profiles and the CGK codes,
which ``embedder="auto"`` picks), the search is built on two random samples
of the base (m and 3m items, after an unmeasured first build that pays the
one-time costs) with ``tracemalloc`` on; the peak and what the search keeps,
extrapolated linearly from the two to the base, is what the embedding, the
index and the lower bound will take. The deletion lookup of
short strings is added from its entry count, since whether it is built
depends on the whole base. The recall check is not counted: its sample is
bounded. Memory allocated outside Python's allocator (faiss) is not traced.
"""

import tracemalloc

import numpy as np
from sklearn.base import clone

from ..distances import deletion_index_bytes
from ..embedding import CGKEmbedder, QGramEmbedder, qgram_settings
from ..utils import Alphabet, available_memory, take_items

# Bases smaller than this (in items, or in characters) are not checked: the
# two sample builds would cost a noticeable share of their fit.
CHECK_FROM_ITEMS = 500_000
CHECK_FROM_CHARACTERS = 100_000_000
# Characters of the smaller sample (within the item counts below): at least
# two of the q-gram embedder's batches (2**21 characters), so that both
# samples' peaks hold the temporaries of the batches counted at once and
# their difference is only what grows with the base.
_SAMPLE_CHARACTERS = 4_200_000
_SAMPLE_ITEMS = (500, 4_000)


def check_fit_memory(search, X, estimator_name):
    """Raise MemoryError when building ``search`` (a :class:`FittedSearch` with
    nothing added yet) of ``X`` would need more memory than is available."""
    embedder, near_depth = search.embedder, _near_depth(search)
    if not isinstance(embedder, (QGramEmbedder, CGKEmbedder)):
        return
    lengths = _lengths(X)
    if len(X) < CHECK_FROM_ITEMS and lengths.sum() < CHECK_FROM_CHARACTERS:
        return
    available = available_memory()
    if available is None:
        return
    needed = fit_memory_estimate(search, X, lengths)
    if needed > available:
        raise MemoryError(
            f"Fitting {estimator_name} on {len(X):,} items would need about "
            f"{needed / 2**30:.1f} GiB ({type(embedder).__name__} embeddings, the index"
            + (" and the deletion lookup" if near_depth else "")
            + f"; estimated from samples of the base), more than the "
            f"{available / 2**30:.1f} GiB available. Shard the base across machines with "
            "sklearn_ed.dask.ShardedNeighbors(estimator=...), or fit on fewer items."
        )


def fit_memory_estimate(search, X, lengths=None):
    """Bytes the build of ``search`` of ``X`` allocates at its peak, estimated
    from two sample builds (without the near lookup, added from its entry count).

    Returns
    -------
    n_bytes : int
    """
    near_depth = _near_depth(search)
    sample_policy = search.policy.without_near()

    def build(sample, embedder):
        return search.empty_copy(embedder, sample_policy).build(sample)

    lengths = _lengths(X) if lengths is None else lengths
    mean_length = max(float(lengths.mean()), 1.0)
    low, high = _SAMPLE_ITEMS
    size = int(np.clip(_SAMPLE_CHARACTERS / mean_length, low, high))
    size = min(size, len(X) // 3)
    if size == 0:  # too few items to sample: nothing worth estimating
        return 0
    order = np.random.default_rng(0).permutation(len(X))[: 3 * size]
    embedder = _with_settings_of(search.embedder, X, take_items(X, order))
    # The first build pays one-time costs (caches, compiled kernels): unmeasured.
    _traced(lambda: build(take_items(X, order[:size]), clone(embedder)))
    (peak_small, kept_small), (peak_large, kept_large) = (
        _traced(lambda rows=rows: build(take_items(X, rows), clone(embedder)))
        for rows in (order[size : 2 * size], order[: 3 * size])
    )
    # Linear in the base from the larger sample: the growth per item, plus
    # what does not grow (the temporaries of the batches embedded at once).
    more = (len(X) - 3 * size) / (2 * size)
    peak = peak_large + max(peak_large - peak_small, 0) * more
    kept = kept_large + max(kept_large - kept_small, 0) * more
    # The lookup is built after the embedding's temporaries are gone, beside
    # what the search keeps.
    near = deletion_index_bytes(lengths, near_depth) if near_depth else 0
    return int(max(peak, kept + near))


def _near_depth(search):
    """Depth of the near lookup the search will build (0: none)."""
    return search.policy.near_depth if search.metric.near_lookup is not None else 0


def _with_settings_of(embedder, X, sample):
    """``embedder`` with the settings a fit on all of ``X`` picks (a sample
    alone would pick a smaller q-gram length and keep every q-gram); the
    alphabet is the sample's, which spares a pass over the base."""
    if isinstance(embedder, QGramEmbedder):
        n_letters = len(Alphabet.from_strings(sample).characters)
        return clone(embedder).set_params(**qgram_settings(embedder, X, n_letters))
    return embedder


def _lengths(X):
    if len(X) == 0 or not isinstance(X[0], str):
        return np.zeros(len(X), dtype=np.int64)
    return np.fromiter(map(len, X), dtype=np.int64, count=len(X))


def _traced(build):
    """Peak bytes traced while ``build`` runs, and the bytes its result keeps."""
    already = tracemalloc.is_tracing()
    if not already:
        tracemalloc.start()
    tracemalloc.reset_peak()
    start, _ = tracemalloc.get_traced_memory()
    try:
        result = build()
        kept, peak = tracemalloc.get_traced_memory()
        del result
    finally:
        if not already:
            tracemalloc.stop()
    return peak - start, kept - start
