"""FilterRefineTransformer and the neighbor graphs: the KNeighborsTransformer format."""

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import clone
from sklearn.cluster import DBSCAN
from sklearn.manifold import TSNE
from sklearn.neighbors import KNeighborsTransformer

from sklearn_ed import (
    FilterRefineNeighbors,
    FilterRefineTransformer,
)
from sklearn_ed.distances import pairwise_distances


def brute_force(queries, base, k, exclude_self=False):
    """Exact top-k, ties broken by base index."""
    exact = pairwise_distances(queries, base).astype(np.float64)
    if exclude_self:
        np.fill_diagonal(exact, np.inf)
    order = np.lexsort((np.broadcast_to(np.arange(len(base)), exact.shape), exact), axis=1)
    order = order[:, :k]
    return np.take_along_axis(exact, order, axis=1), order


@pytest.fixture
def words():
    # Many ties: short words over a tiny alphabet.
    rng = np.random.default_rng(0)
    return ["".join(rng.choice(list("ab"), size=rng.integers(1, 6))) for _ in range(60)]


def test_graphs_have_kneighbors_transformer_format(words):
    transformer = FilterRefineTransformer(n_neighbors=3, n_candidates=1.0, random_state=0)
    graph = transformer.fit_transform(words)
    assert sparse.issparse(graph) and graph.shape == (60, 60)
    assert (np.diff(graph.indptr) == 4).all()  # n_neighbors + 1 in distance mode
    connectivity = (
        FilterRefineTransformer(mode="connectivity", n_neighbors=3, random_state=0)
        .fit(words)
        .transform(words)
    )
    assert (np.diff(connectivity.indptr) == 3).all() and (connectivity.data == 1).all()
    search = FilterRefineNeighbors(radius=1, radius_blowup=np.inf).fit(words)
    radius_graph = search.radius_neighbors_graph(mode="distance")
    assert radius_graph.shape == (60, 60) and (radius_graph.data <= 1).all()


def test_transformer_feeds_dbscan_and_tsne():
    groups = [
        ["colour", "color", "colr", "coluor"],
        ["banana", "bananas", "banan", "bannana"],
        ["orange", "oranges", "orang", "ornge"],
    ]
    strings = [word for group in groups for word in group]
    graph = FilterRefineTransformer(n_neighbors=3, random_state=0).fit_transform(strings)
    labels = DBSCAN(eps=2, min_samples=3, metric="precomputed").fit_predict(graph)
    np.testing.assert_array_equal(labels, np.repeat([0, 1, 2], 4))
    wider = FilterRefineTransformer(n_neighbors=4, random_state=0).fit_transform(strings)
    exact_graph = KNeighborsTransformer(n_neighbors=4, metric="precomputed").fit_transform(
        pairwise_distances(strings)
    )
    tsne = TSNE(metric="precomputed", init="random", perplexity=1, random_state=0)
    embedding = tsne.fit_transform(wider)
    np.testing.assert_allclose(embedding, clone(tsne).fit_transform(exact_graph))
    nearest = np.argsort(np.linalg.norm(embedding[:, None] - embedding[None], axis=2))[:, 1]
    np.testing.assert_array_equal(nearest // 4, np.arange(12) // 4)
