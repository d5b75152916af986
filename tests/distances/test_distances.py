import numpy as np
import pytest

from sklearn_ed.distances import (
    Metric,
    available_metrics,
    candidate_distances,
    edge_images,
    get_metric,
    images_to_point_sets,
    make_dtw_metric,
    pairwise_distances,
    pairwise_distances_within,
    register_metric,
)

UNICODE_STRINGS = [
    "",
    "a",
    "abc",
    "cafe\u0301",
    "caf\u00e9",
    "\U0001f600\U0001f601",
    "\u6f22\u5b57",
    "\u6f22\u5b57\u4eee\u540d",
    "na\u00efve",
    "a\U0001f600b",
]
_RNG = np.random.default_rng(0)
VECTORS = _RNG.normal(size=(7, 3))
SERIES = [_RNG.normal(size=(2, length)) for length in (1, 4, 9, 9, 15)]
POINT_SETS = [_RNG.normal(size=(n_points, 2)) for n_points in (1, 3, 8, 8)]
IMAGES = _RNG.integers(0, 17, size=(4, 8, 8)).astype(float)
OBJECT_SAMPLES = {"dtw": SERIES, "chamfer": POINT_SETS, "chamfer_image": IMAGES}


def sample_items(metric):
    if metric.input_type == "vectors":
        return VECTORS
    if metric.input_type == "strings":
        return UNICODE_STRINGS
    return OBJECT_SAMPLES[metric.name]


@pytest.mark.parametrize("name", available_metrics())
def test_pairwise_matches_plain_oracle(name):
    metric = get_metric(name)
    items = sample_items(metric)
    expected = np.array([[metric.oracle(x, y) for y in items] for x in items])
    np.testing.assert_allclose(pairwise_distances(items, metric=name), expected)


@pytest.mark.parametrize("name", available_metrics())
def test_parallel_pairwise_equals_serial(name):
    items = sample_items(get_metric(name))
    np.testing.assert_array_equal(
        pairwise_distances(items, metric=name, n_jobs=2), pairwise_distances(items, metric=name)
    )


@pytest.mark.parametrize("name", available_metrics())
def test_candidate_distances_match_full_matrix(name):
    items = sample_items(get_metric(name))
    full = pairwise_distances(items, metric=name)
    rng = np.random.default_rng(0)
    candidates = np.array([rng.permutation(len(items))[:4] for _ in range(len(items))])
    refined = candidate_distances(items, items, candidates, metric=name, n_jobs=2)
    np.testing.assert_allclose(refined, np.take_along_axis(full, candidates, axis=1))


@pytest.mark.parametrize("name", available_metrics())
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_cutoffs_per_row_keep_exactly_the_pairs_within(name, n_jobs):
    items = sample_items(get_metric(name))
    full = pairwise_distances(items, metric=name)
    # Per-row limits between the smallest and the largest distance of the row,
    # some of them exactly a distance (kept: "within" is <=).
    rng = np.random.default_rng(1)
    limits = np.array([rng.choice(row) for row in full], dtype=np.float64)
    limits[::3] -= 0.5
    expected = np.where(full <= limits[:, None], full, np.inf)

    cut = pairwise_distances(items, metric=name, score_cutoff=limits, n_jobs=n_jobs)
    np.testing.assert_allclose(cut, expected)

    rows, columns, distances = pairwise_distances_within(
        items, items, name, limits=limits, n_jobs=n_jobs
    )
    expected_rows, expected_columns = np.nonzero(full <= limits[:, None])
    np.testing.assert_array_equal(rows, expected_rows)
    np.testing.assert_array_equal(columns, expected_columns)
    np.testing.assert_allclose(distances, full[expected_rows, expected_columns])


def test_levenshtein_counts_code_points():
    # A combining accent is its own code point: "cafe" + U+0301 is 1 edit from "café".
    assert pairwise_distances(["cafe\u0301"], ["caf\u00e9"])[0, 0] == 2
    assert pairwise_distances([""], ["\U0001f600\U0001f601"])[0, 0] == 2


def test_score_cutoff_marks_far_candidates_infinite():
    base = ["aaaa", "aaab", "bbbb"]
    refined = candidate_distances(["aaaa"], base, np.array([[0, 1, 2]]), score_cutoff=[1])
    np.testing.assert_array_equal(refined, [[0.0, 1.0, np.inf]])


def test_many_distinct_cutoffs_share_calls_and_keep_each_its_own():
    """Past 16 distinct cut-offs a block's calls take laddered ones (at most
    1/8 above); every pair is still held to its own query's, ties kept."""
    rng = np.random.default_rng(0)
    base = ["".join(rng.choice(list("ACGT"), size=rng.integers(60, 90))) for _ in range(60)]
    queries = base[:40]
    candidates = rng.integers(-1, len(base), size=(40, 12))
    full = candidate_distances(queries, base, candidates)
    finite = np.where(np.isfinite(full), full, np.nan)
    # Cut-offs at a distance each query has, so that ties at it must be kept.
    cutoffs = np.nanmedian(finite, axis=1)
    assert len(np.unique(cutoffs)) > 16
    cut = candidate_distances(queries, base, candidates, score_cutoff=cutoffs)
    np.testing.assert_array_equal(cut, np.where(full <= cutoffs[:, None], full, np.inf))
    scaled = candidate_distances(
        queries, base, candidates, metric="normalized_levenshtein", score_cutoff=cutoffs / 100
    )
    normalized = candidate_distances(queries, base, candidates, metric="normalized_levenshtein")
    np.testing.assert_array_equal(
        scaled, np.where(normalized <= cutoffs[:, None] / 100, normalized, np.inf)
    )


def test_empty_candidate_slots_are_infinite():
    refined = candidate_distances(["ab"], ["ab", "b"], np.array([[1, -1]]))
    np.testing.assert_array_equal(refined, [[1.0, np.inf]])


def test_hamming_counts_length_difference():
    assert pairwise_distances(["abc"], ["abxde"], metric="hamming")[0, 0] == 3


def test_unknown_metric_names_the_choices():
    with pytest.raises(ValueError, match="Unknown metric 'levenstein'.*levenshtein"):
        pairwise_distances(["a"], ["b"], metric="levenstein")


def test_callable_metric_is_wrapped():
    def length_gap(x, y):
        return abs(len(x) - len(y))

    distances = pairwise_distances(["a", "abc"], ["ab"], metric=length_gap)
    np.testing.assert_array_equal(distances, [[1.0], [1.0]])
    assert get_metric(length_gap).name == "length_gap"


def test_register_metric_refuses_silent_overwrite():
    metric = Metric(
        name="levenshtein", pairwise=lambda X, Y, score_cutoff=None: None, input_type="strings"
    )
    with pytest.raises(ValueError, match="already registered"):
        register_metric(metric)


def test_candidates_shape_is_checked():
    with pytest.raises(ValueError, match="one row per query"):
        candidate_distances(["a", "b"], ["a"], np.array([[0]]))


@pytest.mark.parametrize("window", [0.0, 0.2, 1.0])
def test_banded_dtw_matches_oracle(window):
    metric = make_dtw_metric(window=window)
    expected = np.array([[metric.oracle(x, y) for y in SERIES] for x in SERIES])
    np.testing.assert_allclose(pairwise_distances(SERIES, metric=metric), expected)


def test_dtw_accepts_arrays_and_checks_channels():
    univariate = np.array([[0.0, 1.0, 2.0], [0.0, 2.0, 4.0]])
    as_3d = univariate[:, None, :]
    np.testing.assert_allclose(
        pairwise_distances(univariate, metric="dtw"), pairwise_distances(as_3d, metric="dtw")
    )
    assert pairwise_distances([[0.0, 1.0, 2.0]], [[0.0, 0.0, 1.0, 2.0]], metric="dtw")[0, 0] == 0
    with pytest.raises(ValueError, match="same number of channels"):
        pairwise_distances([np.zeros((1, 3)), np.zeros((2, 3))], metric="dtw")
    with pytest.raises(ValueError, match="NaN"):
        pairwise_distances([np.array([0.0, np.nan])], metric="dtw")


def test_dtw_cutoff_abandons_far_pairs():
    near, far = np.zeros(20), np.full(20, 10.0)
    refined = candidate_distances(
        [np.zeros(20)], [near, far], np.array([[0, 1]]), metric="dtw", score_cutoff=[1.0]
    )
    np.testing.assert_array_equal(refined, [[0.0, np.inf]])


def test_images_to_point_sets_and_chamfer():
    images = np.zeros((2, 6, 6))
    images[0, 1:4, 1:4] = 16
    images[1, 2:5, 2:5] = 16  # the same square shifted by one pixel diagonally
    points = images_to_point_sets(images)
    assert len(points[0]) == 8
    distances = pairwise_distances(points, metric="chamfer")
    assert distances[0, 0] == 0
    assert distances[0, 1] > 0
    assert distances[0, 1] == pytest.approx(get_metric("chamfer").oracle(*points))
    with pytest.raises(ValueError, match="Image 0 has no pixel"):
        images_to_point_sets(np.zeros((1, 4, 4)))
    with pytest.raises(ValueError, match="Point set 0"):
        pairwise_distances([np.zeros((0, 2))], metric="chamfer")


def test_edge_images_are_the_point_sets_and_keep_chamfer_image():
    from sklearn.datasets import load_digits

    images = load_digits().images[:60]
    edges = edge_images(images)
    assert edges.dtype == np.float32 and set(np.unique(edges)) == {0.0, 1.0}
    for mask, points in zip(edges, images_to_point_sets(images)):
        np.testing.assert_array_equal(np.argwhere(mask), points)
    np.testing.assert_array_equal(edge_images(edges), edges)  # edges of edges: the same
    np.testing.assert_allclose(
        pairwise_distances(edges, metric="chamfer_image"),
        pairwise_distances(images, metric="chamfer_image"),
    )
    with pytest.raises(ValueError, match="Image 0 has no pixel"):
        edge_images(np.zeros((1, 4, 4)))
    with pytest.raises(ValueError, match="must be 3-D"):
        edge_images(np.zeros((4, 4)))


@pytest.mark.parametrize("name", available_metrics())
def test_unchecked_input_gives_the_checked_answer(name):
    from sklearn_ed.utils import check_items

    metric = get_metric(name)
    items = check_items(sample_items(metric), metric.input_type)
    candidates = np.tile(np.arange(len(items)), (len(items), 1))
    np.testing.assert_array_equal(
        candidate_distances(items, items, candidates, metric=name, check_input=False),
        candidate_distances(sample_items(metric), sample_items(metric), candidates, metric=name),
    )
    np.testing.assert_array_equal(
        pairwise_distances(items, metric=name, check_input=False),
        pairwise_distances(sample_items(metric), metric=name),
    )


@pytest.mark.parametrize("exact", [False, True])
def test_queries_never_revalidate_the_fitted_base(monkeypatch, exact):
    # Validating 100,000 fitted strings on every refine call made exact
    # search on words 10x slower than brute force.
    from sklearn_ed import FilterRefineNeighbors, QGramEmbedder
    from sklearn_ed.distances.engine import _pairwise

    base = [f"w{i:03d}x" for i in range(300)]
    search = FilterRefineNeighbors(
        QGramEmbedder(), n_neighbors=2, n_candidates=5, exact=exact, check_recall=False
    ).fit(base)
    checked_lengths = []
    original = _pairwise.check_items

    def recording(X, *args, **kwargs):
        checked_lengths.append(len(X))
        return original(X, *args, **kwargs)

    monkeypatch.setattr(_pairwise, "check_items", recording)
    search.kneighbors(["w001y", "w123x", "zzz"])
    search.radius_neighbors(["w001y"], radius=1)
    assert len(base) not in checked_lengths


def test_callable_metric_computing_batched_distances_itself_does_not_deadlock():
    # Chunks run on a pool of threads kept for the process; a metric that
    # itself asks for batched distances from a pool thread must not wait on
    # the pool it occupies.
    import threading

    def nested(x, y):
        return float(pairwise_distances([x, x], [y], n_jobs=2)[0, 0])

    words = ["kitten", "sitting", "mitten", "bitten", "fitting"] * 8
    result = {}
    worker = threading.Thread(
        target=lambda: result.update(value=pairwise_distances(words, metric=nested, n_jobs=2))
    )
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "pairwise_distances deadlocked on its thread pool"
    np.testing.assert_array_equal(result["value"], pairwise_distances(words, n_jobs=2))


def _distances_into(queue, words):
    queue.put(pairwise_distances(words, n_jobs=2))


def test_a_forked_child_computes_distances_on_threads_of_its_own():
    # The thread pool is kept for the process; a child forked after it was
    # made must not send work to the parent's threads (it would wait forever).
    import multiprocessing

    words = ["kitten", "sitting", "mitten", "bitten", "fitting"] * 8
    expected = pairwise_distances(words, n_jobs=2)  # makes the pool
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_distances_into, args=(queue, words))
    child.start()
    try:
        np.testing.assert_array_equal(queue.get(timeout=60), expected)
    finally:
        child.join(timeout=5)
        if child.is_alive():
            child.kill()


def test_dtw_keeps_pairs_exactly_at_the_cutoff():
    """sqrt(6) ** 2 rounds below 6: comparing squares abandoned this pair."""
    from sklearn_ed import FilterRefineNeighbors

    metric = make_dtw_metric(window=0.0)
    base = np.array([[1.0, 1.0, 2.0], [2.0, 1.0, 1.0], [1.0, 2.0, 1.0], [5.0, 5.0, 5.0]])
    query = np.zeros((1, 3))
    distance = pairwise_distances(query, base[:1], metric=metric)[0, 0]
    assert distance == np.sqrt(6.0)
    cut = pairwise_distances(query, base, metric=metric, score_cutoff=distance)
    np.testing.assert_array_equal(cut[0, :3], [distance] * 3)
    search = FilterRefineNeighbors(
        metric=metric, n_neighbors=2, n_candidates=2, exact=True, random_state=0
    ).fit(base)
    radius_distances, radius_indices = search.radius_neighbors(query, radius=distance)
    np.testing.assert_array_equal(np.sort(radius_indices[0]), [0, 1, 2])
    distances, indices = search.kneighbors(query)
    np.testing.assert_array_equal(indices, [[0, 1]])
