"""The index layer: contract, exactness, ties, threads, adding items, pickling."""

import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_ed import CGKEmbedder, FilterRefineClassifier, FilterRefineNeighbors, QGramEmbedder
from sklearn_ed.index import (
    FlatIndex,
    HNSWIndex,
    IVFIndex,
    NNDescentIndex,
    SparseCosineIndex,
    embedding_spec,
    make_index,
    pack_symbol_codes,
    resolve_algorithm,
)

FAISS_INDEXES = [FlatIndex, HNSWIndex, IVFIndex]
# NNDescent compiles numba code for tens of seconds on first use.
ALGORITHMS = ["brute", "hnsw", "ivf", pytest.param("nndescent", marks=pytest.mark.slow)]


def symbol_hamming_top_k(queries, base, k):
    """Reference: symbol Hamming distances, first k of a stable sort (ties by index)."""
    distances = (queries[:, None, :] != base[None, :, :]).sum(axis=2)
    order = np.argsort(distances, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(distances, order, axis=1).astype(float), order


def test_one_hot_bits_are_twice_symbol_hamming():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 7, size=(50, 13))
    packed = pack_symbol_codes(codes, 7)
    assert packed.shape[1] % 8 == 0
    bits = np.unpackbits(packed, axis=1).astype(int)
    bit_distances = (bits[:, None, :] != bits[None, :, :]).sum(axis=2)
    symbol_distances = (codes[:, None, :] != codes[None, :, :]).sum(axis=2)
    np.testing.assert_array_equal(bit_distances, 2 * symbol_distances)


@pytest.mark.parametrize("n_queries", [1, 7, 300])
def test_flat_binary_ranking_equals_symbol_hamming_ranking_with_ties(n_queries):
    # Three symbols over six positions: most distances tie.
    rng = np.random.default_rng(n_queries)
    base = rng.integers(0, 3, size=(2000, 6))
    queries = rng.integers(0, 3, size=(n_queries, 6))
    distances, indices = FlatIndex("hamming", n_symbols=3).add(base).search(queries, 25)
    expected_distances, expected_indices = symbol_hamming_top_k(queries, base, 25)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_array_equal(distances, expected_distances)


@pytest.mark.parametrize("index_class", FAISS_INDEXES)
@pytest.mark.parametrize("metric", ["hamming", "euclidean"])
def test_asking_for_every_item_is_exact(index_class, metric):
    rng = np.random.default_rng(1)
    if metric == "hamming":
        base, queries = rng.integers(0, 4, size=(300, 10)), rng.integers(0, 4, size=(20, 10))
        expected_distances, expected_indices = symbol_hamming_top_k(queries, base, 300)
    else:
        base = rng.normal(size=(300, 8)).astype(np.float32)
        queries = rng.normal(size=(20, 8)).astype(np.float32)
        full = np.sqrt(((queries[:, None, :] - base[None]) ** 2).sum(axis=2))
        expected_indices = np.argsort(full, axis=1, kind="stable")
        expected_distances = np.take_along_axis(full, expected_indices, axis=1)
    index = index_class(metric, n_symbols=4 if metric == "hamming" else None).add(base)
    distances, indices = index.search(queries, 1000)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_allclose(distances, expected_distances, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("index_class", FAISS_INDEXES)
def test_range_search_returns_items_within_threshold(index_class):
    rng = np.random.default_rng(2)
    base, queries = rng.integers(0, 4, size=(400, 8)), rng.integers(0, 4, size=(10, 8))
    index = index_class(
        "hamming", n_symbols=4, **({"n_probe": 1000} if index_class is IVFIndex else {})
    ).add(base)
    distances = (queries[:, None, :] != base[None]).sum(axis=2)
    found = index.range_search(queries, 4)
    for row, hits in enumerate(found):
        np.testing.assert_array_equal(hits, np.flatnonzero(distances[row] <= 4))


@pytest.mark.parametrize("index_class", FAISS_INDEXES)
def test_pickle_keeps_answers_and_adds(index_class):
    rng = np.random.default_rng(3)
    base = rng.normal(size=(500, 6)).astype(np.float32)
    index = index_class("euclidean").add(base)
    clone = pickle.loads(pickle.dumps(index))
    queries = rng.normal(size=(30, 6)).astype(np.float32)
    for got, expected in zip(clone.search(queries, 5), index.search(queries, 5)):
        np.testing.assert_array_equal(got, expected)
    clone.add(queries)
    assert clone.n_items == 530 and index.n_items == 500


def test_index_rejects_bad_input():
    index = FlatIndex("hamming", n_symbols=4).add(np.zeros((5, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="3-feature embeddings"):
        index.search(np.zeros((2, 4), dtype=np.int64), 2)
    with pytest.raises(ValueError, match=r"symbol codes must lie in \[0, 4\)"):
        index.add(np.full((1, 3), 9))
    with pytest.raises(ValueError, match="holds no items"):
        FlatIndex("euclidean").search(np.zeros((1, 2)), 1)
    with pytest.raises(ValueError, match="needs n_symbols"):
        FlatIndex("hamming")
    with pytest.raises(ValueError, match="supports metric"):
        NNDescentIndex("inner_product")
    with pytest.raises(ValueError, match="filter_algorithm must be"):
        resolve_algorithm("annoy", embedding_spec(FunctionTransformer()), 10, 2)
    with pytest.raises(ValueError, match="index_params"):
        make_index(
            "hnsw",
            embedding_spec(FunctionTransformer()),
            n_items=10,
            n_features=2,
            params={"n_probe": 3},
        )


def test_auto_scans_small_bases_and_picks_by_code_width():
    cgk = CGKEmbedder(random_state=0).fit(["ACGT" * 250])
    spec = embedding_spec(cgk)
    assert resolve_algorithm("auto", spec, 1_000, 3000) == "brute"
    assert resolve_algorithm("auto", spec, 1_000_000, 3000) == "brute"
    assert (
        resolve_algorithm("auto", embedding_spec(CGKEmbedder().fit(["ab"])), 5_000_000, 30)
        == "hnsw"
    )
    dense = embedding_spec(FunctionTransformer())
    assert resolve_algorithm("auto", dense, 10_000, 128) == "brute"
    assert resolve_algorithm("auto", dense, 1_000_000, 128) == "hnsw"


# ----------------------------------------------------------------- estimators
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_all_candidates_equal_brute_force_for_every_index(families, algorithm):
    strings, _ = families
    exact = FilterRefineNeighbors(
        CGKEmbedder(random_state=0),
        n_neighbors=5,
        n_candidates=len(strings),
        filter_algorithm="brute",
    )
    search = FilterRefineNeighbors(
        CGKEmbedder(random_state=0),
        n_neighbors=5,
        n_candidates=len(strings),
        filter_algorithm=algorithm,
    )
    queries = strings[::7] + ["", "ACGT"]
    for got, expected in zip(
        search.fit(strings).kneighbors(queries), exact.fit(strings).kneighbors(queries)
    ):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_concurrent_queries_equal_serial_queries(families, algorithm):
    strings, labels = families
    queries = [s[::-1] for s in strings] + strings
    classifier = FilterRefineClassifier(
        CGKEmbedder(random_state=0),
        n_neighbors=3,
        n_candidates=15,
        filter_algorithm=algorithm,
        random_state=0,
    ).fit(strings, labels)
    search = FilterRefineNeighbors(
        CGKEmbedder(random_state=0),
        n_neighbors=3,
        n_candidates=15,
        filter_algorithm=algorithm,
        random_state=0,
    ).fit(strings)
    calls = [
        lambda: search.kneighbors(queries),
        lambda: classifier.predict(queries),
        lambda: search.radius_neighbors(queries, radius=6, sort_results=True),
    ]
    serial = [call() for call in calls]
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(calls[i % 3]) for i in range(12)]
        results = [future.result() for future in futures]
    for i, result in enumerate(results):
        expected = serial[i % 3]
        flat_result = np.concatenate(
            [
                np.concatenate(part) if part.dtype == object else part.ravel()
                for part in np.atleast_1d(result)
            ]
            if isinstance(result, tuple)
            else [result]
        )
        flat_expected = np.concatenate(
            [
                np.concatenate(part) if part.dtype == object else part.ravel()
                for part in np.atleast_1d(expected)
            ]
            if isinstance(expected, tuple)
            else [expected]
        )
        np.testing.assert_array_equal(flat_result, flat_expected)


def test_partial_fit_equals_fit_on_everything(families):
    strings, labels = families
    first, second = strings[:70], strings[70:]
    embedder = CGKEmbedder(max_length=60, random_state=0)
    grown = FilterRefineClassifier(
        embedder, n_neighbors=4, n_candidates=20, filter_algorithm="brute"
    ).fit(first, labels[:70])
    grown.partial_fit(second, labels[70:])
    whole = FilterRefineClassifier(
        embedder, n_neighbors=4, n_candidates=20, filter_algorithm="brute"
    ).fit(strings, labels)
    # Same data-independent walk and alphabet: the two embedders are the same.
    np.testing.assert_array_equal(grown.embedder_.walk_bits_, whole.embedder_.walk_bits_)
    queries = [s[1:] for s in strings]
    for got, expected in zip(grown.kneighbors(queries), whole.kneighbors(queries)):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(grown.predict_proba(queries), whole.predict_proba(queries))
    assert grown.n_samples_fit_ == len(strings)


def test_partial_fit_adds_new_classes(families):
    strings, labels = families
    classifier = FilterRefineClassifier(n_neighbors=1, random_state=0)
    classifier.fit(strings[:60], labels[:60]).partial_fit(strings[60:], labels[60:] + 100)
    assert set(classifier.classes_) == set(labels[:60]) | set(labels[60:] + 100)
    assert classifier.predict(strings[60:61])[0] == labels[60] + 100


def test_partial_fit_bad_input(families):
    strings, labels = families
    with pytest.raises(NotFittedError, match="Call fit first"):
        FilterRefineNeighbors().partial_fit(strings)
    search = FilterRefineNeighbors(random_state=0).fit(strings)
    with pytest.raises(TypeError, match=r"X\[1\] is of type int"):
        search.partial_fit(["ACGT", 3])
    vectors = FilterRefineNeighbors(metric="euclidean").fit(np.zeros((10, 3)))
    with pytest.raises(ValueError, match="3 features"):
        vectors.partial_fit(np.zeros((2, 4)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_pickled_estimator_answers_the_same(families, algorithm):
    strings, _ = families
    search = FilterRefineNeighbors(
        CGKEmbedder(random_state=0),
        n_neighbors=3,
        n_candidates=10,
        filter_algorithm=algorithm,
        random_state=0,
    ).fit(strings)
    restored = pickle.loads(pickle.dumps(search))
    for got, expected in zip(restored.kneighbors(strings), search.kneighbors(strings)):
        np.testing.assert_array_equal(got, expected)


def test_pipeline_ending_in_cgk_is_indexed_like_cgk(families):
    strings, _ = families
    upper = FunctionTransformer(lambda X: [s.upper() for s in X])
    piped = FilterRefineNeighbors(
        make_pipeline(upper, CGKEmbedder(random_state=0)), n_candidates=10
    ).fit(strings)
    bare = FilterRefineNeighbors(CGKEmbedder(random_state=0), n_candidates=10).fit(strings)
    assert piped.embedding_metric_ == "hamming"
    assert piped.index_.n_features == bare.index_.n_features
    for got, expected in zip(piped.kneighbors(strings), bare.kneighbors(strings)):
        np.testing.assert_array_equal(got, expected)


def test_unknown_filter_algorithm_and_undeclared_codes(families):
    strings, _ = families
    with pytest.raises(InvalidParameterError, match="filter_algorithm"):
        FilterRefineNeighbors(filter_algorithm="annoy").fit(strings)

    class CodesWithoutSymbols(FunctionTransformer):
        embedding_metric = "hamming"

    with pytest.raises(ValueError, match="transform_symbols"):
        FilterRefineNeighbors(
            CodesWithoutSymbols(lambda X: np.zeros((len(X), 3))), metric="levenshtein"
        ).fit(strings)


@pytest.mark.parametrize("radius", [np.nan, np.inf, -1.0])
def test_radius_must_be_finite_and_non_negative(families, radius):
    strings, _ = families
    search = FilterRefineNeighbors(random_state=0).fit(strings)
    with pytest.raises(ValueError, match="finite non-negative"):
        search.radius_neighbors(strings[:2], radius=radius)


@pytest.mark.parametrize("metric", ["levenshtein", "euclidean"])
def test_huge_radius_returns_every_item(families, metric):
    strings, _ = families
    X = strings if metric == "levenshtein" else np.random.default_rng(0).normal(size=(50, 3))
    search = FilterRefineNeighbors(metric=metric, random_state=0).fit(X)
    found = search.radius_neighbors(X[:2], radius=1e300, return_distance=False)
    assert all(len(hits) == len(X) for hits in found)


def test_cuda_device_without_gpu_warns_and_stays_on_cpu():
    import faiss

    if hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus():
        pytest.skip("a GPU is present")
    vectors = np.random.default_rng(0).normal(size=(50, 4)).astype(np.float32)
    with pytest.warns(UserWarning, match="sees no GPU"):
        index = FlatIndex("euclidean", device="cuda").add(vectors)
    np.testing.assert_array_equal(index.search(vectors[:3], 1)[1].ravel(), [0, 1, 2])
    with pytest.raises(ValueError, match="device must be"):
        FlatIndex("euclidean", device="tpu")


@pytest.mark.gpu
def test_cuda_flat_index_matches_cpu():
    import faiss

    if not (hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus()):
        pytest.skip("faiss sees no GPU")
    vectors = np.random.default_rng(0).normal(size=(500, 16)).astype(np.float32)
    gpu = FlatIndex("euclidean", device="cuda").add(vectors)
    cpu = FlatIndex("euclidean").add(vectors)
    np.testing.assert_array_equal(gpu.search(vectors, 5)[1], cpu.search(vectors, 5)[1])
    restored = pickle.loads(pickle.dumps(gpu))
    np.testing.assert_array_equal(restored.search(vectors, 5)[1], cpu.search(vectors, 5)[1])


@pytest.mark.parametrize("index_class", [FlatIndex, HNSWIndex, IVFIndex])
def test_inner_product_distances_are_negated_products(index_class):
    rng = np.random.default_rng(4)
    base = rng.normal(size=(200, 5)).astype(np.float32)
    queries = rng.normal(size=(6, 5)).astype(np.float32)
    products = queries.astype(np.float64) @ base.T.astype(np.float64)
    index = index_class("inner_product").add(base)
    distances, indices = index.search(queries, 200)
    np.testing.assert_array_equal(indices[:, 0], products.argmax(axis=1))
    np.testing.assert_allclose(distances, -np.sort(products, axis=1)[:, ::-1], rtol=1e-4, atol=1e-4)
    flat = FlatIndex("inner_product").add(base)
    for row, hits in enumerate(flat.range_search(queries, -1.0)):
        # float32 products: only pairs within rounding of the threshold may differ
        assert set(np.flatnonzero(-products[row] <= -1.0 - 1e-4)) <= set(hits)
        assert set(hits) <= set(np.flatnonzero(-products[row] <= -1.0 + 1e-4))


def test_inner_product_range_beyond_float32_finds_nothing_or_everything():
    vectors = np.random.default_rng(5).normal(size=(20, 3)).astype(np.float32)
    index = FlatIndex("inner_product").add(vectors)
    assert all(len(hits) == 0 for hits in index.range_search(vectors[:2], -1e300))
    assert all(len(hits) == 20 for hits in index.range_search(vectors[:2], 1e300))


def test_sparse_index_grown_in_batches_answers_as_one_built_at_once(families):
    strings, _ = families
    profiles = QGramEmbedder(q=2).fit(strings).transform(strings)
    whole = SparseCosineIndex().add(profiles)
    grown = SparseCosineIndex().add(profiles[:50])
    for start in range(50, profiles.shape[0], 9):
        grown.add(profiles[start : start + 9])
    assert grown.n_items == whole.n_items and 1 < len(grown._index) <= 8
    queries = profiles[::5]
    for k in (1, 7, whole.n_items):
        (grown_distances, grown_items), (distances, items) = (
            grown.search(queries, k),
            whole.search(queries, k),
        )
        np.testing.assert_array_equal(grown_distances, distances)
        # Which of the items tied at the k-th distance an engine keeps is its own;
        # every item strictly nearer is the same.
        nearer = distances < distances[:, -1:]
        np.testing.assert_array_equal(grown_items[nearer], items[nearer])
    for got, want in zip(grown.range_search(queries, 0.4), whole.range_search(queries, 0.4)):
        np.testing.assert_array_equal(got, want)
    # Restored, it keeps its segments, so it keeps the same items among ties.
    restored = SparseCosineIndex().load_bytes(grown.to_bytes(), profiles.shape[1])
    assert [s.start for s in restored._index] == [s.start for s in grown._index]
    for got, want in zip(restored.search(queries, 7), grown.search(queries, 7)):
        np.testing.assert_array_equal(got, want)


def test_sparse_index_keeps_normalized_rows_and_normalizes_others():
    words = ["kitten", "sitting", "mitten", "smitten", ""]
    profiles = QGramEmbedder(q=2).fit_transform(words)
    index = SparseCosineIndex().add(profiles)
    # Already unit rows (and the empty one) are not copied: at a million reads
    # the copy would be most of the fit's peak.
    assert np.shares_memory(index._index[0].rows.data, profiles.data)
    counts = profiles.multiply(np.arange(1, 6, dtype=np.float32)[:, None]).tocsr()
    rescaled = SparseCosineIndex().add(counts)
    assert not np.shares_memory(rescaled._index[0].rows.data, counts.data)
    for got, expected in zip(rescaled.search(counts, k=3), index.search(profiles, k=3)):
        np.testing.assert_allclose(got, expected, atol=1e-6)
