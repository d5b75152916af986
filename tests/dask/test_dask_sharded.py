"""Sharded estimators on a LocalCluster of 2 worker processes: the answers of
one process, bytes per query batch, lost workers and bad input."""

import numpy as np
import pytest
from sklearn.frozen import FrozenEstimator
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_ed import (
    FilterRefineClassifier,
    FilterRefineNeighbors,
    FilterRefineRegressor,
    QGramEmbedder,
)
from sklearn_ed.datasets import load_spell_benchmark, make_genome_reads

distributed = pytest.importorskip("distributed")
dask_bag = pytest.importorskip("dask.bag")

from test_dask import kill_process_soon, received_bytes, two_workers  # noqa: E402

from sklearn_ed.dask import (  # noqa: E402
    ShardedFilterRefineClassifier,
    ShardedFilterRefineNeighbors,
    ShardedNeighbors,
)


@pytest.fixture(scope="module")
def words():
    bench = load_spell_benchmark(n_base=600, n_query=40, n_train=10)
    return list(bench.base), list(bench.query)


def single_process(estimator_class, sharded, **params):
    """The one-process estimator with the sharded one's fitted embedder."""
    params = {"n_candidates": 1.0, "check_recall": False, **params}
    return estimator_class(FrozenEstimator(sharded.embedder_), **params)


@pytest.mark.parametrize("n_shards", [1, 2, 3])
def test_sharded_neighbors_equal_one_process_with_ties(client, words, n_shards):
    base, queries = words
    sharded = ShardedFilterRefineNeighbors(
        n_neighbors=7, n_candidates=1.0, check_recall=False, n_shards=n_shards, client=client
    ).fit(base)
    local = single_process(FilterRefineNeighbors, sharded, n_neighbors=7).fit(base)
    distances, indices = sharded.kneighbors(queries)
    expected = local.kneighbors(queries)
    assert sharded.n_shards_ == n_shards and sharded.shard_sizes_.sum() == len(base)
    # Words are 1-3 edits apart: many rows hold ties, which break by index.
    assert (np.diff(expected[0], axis=1) == 0).any()
    np.testing.assert_array_equal(distances, expected[0])
    np.testing.assert_array_equal(indices, expected[1])


def test_a_dask_bag_base_gives_the_same_answers(client, words):
    base, queries = words
    bag = dask_bag.from_sequence(base, npartitions=3)
    sharded = ShardedFilterRefineNeighbors(
        n_neighbors=4, n_candidates=1.0, check_recall=False, client=client
    ).fit(bag)
    in_memory = ShardedFilterRefineNeighbors(
        n_neighbors=4, n_candidates=1.0, check_recall=False, n_shards=3, client=client
    ).fit(base)
    assert sharded.n_shards_ == 3
    np.testing.assert_array_equal(sharded.kneighbors(queries)[1], in_memory.kneighbors(queries)[1])
    lazy = sharded.kneighbors(dask_bag.from_sequence(queries, npartitions=2))
    assert hasattr(lazy[1], "compute")
    np.testing.assert_array_equal(lazy[1].compute(), in_memory.kneighbors(queries)[1])


@pytest.mark.parametrize(
    "options",
    [
        dict(ties="index", weights="distance", n_candidates=1.0),
        dict(ties="include", weights="uniform", n_candidates=1.0),
        dict(ties="include", weights="distance", n_candidates=5, exact=True),
    ],
    ids=["index ties", "included ties", "exact"],
)
def test_sharded_classifier_and_regressor_equal_one_process(client, words, options):
    """Every option of the wrapped estimator applies sharded: weights, ties, exact."""
    base, queries = words
    labels = np.array([len(word) % 3 for word in base])
    params = dict(n_neighbors=5, check_recall=False, **options)
    classifier = ShardedNeighbors(FilterRefineClassifier(**params), client=client, n_shards=3)
    classifier.fit(base, labels)
    local = single_process(FilterRefineClassifier, classifier, **params).fit(base, labels)
    np.testing.assert_allclose(classifier.predict_proba(queries), local.predict_proba(queries))
    np.testing.assert_array_equal(classifier.predict(queries), local.predict(queries))
    targets = np.array([len(word) for word in base], dtype=float)
    regressor = ShardedNeighbors(FilterRefineRegressor(**params), client=client).fit(base, targets)
    local = single_process(FilterRefineRegressor, regressor, **params).fit(base, targets)
    np.testing.assert_allclose(regressor.predict(queries), local.predict(queries))


@pytest.fixture(scope="module")
def reads():
    strings = make_genome_reads(700, read_length=(1_400, 1_600), random_state=0).data
    return list(strings[:600]), list(strings[600:])


def test_a_query_batch_moves_within_three_times_its_size(client, reads):
    base, queries = reads
    sharded = ShardedFilterRefineNeighbors(
        n_neighbors=5, n_candidates=30, check_recall=False, client=client
    ).fit(base)
    sharded.kneighbors(queries[:5])
    before = received_bytes(client, here=True)
    sharded.kneighbors(queries)
    moved = received_bytes(client, here=True) - before
    query_bytes = sum(len(read) for read in queries)
    # The batch goes once to each of the 2 workers; answers are small.
    assert moved < 3 * query_bytes, (moved, query_bytes)


def test_a_shard_lost_with_its_worker_is_rebuilt_from_its_partition(reads):
    base, queries = reads
    with two_workers() as (cluster, dask_client):
        bag = dask_bag.from_sequence(base, npartitions=4)
        sharded = ShardedFilterRefineNeighbors(
            n_neighbors=5, n_candidates=0.5, check_recall=False, client=dask_client
        ).fit(bag)
        expected = sharded.kneighbors(queries)
        victim = next(iter(cluster.workers.values())).process.process.pid
        killer = kill_process_soon(victim, delay=0.5)
        for _ in range(3):  # keep querying while the worker dies
            answer = sharded.kneighbors(queries)
            np.testing.assert_array_equal(answer[1], expected[1])
        killer.join()
        assert killer.killed_at  # the worker died while the queries ran


def test_a_shard_of_items_in_memory_lost_with_its_worker_is_scattered_again(reads):
    base, queries = reads
    with two_workers() as (cluster, dask_client):
        sharded = ShardedFilterRefineNeighbors(
            n_neighbors=5, n_candidates=0.5, check_recall=False, client=dask_client
        ).fit(base)
        expected = sharded.kneighbors(queries)
        victim = next(iter(cluster.workers.values())).process.process.pid
        killer = kill_process_soon(victim, delay=0.5)
        for _ in range(3):  # keep querying while the worker dies
            answer = sharded.kneighbors(queries)
            np.testing.assert_array_equal(answer[0], expected[0])
            np.testing.assert_array_equal(answer[1], expected[1])
        killer.join()
        assert killer.killed_at


def test_clones_share_the_client_and_grid_search_runs(client, words):
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_score

    base, _ = words
    labels = np.array([len(word) % 2 for word in base])
    sharded = ShardedFilterRefineClassifier(
        n_neighbors=3, n_candidates=0.5, check_recall=False, client=client
    )
    assert clone(sharded).client is client
    scores = cross_val_score(sharded, base, labels, cv=2)
    assert scores.shape == (2,) and np.isfinite(scores).all()


def test_empty_partitions_one_item_and_no_queries(client, words):
    base, queries = words
    bag = dask_bag.from_sequence(base, npartitions=4).filter(lambda word: word[0] != "a")
    bag = dask_bag.concat([bag, dask_bag.from_sequence([], npartitions=1)])
    kept = [word for word in base if word[0] != "a"]
    sharded = ShardedFilterRefineNeighbors(
        n_neighbors=3, n_candidates=1.0, check_recall=False, client=client
    ).fit(bag)
    local = single_process(FilterRefineNeighbors, sharded, n_neighbors=3).fit(kept)
    np.testing.assert_array_equal(sharded.kneighbors(queries)[1], local.kneighbors(queries)[1])
    # Without X, each item of the base is a query excluded from its own answer.
    for got, expected in zip(sharded.kneighbors(), local.kneighbors()):
        np.testing.assert_array_equal(got, expected)
    in_memory = ShardedFilterRefineNeighbors(n_neighbors=3, n_candidates=1.0, client=client)
    for got, expected in zip(in_memory.fit(base).kneighbors(), local.fit(base).kneighbors()):
        np.testing.assert_array_equal(got, expected)
    single = ShardedFilterRefineNeighbors(n_neighbors=1, client=client).fit(["apple"])
    assert single.n_shards_ == 1
    assert single.kneighbors(["apply"])[1].tolist() == [[0]]


def test_bad_input_gives_clear_errors(client, words):
    base, queries = words
    with pytest.raises(ValueError, match="n_shards=700 is more than the 600 items"):
        ShardedFilterRefineNeighbors(n_shards=700, client=client).fit(base)
    sharded = ShardedFilterRefineNeighbors(
        n_neighbors=2, n_candidates=5, check_recall=False, client=client
    ).fit(base)
    with pytest.raises(ValueError, match="X must be a 1-D collection of strings"):
        sharded.kneighbors(np.zeros((3, 4)))  # vectors against a base of strings
    with (
        distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as empty,
        distributed.Client(empty) as no_workers,
    ):
        with pytest.raises(RuntimeError, match="no workers"):
            ShardedFilterRefineNeighbors(client=no_workers).fit(base)
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        closing = distributed.Client(cluster)
        fitted = ShardedFilterRefineNeighbors(
            n_neighbors=2, n_candidates=5, check_recall=False, client=closing
        ).fit(base)
        closing.close()
        with pytest.raises(RuntimeError, match="client is closed"):
            fitted.kneighbors(queries)


def test_parameters_are_validated_before_any_work():
    from sklearn.utils._param_validation import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="n_shards"):
        ShardedFilterRefineNeighbors(n_shards=0).fit(["ab", "cd"])
    with pytest.raises(InvalidParameterError, match="weights"):
        ShardedFilterRefineClassifier(weights="nearest").fit(["ab", "cd"], [0, 1])


def test_two_threads_query_one_sharded_index(client, words):
    from concurrent.futures import ThreadPoolExecutor

    base, queries = words
    sharded = ShardedFilterRefineNeighbors(
        n_neighbors=3, n_candidates=1.0, check_recall=False, client=client
    ).fit(base)
    serial = sharded.kneighbors(queries)
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: sharded.kneighbors(queries), range(4)))
    for distances, indices in answers:
        np.testing.assert_array_equal(distances, serial[0])
        np.testing.assert_array_equal(indices, serial[1])


# ------------------------------------------------- common checks, sharded
SHARDED = [
    ShardedNeighbors(FilterRefineNeighbors(n_neighbors=3, n_candidates=10, random_state=0)),
    ShardedNeighbors(FilterRefineClassifier(n_neighbors=3, n_candidates=10, random_state=0)),
    ShardedNeighbors(FilterRefineRegressor(n_neighbors=3, n_candidates=10, random_state=0)),
]


def _sharded_outputs(estimator, X, y):
    fitted = estimator.fit(X, y if hasattr(estimator, "predict") else None)
    if hasattr(fitted, "predict_proba"):
        return [fitted.predict_proba(X[:20]), fitted.predict(X[:20])]
    if hasattr(fitted, "predict"):
        return [fitted.predict(X[:20])]
    return list(fitted.kneighbors(X[:20]))


@pytest.mark.parametrize("estimator", SHARDED, ids=lambda e: type(e.estimator).__name__)
def test_sharded_estimators_pass_the_common_checks(client, words, estimator):
    """What the common suite checks of every estimator, for the sharded ones: clone
    and nested parameters, NotFittedError, string tags, validation before any
    work, and a refit that answers the same."""
    from sklearn.base import clone
    from sklearn.exceptions import NotFittedError

    base, _ = words
    X = np.asarray(base, dtype=object)
    y = np.array([len(word) % 2 for word in base])
    estimator = clone(estimator).set_params(client=client)
    cloned = clone(estimator)
    assert cloned.get_params()["estimator__n_neighbors"] == 3 and cloned.client is client
    cloned.set_params(estimator__n_neighbors=4)
    assert cloned.estimator.n_neighbors == 4 and estimator.estimator.n_neighbors == 3
    with pytest.raises(NotFittedError):
        estimator.kneighbors(X[:2])
    tags = estimator.__sklearn_tags__()
    assert tags.input_tags.string and not tags.input_tags.two_d_array
    assert tags.estimator_type == estimator.estimator.__sklearn_tags__().estimator_type
    with pytest.raises(InvalidParameterError, match="n_neighbors"):
        clone(estimator).set_params(estimator__n_neighbors=0).fit(X, y)
    first = _sharded_outputs(clone(estimator), X, y)
    for got, expected in zip(_sharded_outputs(clone(estimator), X, y), first):
        np.testing.assert_array_equal(got, expected)


def test_grid_search_tunes_the_wrapped_estimator(client, words):
    from sklearn.model_selection import GridSearchCV

    base, _ = words
    labels = np.array([len(word) % 2 for word in base])
    sharded = ShardedNeighbors(
        FilterRefineClassifier(n_candidates=0.5, check_recall=False), client=client
    )
    grid = GridSearchCV(sharded, {"estimator__n_neighbors": [1, 5]}, cv=2).fit(base, labels)
    assert grid.best_params_["estimator__n_neighbors"] in (1, 5)


def test_the_shared_q_gram_embedder_gets_the_settings_of_the_largest_shard():
    """Fitted on a sample of 300 reads, the embedder would keep every q-gram;
    shards of a million reads take the density and q a fit on one picks."""
    from sklearn_ed.dask._shards import with_shard_settings

    reads = make_genome_reads(300, random_state=0).data
    embedder = QGramEmbedder().fit(reads)
    assert embedder.density_ == 1.0
    shared = with_shard_settings(embedder, reads, n_items=1_000_000)
    assert shared.q_ == 7
    assert shared.density_ == pytest.approx(0.1, rel=0.02)
    assert shared.transform(reads[:5]).nnz < 0.2 * embedder.transform(reads[:5]).nnz
    assert with_shard_settings(embedder, reads, n_items=300) is embedder
