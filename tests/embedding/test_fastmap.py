import numpy as np
import pytest
from scipy.spatial.distance import pdist

from sklearn_ed import FastMapEmbedder, FilterRefineNeighbors
from sklearn_ed.distances import pairwise_distances


def test_recovers_euclidean_geometry_exactly():
    X = np.random.default_rng(0).normal(size=(100, 3))
    embedded = FastMapEmbedder(metric="euclidean", n_components=3, random_state=0).fit_transform(X)
    np.testing.assert_allclose(pdist(embedded), pdist(X), atol=1e-4)


def test_new_objects_use_two_exact_distances_per_coordinate():
    calls = []

    def absolute(x, y):
        calls.append(1)
        return abs(x - y)

    embedder = FastMapEmbedder(metric=absolute, n_components=2, random_state=0).fit(
        [0.0, 3.0, 7.0, 9.0]
    )
    calls.clear()
    coordinates = embedder.transform([5.0])
    assert len(calls) == 2 * 2
    reference = embedder.transform([0.0])
    assert abs(coordinates[0, 0] - reference[0, 0]) == pytest.approx(5.0, abs=1e-5)


def test_string_embedding_preserves_neighbors(families):
    strings, labels = families
    embedder = FastMapEmbedder(n_components=16, random_state=0).fit(strings)
    embedded = embedder.transform(strings)
    distances = pdist(embedded)
    exact = pdist(
        np.arange(len(strings))[:, None],
        lambda i, j: pairwise_distances([strings[int(i[0])]], [strings[int(j[0])]])[0, 0],
    )
    assert np.corrcoef(distances, exact)[0, 1] > 0.7
    search = FilterRefineNeighbors(embedder, n_neighbors=3, n_candidates=10).fit(strings)
    indices = search.kneighbors(return_distance=False)
    assert (labels[indices] == labels[:, None]).mean() > 0.9


def test_nonmetric_dtw_stays_finite():
    rng = np.random.default_rng(0)
    series = [rng.normal(size=rng.integers(5, 20)) for _ in range(30)]
    embedded = FastMapEmbedder(metric="dtw", n_components=8, random_state=0).fit_transform(series)
    assert np.isfinite(embedded).all() and embedded.dtype == np.float32


def test_empty_input_is_rejected():
    with pytest.raises(ValueError, match="0 strings"):
        FastMapEmbedder().fit([])
